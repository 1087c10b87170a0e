import { indentOf, nameOf, parseLineHead } from "../snapshot/AriaLine.js"
import { findMarker } from "../snapshot/PseudoControls.js"

// Which element a ref may act on, as rules over data (no page): the identity a role ref borrows from an AI
// snapshot of the same scope, and when look-alikes make a fallback ambiguous.
//
// A ref stands for the element its snapshot showed. Playwright's aria refs name that very DOM node (while
// it stays connected and is in the latest AI snapshot of its frame), but a node that a page reuses for
// another row keeps its aria ref with a new label, so identity is always checked together with the role
// and the accessible name. A node that was replaced has no identity left: then the only element that may
// stand in for it is one that has its role and name and is the only one of its kind, both in the snapshot
// and now. Where there are look-alikes (four "Remove" buttons), the position among them (nth) never
// decides on its own: the rows may have been reordered.

/** Roles playwright's getByRole cannot check (implicit generic, the snapshot's iframe pseudo-role). */
const UNCHECKABLE_ROLES: ReadonlySet<string> = new Set(["generic", "iframe", "text", "document", "none", "presentation"])

/** Whether an element's role can be checked with getByRole at action time. */
export const roleCheckable = (role: string) => !UNCHECKABLE_ROLES.has(role)

const groupKey = (role: string, name: string | undefined) =>
  name !== undefined && name !== "" ? `${role}\u0000${name}` : role

/**
 * The role\u0000name keys that appear exactly once among the refs of an AI snapshot: the only ones a
 * replaced element may be found again by (role and name alone, when the page has just one such element).
 */
export const uniqueAiGroups = (entries: Iterable<readonly [string, { readonly role: string; readonly name: string }]>) => {
  const seen = new Map<string, number>()
  for (const [, e] of entries) {
    const k = `${e.role}\u0000${e.name}`
    seen.set(k, (seen.get(k) ?? 0) + 1)
  }
  const unique = new Set<string>()
  for (const [k, n] of seen) if (n === 1) unique.add(k)
  return unique
}

/** A role-ref target: named targets are counted by role and exact name, unnamed ones by role alone. */
export interface RoleTarget {
  readonly role: string
  readonly name: string | undefined
  readonly nth: number
  readonly count: number
}

/**
 * The aria ref of each role-ref target, from an AI snapshot (`mode: "ai"`) of the same scope taken while
 * the page did not change. The AI snapshot shows every node the role snapshot shows (and more: generic
 * wrappers, visible but aria-hidden nodes), in the same document order, so the nth node of a target's
 * kind is the same element in both when both count the same number of that kind; where the counts differ
 * the target gets no identity rather than a guessed one.
 */
export const identitiesFromAi = <K>(
  aiText: string,
  targets: Iterable<readonly [K, RoleTarget]>
): Map<K, string> => {
  const named = new Map<string, Array<string | undefined>>()
  const byRole = new Map<string, Array<string | undefined>>()
  for (const line of aiText.split("\n")) {
    const head = parseLineHead(line, indentOf(line))
    if (head === undefined || head.role === "text") continue
    const ref = head.ref?.value
    const name = nameOf(line, head)
    // A plain editor or summary (marked by ControlLines) is grouped by its lookup kind; unnamed ones apart.
    const kind = findMarker(line)?.kind
    const role = kind ?? head.role
    if (kind === undefined || name === "") {
      let list = byRole.get(role)
      if (list === undefined) byRole.set(role, list = [])
      list.push(ref)
    }
    if (name !== "") {
      const k = groupKey(role, name)
      let l = named.get(k)
      if (l === undefined) named.set(k, l = [])
      l.push(ref)
    }
  }
  const out = new Map<K, string>()
  for (const [key, t] of targets) {
    const list = t.name !== undefined && t.name !== "" ? named.get(groupKey(t.role, t.name)) : byRole.get(t.role)
    if (list === undefined || list.length !== t.count) continue
    const ref = list[t.nth]
    if (ref !== undefined) out.set(key, ref)
  }
  return out
}

interface PageWatch {
  changed: boolean
  /** The nodes the changes were made to (each record's target), while there are few enough to keep. */
  readonly touched: Set<unknown>
  /** More than that: any element may have been touched. */
  overflow: boolean
  /** Takes in change records (the observer's, or those still queued): the one place the fields above are set. */
  readonly note: (records: Array<{ readonly target: unknown }>) => void
  readonly observer: {
    observe(target: unknown, options: object): void
    disconnect(): void
    takeRecords(): Array<{ readonly target: unknown }>
  }
}

