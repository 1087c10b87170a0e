import type { Page } from "playwright-core"
import { INTERACTIVE_ROLES } from "./RenderedSnapshot.js"

// An AI snapshot reads only as much of a large page as its character cap can show.
//
// The library's AI snapshot walks the whole document before anything is cut: on a 12,000-element page
// (Node's fs docs) about 500 ms, and twice that for the first read of a new document, of which the agent
// then sees the first 80,000 characters (an eighth of it). So before the library's walk, svc looks over the
// document in one cheap pass (its elements and text, nothing styled or laid out) to find where the cap will
// fall: the node where the text read so far would fill it, with some room. If the page is larger, that node
// becomes the walk's end: in the library's utility world (where the walk runs, apart from the page's own
// scripts), once the walk has read that node, the node and each of its ancestors report no next sibling, so
// the walk unwinds and ends there, and everything before it is read exactly as before. The switch then puts
// the DOM back as it was, in the same call, before anything else can run in that world.
//
// The end is never inside an element whose accessible name comes from its content (a link, a button, a
// heading, a table row, a label, ...): the end moves out to the outermost such ancestor, so no name is
// computed from a part of its content. Shadow hosts and slotted nodes move it out the same way. What the
// library reads before the end is unchanged; a generic wrapper left with a single child may be shown folded.
//
// The pass also counts what lies after the end (elements, and controls among them), for the cut's notice.

/** Where the switch lives on the utility world's global (not enumerable; the page's scripts cannot see it). */
export const BOUND_KEY = "__svcWalkBound"

/** Estimated characters of snapshot text per element, and per level of nesting (indentation). */
const PER_ELEMENT = 10
const PER_DEPTH = 1
/**
 * Room over the cap. The first read of a document: the estimate is within about a third either way on real
 * pages. Later reads know how the estimate fared on this document (the ratio is kept in its world).
 */
const FIRST_ROOM = 1.0
const KNOWN_ROOM = 1.1
/**
 * A read that fell well short of the cap (under this share of it) is done again once, with RETRY_ROOM. One a
 * little short stands: the cap is an upper bound, and the notice says the page goes on.
 */
const SHORT = 0.6
const RETRY_ROOM = 1.25
/**
 * A flat list of controls: characters per control beside its text (up to CONTROL_TEXT of it), and the room
 * over the cap for the document's first such read.
 */
const PER_CONTROL = 24
const CONTROL_TEXT = 60
const CONTROLS_ROOM = 1.5

export interface BoundArgs {
  readonly key: string
  /** The cap, in characters of snapshot text. */
  readonly limit: number
  /** Room over the cap while the document's ratio of text to estimate is not known, and once it is. */
  readonly firstRoom: number
  readonly knownRoom: number
  readonly perElement: number
  readonly perDepth: number
  /**
   * Estimate the controls only (a role snapshot of interactive elements: a flat list of them), at
   * `perControl` characters each plus their text up to `controlText`, the hidden ones left out.
   */
  readonly controls: boolean
  readonly perControl: number
  readonly controlText: number
  /** End where the document's last bounded read ended (a second read of the same part), if it still can. */
  readonly sameEnd: boolean
  /** Which arming this is: only its own release takes it down (a read ahead and a snapshot may overlap). */
  readonly id: number
}

export type BoundAnswer =
  | { readonly bounded: false; readonly estimate: number }
  | {
    readonly bounded: true
    readonly estimate: number
    /** Elements after the end, and controls among them (links, buttons, fields, ...). */
    readonly unreadElements: number
    readonly unreadInteractive: number
  }

/**
 * In the utility world (self-contained: its source is sent): find the end for `budget` and arm the switch.
 * A switch left from before is taken down first.
 */
