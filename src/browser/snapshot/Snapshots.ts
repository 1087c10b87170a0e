import { Effect, Fiber } from "effect"
import type { Page } from "playwright-core"
import { BrowserUnavailable, InvalidRequest, NotFound } from "../../domain/errors.js"
import { PlaywrightSessions } from "../pages/Playwright.js"
import { type AiRefEntry, type RoleRefEntry, roleKey, Refs, type TabRef } from "../act/Refs.js"

// AI and role snapshots of a tab through the automation library.
//
// Both start from playwright's YAML-like text, one line per node: `- role "name" [attr] [attr=v]: value`,
// the whole key single-quoted when YAML needs it (`- 'button "a: b" [ref=e2]'`). Post-processing is one
// linear pass over the lines: an AI snapshot of a 4,000-node page takes playwright about 200 ms, and what
// we add has to stay within a few percent of that.

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
  /** Role: interactive + compact + depth {@link EFFICIENT_DEPTH} + cap {@link EFFICIENT_LIMIT}. */
  readonly efficient?: boolean | undefined
  /** Also a viewport screenshot with each visible ref's label drawn on its element. */
  readonly labels?: boolean | undefined
  /** Bound on playwright's snapshot call. Default 20 s (with selector or frame: 5 s, which is mostly the wait for it). */
  readonly timeoutMs?: number | undefined
}

export interface RefInfo {
  readonly role: string
  readonly name: string
  readonly nth?: number
}

export interface SnapshotStats {
  readonly lines: number
  readonly chars: number
  readonly refs: number
  readonly interactive: number
}

export interface SnapshotOutput {
  readonly format: "ai" | "role"
  readonly snapshot: string
  readonly refs: Record<string, RefInfo>
  readonly stats: SnapshotStats
  readonly truncated: boolean
  readonly url: string
  readonly title: string
  readonly labelsPng?: Uint8Array
}

export const DEFAULT_LIMIT = 80_000
export const EFFICIENT_LIMIT = 10_000
/**
 * Depth of efficient snapshots. Default-mode ARIA trees leave out generic containers, so ten levels of
 * real structure (landmark, list, item, nested list, form, group, ...) reach the controls of ordinary pages
 * while the deepest corners of huge ones (comment threads, nested menus) stay out.
 */
export const EFFICIENT_DEPTH = 10
const MAX_LIMIT = 10_000_000
const DEFAULT_TIMEOUT_MS = 20_000
const LOCATE_TIMEOUT_MS = 5_000

/** Roles an agent acts on; `interactive` lists these and nothing else. */
export const INTERACTIVE_ROLES: ReadonlySet<string> = new Set([
  "button",
  "link",
  "textbox",
  "searchbox",
  "checkbox",
  "radio",
  "combobox",
  "listbox",
  "option",
  "menuitem",
  "menuitemcheckbox",
  "menuitemradio",
  "tab",
  "slider",
  "switch",
  "spinbutton",
  "treeitem"
])

/** Roles that never get a role ref: not elements, or not something getByRole finds. */
const NO_ROLE_REF: ReadonlySet<string> = new Set(["text", "iframe", "document", "none", "presentation", "generic"])

// ---------------------------------------------------------------------------------------------------------
// One line

export interface Box {
  readonly x: number
  readonly y: number
  readonly width: number
  readonly height: number
}

/** The parts of a node line, as offsets into it. */
export interface LineHead {
  readonly indent: number
  readonly quoted: boolean
  readonly role: string
  /** Where the key starts (after `- ` and the opening quote). */
  readonly keyStart: number
  /** The name's JSON text (quotes included) or -1. */
  readonly nameStart: number
  readonly nameEnd: number
  /** Where the attributes end: what follows is the closing quote (if quoted), then `:` and the value. */
  readonly attrsEnd: number
  readonly ref: { readonly start: number; readonly end: number; readonly value: string } | undefined
  readonly box: { readonly start: number; readonly end: number; readonly value: string } | undefined
}

const isRoleChar = (c: number) => c >= 97 && c <= 122 // a-z

