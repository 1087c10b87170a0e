import type { Finder } from "./FindLines.js"

// What a snapshot request asks for, and how its options resolve: any role option makes a role snapshot,
// `efficient` fills in a cap and the filters, and the cap and depth are clamped to sane numbers.

export interface SnapshotOptions {
  /** ai (default): playwright's AI snapshot with numeric refs; role: lines with e<n> refs. */
  readonly format?: "ai" | "role" | undefined
  /** Character cap. Default 80,000 (10,000 with efficient). */
  readonly limit?: number | undefined
  /** Role: a flat list of the interactive elements only. */
  readonly interactive?: boolean | undefined
  /** Role: drop unnamed structure and branches without refs. */
  readonly compact?: boolean | undefined
  /** Role: only nodes this many levels deep or less (top level = 1). */
  readonly depth?: number | undefined
  /** Role: snapshot of this element (CSS or playwright selector) instead of the page. */
  readonly selector?: string | undefined
  /** Role: snapshot inside this iframe (selector of the iframe element); its refs stay scoped to it. */
  readonly frame?: string | undefined
  /** Role: interactive + compact + cap {@link EFFICIENT_LIMIT}: every interactive element, to the cap. */
  readonly efficient?: boolean | undefined
  /** Also a viewport screenshot with each visible ref's label drawn on its element. */
  readonly labels?: boolean | undefined
  /** Keep each element's box in its line: ` [box=x,y,width,height]`, whole CSS pixels of the viewport. */
  readonly boxes?: boolean | undefined
  /**
   * Only the lines that match this search, each under its path (FindLines.ts): the whole page (or scope) is
   * read for it, and the cap applies to what is found (default {@link FIND_LIMIT}).
   */
  readonly find?: Finder | undefined
  /** Bound on playwright's snapshot call. Default 20 s (with selector or frame: 5 s, which is mostly the wait for it). */
  readonly timeoutMs?: number | undefined
}

export const DEFAULT_LIMIT = 80_000
export const EFFICIENT_LIMIT = 10_000
export const FIND_LIMIT = 20_000
export const MAX_LIMIT = 10_000_000
const DEFAULT_TIMEOUT_MS = 20_000
const LOCATE_TIMEOUT_MS = 5_000

export interface ResolvedSnapshotOptions {
  readonly format: "ai" | "role"
  readonly limit: number
  readonly interactive: boolean
  readonly compact: boolean
  readonly depth: number | undefined
  readonly selector: string | undefined
  readonly frame: string | undefined
  readonly labels: boolean
  readonly boxes: boolean
  readonly find: Finder | undefined
  /** How far the page is read: the cap, or everything for a search (its cap is on what it found). */
  readonly readLimit: number
  readonly timeoutMs: number
}

/** Which snapshot a request means: any role option makes a role snapshot; efficient fills in its parts. */
export const resolveSnapshotOptions = (o: SnapshotOptions): ResolvedSnapshotOptions => {
  const efficient = o.efficient === true
  const role = o.format === "role" || efficient || o.interactive === true || o.compact === true ||
    o.depth !== undefined || o.selector !== undefined || o.frame !== undefined
  const limit = Math.min(
    MAX_LIMIT,
    Math.max(1, Math.floor(o.limit ?? (o.find !== undefined ? FIND_LIMIT : efficient ? EFFICIENT_LIMIT : DEFAULT_LIMIT)))
  )
  // No depth of its own: a depth limit would drop the deepest controls (a button five lists down), and
  // efficient is a flat list of controls already, which the character cap bounds.
  const depth = o.depth !== undefined ? Math.max(1, Math.floor(o.depth)) : undefined
  return {
    format: role ? "role" : "ai",
    limit,
    interactive: efficient || o.interactive === true,
    compact: efficient || o.compact === true,
    depth,
    selector: o.selector,
    frame: o.frame,
    labels: o.labels === true,
    boxes: o.boxes === true,
    find: o.find,
    readLimit: o.find !== undefined ? MAX_LIMIT : limit,
    timeoutMs: o.timeoutMs ?? (o.selector !== undefined || o.frame !== undefined ? LOCATE_TIMEOUT_MS : DEFAULT_TIMEOUT_MS)
  }
}