export const armWalkBound = (arg: BoundArgs): BoundAnswer => {
  interface NodeLike {
    readonly nodeType: number
    readonly nodeName: string
    readonly parentNode: NodeLike | null
    readonly parentElement: NodeLike | null
    readonly firstChild: NodeLike | null
    readonly nextSibling: NodeLike | null
    readonly data?: string
    readonly textContent?: string | null
    readonly isConnected?: boolean
    checkVisibility?(options: object): boolean
    readonly hidden?: boolean
    readonly shadowRoot?: unknown
    readonly assignedSlot?: unknown
    contains(other: NodeLike): boolean
    getAttribute?(name: string): string | null
    hasAttribute?(name: string): boolean
  }
  const g = globalThis as unknown as Record<string, unknown> & {
    document: { body: NodeLike | null; documentElement: NodeLike | null }
    Node: { prototype: object }
    WeakRef: new(target: object) => WeakRef<object>
  }
  const old = g[arg.key] as { release(): boolean } | undefined
  if (old !== undefined) {
    old.release()
    delete g[arg.key]
  }
  const ratioKey = `${arg.key}:ratio:${arg.controls ? "controls" : "text"}`
  const endKey = `${arg.key}:end`
  const known = g[ratioKey] as number | undefined
  const budget = known === undefined ? arg.limit * arg.firstRoom : (arg.limit * arg.knownRoom) / known
  const root = g.document.body ?? g.document.documentElement
  if (root === null) return { bounded: false, estimate: 0 }
  const keep = (name: string, value: unknown) =>
    Object.defineProperty(g, name, { value, configurable: true, enumerable: false, writable: true })
  const SKIP = /^(SCRIPT|STYLE|NOSCRIPT|TEMPLATE|HEAD)$/
  const CONTROL = /^(BUTTON|SELECT|TEXTAREA|SUMMARY)$/
  const CONTROL_ROLE = /^(button|link|checkbox|radio|switch|textbox|combobox|searchbox|slider|spinbutton|tab|menuitem|menuitemcheckbox|menuitemradio|option|treeitem)$/
  const interactive = (el: NodeLike) => {
    const name = el.nodeName
    if (CONTROL.test(name)) return true
    if (name === "A") return el.hasAttribute!("href")
    if (name === "INPUT") return el.getAttribute!("type") !== "hidden"
    const role = el.getAttribute!("role")
    return role !== null && CONTROL_ROLE.test(role)
  }
  let estimate = 0
  let end: NodeLike | null = null
  let unreadElements = 0
  let unreadInteractive = 0
  let depth = 0
  let n: NodeLike | null = root
  if (arg.sameEnd) {
    const before = (g[endKey] as WeakRef<NodeLike> | undefined)?.deref()
    if (before === undefined || before.isConnected !== true || !root.contains(before)) return { bounded: false, estimate: 0 }
    end = before
    n = null
  }
  while (n !== null) {
    let down = false
    if (n.nodeType === 3) {
      if (end === null && !arg.controls && /\S/.test(n.data!)) estimate += n.data!.length
    } else if (n.nodeType === 1 && !SKIP.test(n.nodeName) && n.hidden !== true) {
      down = true
      if (end === null) {
        if (!arg.controls) estimate += arg.perElement + arg.perDepth * depth
        else if (interactive(n) && n.checkVisibility?.({ visibilityProperty: true }) !== false) {
          estimate += arg.perControl + Math.min(arg.controlText, n.textContent?.length ?? 0)
        }
      } else {
        unreadElements++
        if (interactive(n)) unreadInteractive++
      }
    }
    if (end === null && estimate > budget) end = n
    if (down && n.firstChild !== null) {
      n = n.firstChild
      depth++
      continue
    }
    while (n !== root && n.nextSibling === null) {
      n = n.parentNode!
      depth--
    }
    if (n === root) break
    n = n.nextSibling
  }
  if (end === null) return { bounded: false, estimate }
  // Out of any ancestor whose name is computed from its content, any shadow host and any slot assignment.
  const NAMED_TAG = /^(A|AREA|BUTTON|H[1-6]|TD|TH|TR|OPTION|SUMMARY|LABEL|LEGEND|CAPTION|FIGCAPTION)$/
  const NAMED_ROLE =
    /(^|\s)(button|cell|checkbox|columnheader|gridcell|heading|link|menuitem|menuitemcheckbox|menuitemradio|option|radio|row|rowheader|switch|tab|tooltip|treeitem)(\s|$)/
  for (let a = end.parentNode; a !== null && a !== root; a = a.parentNode) {
    if (a.nodeType !== 1) return { bounded: false, estimate }
    const role = a.getAttribute!("role")
    if (NAMED_TAG.test(a.nodeName) || (role !== null && NAMED_ROLE.test(role)) || a.shadowRoot) end = a
  }
  for (let a: NodeLike | null = end; a !== null && a !== root; a = a.parentNode) {
    if (a.assignedSlot) return { bounded: false, estimate }
  }
  const last = end
  const proto = g.Node.prototype
  const original = Object.getOwnPropertyDescriptor(proto, "nextSibling")!
  let passed = false
  let armed = true
  const release = (): boolean => {
    if (armed) {
      armed = false
      Object.defineProperty(proto, "nextSibling", original)
    }
    return passed
  }
  /** The text the read gave: how many characters per unit of estimate, for this document's later reads. */
  const learn = (chars: number) => {
    if (passed && chars > 0 && !arg.sameEnd) keep(ratioKey, chars / budget)
    if (passed) keep(endKey, new g.WeakRef(last))
  }
  const state = { id: arg.id, release, learn }
  // The end and its ancestors under the root: the walk has gone past the end once it steps from any of them
  // to the next sibling (an ancestor the walk skips, hidden, is stepped over without reading the end).
  const chain = new Set<NodeLike>()
  for (let a: NodeLike | null = last; a !== null && a !== root; a = a.parentNode) chain.add(a)
  Object.defineProperty(proto, "nextSibling", {
    configurable: true,
    enumerable: original.enumerable ?? false,
    get(this: NodeLike) {
      if (!chain.has(this)) return original.get!.call(this)
      passed = true
      // No next sibling: the walk unwinds. The ancestor just under the root is its final step out, after
      // which the DOM is whole again.
      if (this.parentNode === root) release()
      return null
    }
  })
  Object.defineProperty(g, arg.key, { value: state, configurable: true, enumerable: false, writable: true })
  return { bounded: true, estimate, unreadElements, unreadInteractive }
}