/** Parses `- role "name" [a] [b=c]…` from `indent`; undefined for text, props (`- /url: …`) and other lines. */
export const parseLineHead = (line: string, indent: number): LineHead | undefined => {
  let i = indent
  if (line.charCodeAt(i) !== 45 || line.charCodeAt(i + 1) !== 32) return undefined // "- "
  i += 2
  const quoted = line.charCodeAt(i) === 39 // '
  if (quoted) i++
  const keyStart = i
  while (i < line.length && isRoleChar(line.charCodeAt(i))) i++
  if (i === keyStart) return undefined
  const role = line.slice(keyStart, i)
  let nameStart = -1
  let nameEnd = -1
  if (line.charCodeAt(i) === 32 && line.charCodeAt(i + 1) === 34) {
    let j = i + 2
    while (j < line.length) {
      const c = line.charCodeAt(j)
      if (c === 92) j += 2 // backslash escape
      else if (c === 34) break
      else j++
    }
    nameStart = i + 1
    nameEnd = Math.min(j + 1, line.length)
    i = nameEnd
  }
  let ref: LineHead["ref"]
  let box: LineHead["box"]
  while (line.charCodeAt(i) === 32 && line.charCodeAt(i + 1) === 91) { // " ["
    const close = line.indexOf("]", i + 2)
    if (close < 0) break
    if (line.startsWith("ref=", i + 2)) ref = { start: i, end: close + 1, value: line.slice(i + 6, close) }
    else if (line.startsWith("box=", i + 2)) box = { start: i, end: close + 1, value: line.slice(i + 6, close) }
    i = close + 1
  }
  return { indent, quoted, role, keyStart, nameStart, nameEnd, attrsEnd: i, ref, box }
}

/** The name of a parsed line ("" when it has none). */
export const nameOf = (line: string, head: LineHead): string => {
  if (head.nameStart < 0) return ""
  let json = line.slice(head.nameStart, head.nameEnd)
  if (head.quoted) json = json.replace(/''/g, "'")
  try {
    const v: unknown = JSON.parse(json)
    return typeof v === "string" ? v : json
  } catch {
    return json.slice(1, -1)
  }
}

const parseBox = (value: string): Box | undefined => {
  const parts = value.split(",").map(Number)
  if (parts.length !== 4 || parts.some((n) => !Number.isFinite(n))) return undefined
  return { x: parts[0]!, y: parts[1]!, width: parts[2]!, height: parts[3]! }
}

const indentOf = (line: string) => {
  let i = 0
  while (line.charCodeAt(i) === 32) i++
  return i
}

// ---------------------------------------------------------------------------------------------------------
// The character cap

/** Lines under a character cap; a cut says so on its last line. */
class Output {
  readonly lines: Array<string> = []
  readonly lineRefs: Array<string | undefined> = []
  chars = 0
  full = false
  constructor(readonly limit: number) {}

  /** false once the cap is reached (the line is not taken). */
  push(line: string, ref: string | undefined): boolean {
    if (this.full) return false
    const add = line.length + (this.lines.length > 0 ? 1 : 0)
    if (this.chars + add > this.limit) {
      this.full = true
      return false
    }
    this.lines.push(line)
    this.lineRefs.push(ref)
    this.chars += add
    return true
  }

  /** Closes the text; the refs of lines dropped to make room for the notice are returned. */
  finish(hiddenLines: number): { text: string; dropped: Array<string> } {
    if (!this.full) return { text: this.lines.join("\n"), dropped: [] }
    const notice = (hidden: number) =>
      `[… snapshot truncated at the ${this.limit}-character limit: ${hidden} more line(s) not shown. ` +
      "Pass a higher --limit, or narrow it with --efficient, --interactive or --selector <css>]"
    const dropped: Array<string> = []
    let hidden = hiddenLines
    while (this.lines.length > 0 && this.chars + 1 + notice(hidden).length > this.limit) {
      const line = this.lines.pop()!
      const ref = this.lineRefs.pop()
      if (ref !== undefined) dropped.push(ref)
      this.chars -= line.length + (this.lines.length > 0 ? 1 : 0)
      hidden++
    }
    this.lines.push(notice(hidden))
    return { text: this.lines.join("\n"), dropped }
  }
}