/**
 * In the page (self-contained: playwright sends its source): notice any change that could move, relabel,
 * show or hide an element while the role snapshot and its AI twin are taken, and the nodes it was made to
 * (up to 2,000 of them; more read as every node). Kept under a random key, not enumerable. A watch nobody
 * stops ends by itself after a minute (and then reads as changed).
 */
export const startWatch = (key: string): string => {
  const g = globalThis as unknown as Record<string, PageWatch | undefined> & {
    MutationObserver: new(callback: (records: Array<{ readonly target: unknown }>) => void) => PageWatch["observer"]
    document: unknown
    setTimeout(f: () => void, ms: number): unknown
  }
  g[key]?.observer.disconnect()
  const state: PageWatch = {
    changed: false,
    touched: new Set(),
    overflow: false,
    note: (records) => {
      if (records.length === 0) return
      state.changed = true
      if (state.overflow) return
      for (const r of records) state.touched.add(r.target)
      if (state.touched.size > 2_000) {
        state.overflow = true
        state.touched.clear()
        state.observer.disconnect()
      }
    },
    observer: new g.MutationObserver((records) => state.note(records))
  }
  state.observer.observe(g.document, { subtree: true, childList: true, characterData: true, attributes: true })
  Object.defineProperty(g, key, { value: state, configurable: true, enumerable: false, writable: true })
  g.setTimeout(() => {
    if (g[key] !== state) return
    state.observer.disconnect()
    delete g[key]
  }, 60_000)
  return key
}

/** In the page: stop the watch; true when something changed (or the watch is gone: a new document). */
export const stopWatch = (key: string): boolean => {
  const g = globalThis as unknown as Record<string, PageWatch | undefined>
  const state = g[key]
  if (state === undefined) return true
  const changed = state.changed || state.observer.takeRecords().length > 0
  state.observer.disconnect()
  delete g[key]
  return changed
}

/** In the page: whether anything changed so far, the watch still running (true when it is gone). */
export const watchChanged = (key: string): boolean => {
  const g = globalThis as unknown as Record<string, PageWatch | undefined>
  const state = g[key]
  if (state === undefined) return true
  state.note(state.observer.takeRecords())
  return state.changed
}

/**
 * In the page, on the elements of one kind (role and name) a query finds, the watch still running: true when
 * they are as many as the role snapshot showed and no change the watch saw was made to any of them, inside one
 * or around one. Then they are the elements the snapshot showed, in the same order: an element that joined
 * the kind, moved among them or came in between was changed itself or had a node around it changed, and one
 * that left without that changed their number (short of one that left and one that joined by a label read
 * from elsewhere at once, which a watch of the tree cannot see).
 */
export const kindUntouched = (elements: Array<unknown>, arg: { readonly key: string; readonly count: number }): boolean => {
  const g = globalThis as unknown as Record<string, PageWatch | undefined>
  const state = g[arg.key]
  if (state === undefined || elements.length !== arg.count) return false
  state.note(state.observer.takeRecords())
  if (state.overflow) return false
  const els = elements as Array<{ contains(other: unknown): boolean }>
  for (const t of state.touched) {
    const node = t as { contains?: (other: unknown) => boolean }
    for (const el of els) if (el.contains(t) || node.contains?.(el) === true) return false
  }
  return true
}

// ---------------------------------------------------------------------------------------------------------
// The guard: between the check of a ref and the events of its action, the page may still relabel the
// node (a list that reuses its rows). A guard installed in the same page task as the check (the function
// below runs on what the check's query found) remembers what the node looked like; any trusted input event
// aimed at the node after that while it looks different is stopped before the page sees it, and the action
// is then reported as not done. The functions below run in the page's main world (where playwright
// evaluates functions on the elements its queries find) and are self-contained (playwright sends their
// source).

interface GuardedElement {
  readonly localName: string
  readonly isConnected: boolean
  readonly isContentEditable?: boolean
  readonly textContent: string | null
  readonly labels?: ArrayLike<{ readonly textContent: string | null }> | null
  readonly ownerDocument: { getElementById(id: string): { readonly textContent: string | null } | null }
  getAttribute(name: string): string | null
  setAttribute(name: string, value: string): void
  removeAttribute(name: string): void
  querySelectorAll(selector: string): ArrayLike<{ getAttribute(name: string): string | null }>
}

interface GuardState {
  /** Removes the guard (and its mark); true when it stopped an event. */
  readonly release: () => boolean
}

/** The attribute that pins a ref found again by role and name to the node that was checked. */
export const GUARD_ATTRIBUTE = "data-svc-ref"