/**
 * In the utility world: take the switch down if it is still up; whether the walk reached the end (then the
 * read's length in characters is kept for the document's later reads).
 */
export const releaseWalkBound = (key: string, id: number, chars: number): boolean => {
  const g = globalThis as unknown as Record<string, { id: number; release(): boolean; learn(chars: number): void } | undefined>
  const state = g[key]
  // Gone, or another arming's (this one was taken down by it: whether its walk got there is not known).
  if (state === undefined || state.id !== id) return false
  delete g[key]
  const passed = state.release()
  state.learn(chars)
  return passed
}

const ARM_SOURCE = armWalkBound.toString()
const RELEASE_SOURCE = releaseWalkBound.toString()
let armings = 0
const armExpression = (o: Pick<BoundArgs, "limit" | "firstRoom" | "knownRoom" | "controls" | "sameEnd" | "id">) => {
  const arg: BoundArgs = {
    key: BOUND_KEY,
    perElement: PER_ELEMENT,
    perDepth: PER_DEPTH,
    perControl: PER_CONTROL,
    controlText: CONTROL_TEXT,
    ...o
  }
  return `(${ARM_SOURCE})(${JSON.stringify(arg)})`
}
const releaseExpression = (id: number, chars: number) => `(${RELEASE_SOURCE})(${JSON.stringify(BOUND_KEY)}, ${id}, ${chars})`

/** What lies past the end of a bounded read: for the cut's notice. */
export interface Unread {
  readonly elements: number
  readonly interactive: number
}

export interface BoundedRead {
  readonly raw: string
  /** Set when the walk stopped at an end (the page goes on past what was read). */
  readonly unread: Unread | undefined
}

/** The characters a flat list of the read's controls takes: their lines, unindented. */
const controlChars = (raw: string): number => {
  let chars = 0
  const line = /^ *- '?([a-z]+)[^\n]*/gm
  for (let m = line.exec(raw); m !== null; m = line.exec(raw)) {
    if (INTERACTIVE_ROLES.has(m[1]!)) chars += m[0].trimStart().length + 1
  }
  return chars
}

type UtilityEval = (page: Page, expression: string) => Promise<unknown> | undefined