const countLines = (s: string, from: number) => {
  if (from >= s.length) return 0
  let n = 1
  for (let i = s.indexOf("\n", from); i >= 0; i = s.indexOf("\n", i + 1)) if (i < s.length - 1) n++
  return n
}

// ---------------------------------------------------------------------------------------------------------
// AI snapshots

export interface LabelBox extends Box {
  readonly ref: string
}

export interface RenderedAi {
  readonly text: string
  readonly refs: Record<string, RefInfo>
  readonly entries: Array<readonly [string, AiRefEntry]>
  readonly maxMain: number
  readonly truncated: boolean
  readonly stats: SnapshotStats
  readonly boxes: Array<LabelBox>
}

const AI_REF = /^(f\d+)?e(\d+)$/

/**
 * Renumbers playwright's AI snapshot for the agent: main-frame refs become `base + n` (the base is asked
 * for once the main frame's prefix is known), refs inside iframes stay as playwright prints them. Box
 * attributes (present when labels were asked for) are taken out of the text and collected.
 */
export const renderAiSnapshot = (
  raw: string,
  options: { readonly limit: number; readonly baseFor: (mainPrefix: string) => number }
): RenderedAi => {
  const out = new Output(options.limit)
  const refs: Record<string, RefInfo> = {}
  const entries: Array<readonly [string, AiRefEntry]> = []
  const boxes: Array<LabelBox> = []
  let mainPrefix: string | undefined
  let base = 0
  let maxMain = 0
  let interactive = 0
  // Open iframes: their indent and the offset of their content (boxes inside are relative to the frame).
  const frames: Array<{ indent: number; dx: number; dy: number }> = []
  let pos = 0
  while (pos < raw.length) {
    let end = raw.indexOf("\n", pos)
    if (end < 0) end = raw.length
    const line = raw.slice(pos, end)
    const lineStart = pos
    pos = end + 1
    const indent = indentOf(line)
    while (frames.length > 0 && indent <= frames[frames.length - 1]!.indent) frames.pop()
    if (line.indexOf("[ref=", indent) < 0 && line.indexOf("[box=", indent) < 0) {
      if (line.startsWith("- iframe", indent)) frames.push({ indent, dx: 0, dy: 0 })
      if (!out.push(line, undefined)) {
        pos = lineStart
        break
      }
      continue
    }
    const head = parseLineHead(line, indent)
    if (head === undefined) {
      if (!out.push(line, undefined)) {
        pos = lineStart
        break
      }
      continue
    }
    const outer = frames.length > 0 ? frames[frames.length - 1]! : undefined
    let box = head.box !== undefined ? parseBox(head.box.value) : undefined
    if (box !== undefined && outer !== undefined) box = { ...box, x: box.x + outer.dx, y: box.y + outer.dy }
    let shown: string | undefined
    if (head.ref !== undefined) {
      const m = AI_REF.exec(head.ref.value)
      if (m !== null) {
        const prefix = m[1] ?? ""
        if (outer === undefined && mainPrefix === undefined) {
          mainPrefix = prefix
          base = options.baseFor(prefix)
        }
        if (outer === undefined && prefix === mainPrefix) {
          const n = base + Number(m[2])
          if (n > maxMain) maxMain = n
          shown = String(n)
        } else {
          shown = head.ref.value
        }
      } else {
        shown = head.ref.value
      }
    }
    // Rebuild the line: ref renamed, box taken out (they are in attribute order, ref before box).
    let rebuilt = line
    if (head.ref !== undefined || head.box !== undefined) {
      const cuts = [head.ref, head.box].filter((c) => c !== undefined).sort((a, b) => a.start - b.start)
      let acc = ""
      let at = 0
      for (const c of cuts) {
        acc += line.slice(at, c.start)
        if (c === head.ref) acc += ` [ref=${shown}]`
        at = c.end
      }
      rebuilt = acc + line.slice(at)
    }
    if (head.role === "iframe") frames.push({ indent, dx: box?.x ?? 0, dy: box?.y ?? 0 })
    if (!out.push(rebuilt, shown)) {
      pos = lineStart
      break
    }
    if (shown !== undefined && head.ref !== undefined) {
      const name = nameOf(line, head)
      refs[shown] = { role: head.role, name }
      entries.push([shown, { aria: head.ref.value, role: head.role, name }])
      if (INTERACTIVE_ROLES.has(head.role)) interactive++
      if (box !== undefined) boxes.push({ ref: shown, ...box })
    }
  }
  const { text, dropped } = out.finish(out.full ? countLines(raw, pos) : 0)
  if (dropped.length > 0) {
    const gone = new Set(dropped)
    for (const r of gone) {
      if (INTERACTIVE_ROLES.has(refs[r]!.role)) interactive--
      delete refs[r]
    }
    entries.splice(0, entries.length, ...entries.filter(([k]) => !gone.has(k)))
    boxes.splice(0, boxes.length, ...boxes.filter((b) => !gone.has(b.ref)))
  }
  return {
    text,
    refs,
    entries,
    maxMain,
    truncated: out.full,
    stats: { lines: out.lines.length, chars: text.length, refs: entries.length, interactive },
    boxes
  }
}