export interface GuardArgs {
  readonly key: string
  /** Also set GUARD_ATTRIBUTE to the key (a ref found again by role and name is pinned to this node). */
  readonly mark: boolean
  /** Install only in the top document (answer -1 elsewhere): its guards are released by one page call. */
  readonly topOnly: boolean
}

/**
 * In the page: guard what a query found when it is exactly one element. `found` is that element, or the
 * array of all the query found. Answers how many it found (the guard is installed when that is 1), or -1
 * when it runs in a child frame and `topOnly` is set (nothing installed).
 */
export const guardFound = (found: unknown, arg: GuardArgs): number => {
  const all = Array.isArray(found) ? found : [found]
  if (all.length !== 1) return all.length
  const g = globalThis as unknown as Record<string, GuardState | undefined> & {
    top: unknown
    addEventListener(type: string, listener: (event: unknown) => void, capture: boolean): void
    removeEventListener(type: string, listener: (event: unknown) => void, capture: boolean): void
    setTimeout(f: () => void, ms: number): unknown
    clearTimeout(timer: unknown): void
  }
  if (arg.topOnly && g.top !== globalThis) return -1
  const el = all[0] as GuardedElement
  // What the accessible name is made of, short of computing it: labels, the name-bearing attributes of the
  // element and its descendants, and its text (not a field's: typing changes that).
  const look = () => {
    const a = (n: string) => el.getAttribute(n) ?? ""
    const byId = a("aria-labelledby").split(/\s+/).filter((id) => id !== "")
      .map((id) => el.ownerDocument.getElementById(id)?.textContent ?? "").join(" ")
    const labels = el.labels !== undefined && el.labels !== null ? Array.from(el.labels, (l) => l.textContent ?? "").join(" ") : ""
    const field = el.isContentEditable === true || ["input", "textarea", "select"].includes(el.localName)
    const inner = field ? "" : Array.from(el.querySelectorAll("[aria-label],[alt],[title],[aria-labelledby]"), (d) =>
      `${d.getAttribute("aria-label") ?? ""}|${d.getAttribute("alt") ?? ""}|${d.getAttribute("title") ?? ""}|${d.getAttribute("aria-labelledby") ?? ""}`).join("|")
    return [el.localName, a("role"), a("aria-label"), byId, labels, a("title"), a("alt"), a("placeholder"), a("aria-hidden"),
      el.localName === "input" ? a("type") + a("value") : "", inner, field ? "" : el.textContent ?? ""].join("\u0001")
  }
  const types = ["pointerdown", "mousedown", "pointerup", "mouseup", "click", "dblclick", "auxclick", "contextmenu",
    "keydown", "keypress", "beforeinput", "touchstart", "touchend", "dragstart"]
  const fp = look()
  let blocked = false
  // A press that went down on the element and never came up on it, the element gone meanwhile: the page
  // replaced it between the two halves of a click, which then reached no element (or another one).
  let down = false
  let up = false
  const listener = (event: unknown) => {
    const e = event as {
      type: string
      isTrusted: boolean
      composedPath(): Array<unknown>
      stopImmediatePropagation(): void
      preventDefault(): void
    }
    if (!e.isTrusted || !e.composedPath().includes(el)) return
    if (e.type === "mousedown") down = true
    if (e.type === "mouseup") up = true
    if (el.isConnected && look() === fp) return
    blocked = true
    e.stopImmediatePropagation()
    e.preventDefault()
  }
  const release = () => {
    for (const t of types) g.removeEventListener(t, listener, true)
    if (arg.mark) el.removeAttribute("data-svc-ref")
    g.clearTimeout(timer)
    if (g[arg.key]?.release === release) delete g[arg.key]
    return blocked || (down && !up && !el.isConnected)
  }
  // A guard whose action never reported back does not outlive it by much.
  const timer = g.setTimeout(release, 120_000)
  g[arg.key]?.release()
  for (const t of types) g.addEventListener(t, listener, true)
  if (arg.mark) el.setAttribute("data-svc-ref", arg.key)
  Object.defineProperty(g, arg.key, { value: { release }, configurable: true, enumerable: false, writable: true })
  return 1
}

/** In the page: remove the guards under `keys` (of this document); the keys of those that stopped an event. */
export const releaseGuards = (keys: ReadonlyArray<string>): Array<string> => {
  const g = globalThis as unknown as Record<string, GuardState | undefined>
  return keys.filter((k) => g[k]?.release() === true)
}

/** The same, run on an element handle of the guarded element's document (a guard inside an iframe). */
export const releaseGuardsNear = (_element: unknown, keys: ReadonlyArray<string>): Array<string> => {
  const g = globalThis as unknown as Record<string, GuardState | undefined>
  return keys.filter((k) => g[k]?.release() === true)
}
