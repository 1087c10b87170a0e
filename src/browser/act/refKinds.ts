import { Effect } from "effect"
import type { FrameLocator, Locator, Page } from "playwright-core"
import { pseudoLocator } from "../snapshot/PseudoControls.js"
import { type ChangeWatch, changedSoFar, kindUnchanged } from "./changeWatch.js"

// The kind of a role ref's element: its role and name, in the frame and scope its snapshot was taken of.
// Role refs are found by kind (the nth of their kind), and a role snapshot's look-alikes (several of a kind)
// get their elements' identities only while their kind is known to be the same elements in the same order.

/** What a role ref says of its kind. */
export interface RefKind {
  readonly role: string
  /** Undefined: found by role alone. */
  readonly name: string | undefined
  /** How many of its kind its snapshot showed. */
  readonly count: number
  readonly frameSelector?: string | undefined
  readonly scopeSelector?: string | undefined
}

type Role = Parameters<Page["getByRole"]>[0]

/** Elements with the role and (exact) name, anywhere in the document the locator is evaluated in. */
export const alike = (within: Page | FrameLocator, role: string, name: string | undefined): Locator =>
  pseudoLocator(within, role, name) ??
    within.getByRole(role as Role, name !== undefined && name !== "" ? { name, exact: true } : {})

/** The elements of a ref's kind in its frame and scope, and where they are looked for. */
export const kindOf = (page: Page, kind: RefKind): { readonly within: Page | FrameLocator; readonly all: Locator } => {
  const within = kind.frameSelector !== undefined ? page.frameLocator(kind.frameSelector) : page
  const all = alike(within, kind.role, kind.name)
  if (kind.scopeSelector === undefined) return { within, all }
  // The scoped snapshot shows the scope element itself first, which getByRole inside it would miss.
  const scope = within.locator(kind.scopeSelector)
  return { within, all: scope.and(all).or(alike(scope as unknown as Page, kind.role, kind.name)) }
}

/** One key per kind. */
export const kindKey = (k: RefKind): string =>
  `${k.role}\u0000${k.name ?? "\u0001"}\u0000${k.frameSelector ?? ""}\u0000${k.scopeSelector ?? ""}`

/** Look-alike kinds of one role snapshot checked for changes at most (each a page call). */
const MAX_KINDS_CHECKED = 32

/**
 * The look-alike kinds among `refs` (at most MAX_KINDS_CHECKED of them) that no change the watch saw touched
 * (changeWatch.kindUnchanged), by kindKey; none when nothing changed. Asked while the watch runs; a few page
 * calls at a time.
 */
export const untouchedKinds = (watch: ChangeWatch, refs: Iterable<RefKind>): Effect.Effect<Set<string>> =>
  Effect.gen(function*() {
    const kinds = new Map<string, RefKind>()
    for (const k of refs) if (k.count > 1 && kinds.size < MAX_KINDS_CHECKED) kinds.set(kindKey(k), k)
    const settled = new Set<string>()
    // Nothing changed (the usual case): every kind is as it was, and the caller's stop of the watch says so.
    if (kinds.size === 0 || !(yield* changedSoFar(watch))) return settled
    yield* Effect.forEach(
      kinds,
      ([key, k]) => Effect.map(kindUnchanged(watch, kindOf(watch.page, k).all, k.count), (ok) => ok && settled.add(key)),
      { concurrency: 4, discard: true }
    )
    return settled
  })