// ---------------------------------------------------------------------------------------------------------
// Role snapshots

export interface RoleNode {
  /** Level in the tree (top level = 0). */
  readonly level: number
  readonly parent: number
  /** "" for text, props and anything else that is not an element line. */
  readonly role: string
  readonly name: string | undefined
  /** The line with its box attribute taken out. */
  readonly line: string
  readonly head: LineHead | undefined
  readonly box: Box | undefined
}

/** The nodes of a default-mode ARIA snapshot, in document order, with their parents. */
export const parseRoleSnapshot = (raw: string): Array<RoleNode> => {
  const nodes: Array<RoleNode> = []
  const stack: Array<{ indent: number; index: number }> = []
  let pos = 0
  while (pos < raw.length) {
    let end = raw.indexOf("\n", pos)
    if (end < 0) end = raw.length
    let line = raw.slice(pos, end)
    pos = end + 1
    if (line.trim() === "") continue
    const indent = indentOf(line)
    while (stack.length > 0 && indent <= stack[stack.length - 1]!.indent) stack.pop()
    const parent = stack.length > 0 ? stack[stack.length - 1]!.index : -1
    let head = parseLineHead(line, indent)
    let box: Box | undefined
    if (head?.box !== undefined) {
      box = parseBox(head.box.value)
      line = line.slice(0, head.box.start) + line.slice(head.box.end)
      head = parseLineHead(line, indent)
    }
    const isElement = head !== undefined && head.role !== "text"
    nodes.push({
      level: stack.length,
      parent,
      role: isElement ? head!.role : "",
      name: isElement && head!.nameStart >= 0 ? nameOf(line, head!) : undefined,
      line,
      head,
      box
    })
    stack.push({ indent, index: nodes.length - 1 })
  }
  return nodes
}

export interface RoleRenderOptions {
  readonly limit: number
  readonly interactive: boolean
  readonly compact: boolean
  /** Levels shown (top level = 1); undefined for all. */
  readonly depth: number | undefined
  readonly frameSelector?: string | undefined
  readonly scopeSelector?: string | undefined
  /** The tab's number for a role target (see roleKey). */
  readonly numberFor: (key: string) => number
}

export interface RenderedRole {
  readonly text: string
  readonly refs: Record<string, RefInfo>
  readonly entries: Array<readonly [string, RoleRefEntry]>
  readonly truncated: boolean
  readonly stats: SnapshotStats
  readonly boxes: Array<LabelBox>
}

/** Whether a node gets a role ref. */
const refEligible = (node: RoleNode, interactiveOnly: boolean) => {
  if (node.role === "" || NO_ROLE_REF.has(node.role)) return false
  if (INTERACTIVE_ROLES.has(node.role)) return true
  return !interactiveOnly && node.name !== undefined && node.name !== ""
}