/** One read with the switch armed as `args` say (see readBounded); the answer is undefined when not bounded. */
const readOnce = async (
  page: Page,
  evaluateUtility: UtilityEval,
  args: Omit<Parameters<typeof armExpression>[0], "id">,
  read: () => Promise<string>,
  learn: (raw: string) => number
): Promise<{ readonly raw: string; readonly answer: BoundAnswer | undefined }> => {
  const id = ++armings
  const armed = evaluateUtility(page, armExpression({ ...args, id }))?.then((a) => a as BoundAnswer, () => undefined)
  const release = (chars: number) =>
    evaluateUtility(page, releaseExpression(id, chars))?.then((r) => r === true, () => false) ?? Promise.resolve(false)
  let raw: string
  try {
    raw = await read()
  } catch (e) {
    void armed?.then((a) => a?.bounded === true ? release(0) : undefined)
    throw e
  }
  const answer = armed === undefined ? undefined : await armed
  if (answer === undefined || !answer.bounded) return { raw, answer: undefined }
  // Whether the walk reached the end: a switch that arrived after the read leaves the read whole.
  return { raw, answer: (await release(learn(raw))) ? answer : undefined }
}

/**
 * Takes `read` (the library's snapshot of the main frame's document) with the walk ended where the cap of
 * `limit` characters falls: of snapshot text (`text`), or of a flat list of controls (`controls`). The switch
 * is armed in the same breath as the read is sent (not waited for: if it arrives late the read is simply
 * whole). A text read that fell well short of the cap is done once more, further. Without the utility world
 * (not known yet) the read is whole.
 */
export const readBounded = async (
  page: Page,
  evaluateUtility: UtilityEval,
  limit: number,
  read: () => Promise<string>,
  kind: "text" | "controls" = "text"
): Promise<BoundedRead> => {
  const controls = kind === "controls"
  // How much of the cap the read fills: all its text, or the lines of its controls (a flat list of them).
  const measure = controls ? controlChars : (raw: string) => raw.length
  for (let attempt = 0;; attempt++) {
    const knownRoom = attempt === 0 ? KNOWN_ROOM : RETRY_ROOM
    const args = { limit, firstRoom: controls ? CONTROLS_ROOM : FIRST_ROOM, knownRoom, controls, sameEnd: false }
    let chars = 0
    const { raw, answer } = await readOnce(page, evaluateUtility, args, read, (r) => (chars = measure(r)))
    if (answer === undefined || !answer.bounded) return { raw, unread: undefined }
    if (chars >= limit * SHORT || attempt > 0) {
      return { raw, unread: { elements: answer.unreadElements, interactive: answer.unreadInteractive } }
    }
  }
}

/**
 * Takes `read` with the walk ended where the document's last bounded read ended (a second read of the same
 * part of the page: a role snapshot's refs get their identities from it), or whole when that end is gone.
 */
export const readToSameEnd = async (page: Page, evaluateUtility: UtilityEval, read: () => Promise<string>): Promise<string> =>
  (await readOnce(page, evaluateUtility, { limit: 0, firstRoom: 0, knownRoom: 0, controls: false, sameEnd: true }, read, () => 0)).raw

/**
 * Takes `read` only if it can be bounded like readBounded's first text read (or the page is within the cap
 * anyway): the switch is armed and confirmed before the read is sent. Undefined when it was not read.
 */
export const readBoundedOnly = async (
  page: Page,
  evaluateUtility: UtilityEval,
  limit: number,
  read: () => Promise<string>
): Promise<string | undefined> => {
  const id = ++armings
  const args = { limit, firstRoom: FIRST_ROOM, knownRoom: KNOWN_ROOM, controls: false, sameEnd: false, id }
  const answer = await (evaluateUtility(page, armExpression(args))?.then((a) => a as BoundAnswer, () => undefined) ??
    Promise.resolve(undefined))
  if (answer === undefined) return undefined
  let raw: string | undefined
  try {
    raw = await read()
    return raw
  } finally {
    // The read's length tells the document's later reads how the estimate fares here.
    if (answer.bounded) await evaluateUtility(page, releaseExpression(id, raw?.length ?? 0))?.catch(() => undefined)
  }
}