/**
 * Role refs, nth and the filters. nth and the expected counts are computed over every node of the
 * snapshot, whatever the filters show, because resolution asks getByRole over the same scope: a named node
 * is found by role and exact name, an unnamed one by role alone (which also finds the named ones).
 */
export const renderRoleSnapshot = (nodes: ReadonlyArray<RoleNode>, options: RoleRenderOptions): RenderedRole => {
  const n = nodes.length
  // nth among nodes with the same role (+ name), and the totals.
  const byRole = new Map<string, number>()
  const byRoleName = new Map<string, number>()
  const nthRole = new Int32Array(n)
  const nthNamed = new Int32Array(n)
  for (let i = 0; i < n; i++) {
    const node = nodes[i]!
    if (node.role === "") continue
    nthRole[i] = byRole.get(node.role) ?? 0
    byRole.set(node.role, nthRole[i]! + 1)
    if (node.name !== undefined && node.name !== "") {
      const k = `${node.role}\u0000${node.name}`
      nthNamed[i] = byRoleName.get(k) ?? 0
      byRoleName.set(k, nthNamed[i]! + 1)
    }
  }
  const eligible = new Uint8Array(n)
  for (let i = 0; i < n; i++) {
    const node = nodes[i]!
    if (refEligible(node, options.interactive) && (options.depth === undefined || node.level < options.depth)) eligible[i] = 1
  }
  // Which nodes show, and at which level.
  const shown = new Uint8Array(n)
  if (options.interactive) {
    shown.set(eligible)
  } else {
    const subtreeHasRef = new Uint8Array(n)
    for (let i = n - 1; i >= 0; i--) {
      if (eligible[i] === 1) subtreeHasRef[i] = 1
      const p = nodes[i]!.parent
      if (subtreeHasRef[i] === 1 && p >= 0) subtreeHasRef[p] = 1
    }
    for (let i = 0; i < n; i++) {
      const node = nodes[i]!
      if (options.depth !== undefined && node.level >= options.depth) continue
      if (!options.compact) shown[i] = 1
      else if (eligible[i] === 1) shown[i] = 1
      else if (subtreeHasRef[i] === 1 && node.name !== undefined && node.name !== "") shown[i] = 1
    }
  }
  const shownLevel = new Int32Array(n)
  const childLevel = new Int32Array(n)
  const hasShownChild = new Uint8Array(n)
  const nearestShown = new Int32Array(n)
  for (let i = 0; i < n; i++) {
    const p = nodes[i]!.parent
    const levelHere = options.interactive ? 0 : p >= 0 ? childLevel[p]! : 0
    const anchor = p >= 0 ? nearestShown[p]! : -1
    if (shown[i] === 1) {
      shownLevel[i] = levelHere
      childLevel[i] = levelHere + 1
      nearestShown[i] = i
      if (anchor >= 0) hasShownChild[anchor] = 1
    } else {
      childLevel[i] = levelHere
      nearestShown[i] = anchor
    }
  }

  const out = new Output(options.limit)
  const refs: Record<string, RefInfo> = {}
  const entries: Array<readonly [string, RoleRefEntry]> = []
  const boxes: Array<LabelBox> = []
  let interactive = 0
  let hidden = 0
  for (let i = 0; i < n; i++) {
    if (shown[i] !== 1) continue
    if (out.full) {
      hidden++
      continue
    }
    const node = nodes[i]!
    const head = node.head
    const line = node.line
    const indent = "  ".repeat(shownLevel[i]!)
    let ref: string | undefined
    let entry: RoleRefEntry | undefined
    let text: string
    if (head === undefined) {
      text = indent + line.slice(indentOf(line))
    } else {
      let extra = ""
      if (eligible[i] === 1) {
        const named = node.name !== undefined && node.name !== ""
        const nth = named ? nthNamed[i]! : nthRole[i]!
        const count = named ? byRoleName.get(`${node.role}\u0000${node.name}`)! : byRole.get(node.role)!
        const target = {
          role: node.role,
          name: named ? node.name : undefined,
          nth,
          frameSelector: options.frameSelector,
          scopeSelector: options.scopeSelector
        }
        ref = `e${options.numberFor(roleKey(target))}`
        entry = { ...target, count }
        extra = ` [ref=${ref}]${count > 1 ? ` [nth=${nth}]` : ""}`
      }
      // The tail after the attributes: closing quote (if quoted), then ":" (children follow) or ": value".
      let tail = line.slice(head.attrsEnd)
      let close = ""
      if (head.quoted && tail.startsWith("'")) {
        close = "'"
        tail = tail.slice(1)
      }
      if (tail === ":" && (options.interactive || hasShownChild[i] !== 1)) tail = ""
      text = `${indent}- ${head.quoted ? "'" : ""}${line.slice(head.keyStart, head.attrsEnd)}${extra}${close}${tail}`
    }
    if (!out.push(text, ref)) {
      hidden++
      continue
    }
    if (ref !== undefined && entry !== undefined) {
      const info: RefInfo = entry.count > 1
        ? { role: entry.role, name: entry.name ?? "", nth: entry.nth }
        : { role: entry.role, name: entry.name ?? "" }
      refs[ref] = info
      entries.push([ref, entry])
      if (INTERACTIVE_ROLES.has(entry.role)) interactive++
      if (node.box !== undefined) boxes.push({ ref, ...node.box })
    }
  }
  const { text, dropped } = out.finish(hidden)
  if (dropped.length > 0) {
    const gone = new Set(dropped)
    for (const r of gone) {
      if (INTERACTIVE_ROLES.has(refs[r]!.role)) interactive--
      delete refs[r]
    }
    entries.splice(0, entries.length, ...entries.filter(([k]) => !gone.has(k)))
    boxes.splice(0, boxes.length, ...boxes.filter((b) => !gone.has(b.ref)))
  }
  return {
    text,
    refs,
    entries,
    truncated: out.full,
    stats: { lines: out.lines.length, chars: text.length, refs: entries.length, interactive },
    boxes
  }
}

// ---------------------------------------------------------------------------------------------------------
// Options

export interface ResolvedSnapshotOptions {
  readonly format: "ai" | "role"
  readonly limit: number
  readonly interactive: boolean
  readonly compact: boolean
  readonly depth: number | undefined
  readonly selector: string | undefined
  readonly frame: string | undefined
  readonly labels: boolean
  readonly timeoutMs: number
}

/** Which snapshot a request means: any role option makes a role snapshot; efficient fills in its parts. */
export const resolveSnapshotOptions = (o: SnapshotOptions): ResolvedSnapshotOptions => {
  const efficient = o.efficient === true
  const role = o.format === "role" || efficient || o.interactive === true || o.compact === true ||
    o.depth !== undefined || o.selector !== undefined || o.frame !== undefined
  const limit = Math.min(MAX_LIMIT, Math.max(1, Math.floor(o.limit ?? (efficient ? EFFICIENT_LIMIT : DEFAULT_LIMIT))))
  const depth = o.depth !== undefined ? Math.max(1, Math.floor(o.depth)) : efficient ? EFFICIENT_DEPTH : undefined
  return {
    format: role ? "role" : "ai",
    limit,
    interactive: efficient || o.interactive === true,
    compact: efficient || o.compact === true,
    depth,
    selector: o.selector,
    frame: o.frame,
    labels: o.labels === true,
    timeoutMs: o.timeoutMs ?? (o.selector !== undefined || o.frame !== undefined ? LOCATE_TIMEOUT_MS : DEFAULT_TIMEOUT_MS)
  }
}

// ---------------------------------------------------------------------------------------------------------
// Labels

const LABELS_ATTR = "data-svc-labels"

// Runs in the page (kept as source: this project compiles without the DOM library). Draws each box with
// its ref on a fixed overlay in a shadow root, away from the page's styles; answers how many it drew.
const DRAW_LABELS = `(({ attr, boxes }) => {
  document.querySelectorAll("[" + attr + "]").forEach((e) => e.remove())
  const host = document.createElement("div")
  host.setAttribute(attr, "")
  host.style.cssText = "position:fixed;inset:0;pointer-events:none;z-index:2147483647;"
  const root = host.attachShadow({ mode: "open" })
  const vw = window.innerWidth, vh = window.innerHeight
  let drawn = 0
  for (const b of boxes) {
    if (b.width <= 0 || b.height <= 0 || b.x + b.width < 0 || b.y + b.height < 0 || b.x > vw || b.y > vh) continue
    const frame = document.createElement("div")
    frame.style.cssText = "position:fixed;left:" + b.x + "px;top:" + b.y + "px;width:" + b.width + "px;height:" +
      b.height + "px;outline:2px solid rgba(255,59,48,.9);box-sizing:border-box;"
    const tag = document.createElement("div")
    tag.textContent = b.ref
    tag.style.cssText = "position:fixed;left:" + Math.max(0, b.x) + "px;top:" + Math.max(0, b.y - 14) + "px;" +
      "font:bold 11px/13px monospace;color:#fff;background:rgba(255,59,48,.95);padding:0 3px;border-radius:3px;"
    root.append(frame, tag)
    drawn++
  }
  document.documentElement.appendChild(host)
  return drawn
})`

const REMOVE_LABELS = `((attr) => document.querySelectorAll("[" + attr + "]").forEach((e) => e.remove()))`

/** Where an iframe's content starts in the viewport (its box plus border and padding); runs in the page. */
const frameOrigin = new Function(
  "el",
  "const r = el.getBoundingClientRect(); const cs = getComputedStyle(el); " +
    "return { x: r.x + el.clientLeft + (parseFloat(cs.paddingLeft) || 0), " +
    "y: r.y + el.clientTop + (parseFloat(cs.paddingTop) || 0) }"
) as (el: unknown) => { x: number; y: number }

const drawLabels = (page: Page, boxes: ReadonlyArray<LabelBox>) =>
  page.evaluate(`${DRAW_LABELS}(${JSON.stringify({ attr: LABELS_ATTR, boxes })})`) as Promise<number>

const removeLabels = (page: Page) => page.evaluate(`${REMOVE_LABELS}(${JSON.stringify(LABELS_ATTR)})`)

// ---------------------------------------------------------------------------------------------------------
// The service

const errorText = (e: unknown) => (e instanceof Error ? e.message.split("\n")[0]! : String(e))

type SnapshotError = InvalidRequest | NotFound | BrowserUnavailable

/** Playwright's failures, as a person or a model can act on them. */
const snapshotError = (page: Page, o: ResolvedSnapshotOptions) => (e: unknown): SnapshotError => {
  const text = errorText(e)
  const where = o.frame !== undefined
    ? `--frame ${JSON.stringify(o.frame)}${o.selector !== undefined ? ` --selector ${JSON.stringify(o.selector)}` : ""}`
    : o.selector !== undefined
    ? `--selector ${JSON.stringify(o.selector)}`
    : undefined
  if (page.isClosed() || /closed|Target crashed/i.test(text)) {
    return new BrowserUnavailable({ message: `the tab closed (or crashed) while the snapshot was taken: ${text}` })
  }
  if (where !== undefined) {
    if (/strict mode violation/i.test(text)) {
      return new InvalidRequest({ message: `${where} matches more than one element (${text}); make it match exactly one` })
    }
    if (/not a valid selector|Unexpected token|Unknown engine|Invalid selector|SyntaxError/i.test(text)) {
      return new InvalidRequest({ message: `${where} is not a valid selector: ${text}` })
    }
    if (/Timeout/i.test(text)) {
      return new NotFound({
        message: `nothing on the page matches ${where} (waited ${o.timeoutMs} ms); check the selector, or ` +
          "take a snapshot of the whole page first"
      })
    }
  }
  if (/Timeout/i.test(text)) {
    return new BrowserUnavailable({
      message: `the page did not produce a snapshot within ${o.timeoutMs} ms: it may be busy or blocked by a ` +
        "dialog. Try again, or check the tab with `svc browser tabs`."
    })
  }
  return new BrowserUnavailable({ message: `the snapshot failed: ${text}` })
}

export class Snapshots extends Effect.Service<Snapshots>()("svc/Snapshots", {
  effect: Effect.gen(function*() {
    const sessions = yield* PlaywrightSessions
    const refs = yield* Refs

    const labelsScreenshot = (page: Page, boxes: ReadonlyArray<LabelBox>) =>
      Effect.acquireUseRelease(
        Effect.tryPromise({ try: () => drawLabels(page, boxes), catch: (e) => e }),
        () =>
          Effect.tryPromise({
            try: async () => {
              // Headless Chromium may not paint a background tab: bring it to front, as plain screenshots do.
              await page.bringToFront()
              return new Uint8Array(await page.screenshot({ type: "png", timeout: 15_000 }))
            },
            catch: (e) => e
          }),
        () => Effect.promise(() => removeLabels(page).catch(() => undefined))
      )

    const snapshot = (tab: TabRef, page: Page, request: SnapshotOptions) =>
      Effect.gen(function*() {
        const o = resolveSnapshotOptions(request)
        const failed = snapshotError(page, o)
        const navigations = yield* sessions.navigations(page)
        // Asked alongside the snapshot: the browser process answers it while the page is busy.
        const title = yield* Effect.fork(sessions.title(page))
        let rendered: RenderedAi | RenderedRole
        if (o.format === "ai") {
          const raw = yield* Effect.tryPromise({
            try: () => page.ariaSnapshot({ mode: "ai", timeout: o.timeoutMs, ...(o.labels ? { boxes: true } : {}) }),
            catch: failed
          })
          rendered = yield* refs.recordAi(tab, navigations, (baseFor) => renderAiSnapshot(raw, { limit: o.limit, baseFor }))
        } else {
          const within = o.frame !== undefined ? page.frameLocator(o.frame) : undefined
          const target = within !== undefined
            ? within.locator(o.selector ?? "body")
            : o.selector !== undefined
            ? page.locator(o.selector)
            : undefined
          const options = { timeout: o.timeoutMs, ...(o.labels ? { boxes: true } : {}) }
          const raw = yield* Effect.tryPromise({
            try: () => (target !== undefined ? target.ariaSnapshot(options) : page.ariaSnapshot(options)),
            catch: failed
          })
          const nodes = parseRoleSnapshot(raw)
          rendered = yield* refs.recordRole(tab, navigations, o.frame, (numberFor) =>
            renderRoleSnapshot(nodes, {
              limit: o.limit,
              interactive: o.interactive,
              compact: o.compact,
              depth: o.depth,
              frameSelector: o.frame,
              scopeSelector: o.selector,
              numberFor
            }))
          if (o.labels && o.frame !== undefined && rendered.boxes.length > 0) {
            // Boxes inside an iframe are relative to it: move them by where the iframe's content starts.
            const origin = yield* Effect.tryPromise({
              try: () =>
                page.locator(o.frame!).first().evaluate(frameOrigin, undefined, { timeout: 2_000 }),
              catch: failed
            })
            rendered = { ...rendered, boxes: rendered.boxes.map((b) => ({ ...b, x: b.x + origin.x, y: b.y + origin.y })) }
          }
        }
        const labelsPng = o.labels
          ? yield* labelsScreenshot(page, rendered.boxes).pipe(Effect.mapError(failed))
          : undefined
        const output: SnapshotOutput = {
          format: o.format,
          snapshot: rendered.text,
          refs: rendered.refs,
          stats: rendered.stats,
          truncated: rendered.truncated,
          url: page.url(),
          title: yield* Fiber.join(title),
          ...(labelsPng !== undefined ? { labelsPng } : {})
        }
        return output
      }).pipe(Effect.withSpan("Snapshots.snapshot", { attributes: { format: request.format ?? "ai" } }))

    return { snapshot } as const
  }),
  dependencies: [Refs.Default, PlaywrightSessions.Default]
}) {}
