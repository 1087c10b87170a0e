// The walk's end, in the library's utility world (self-contained functions: their source is sent): see
// walkBound.ts for what it is for. `armWalkBound` looks over the document in one cheap pass (its elements and
// text, nothing styled or laid out) for the node where the estimated snapshot text reaches the budget, moves
// it out of any element named by its content, and arms the switch: once the walk steps from that node, or
// from any of its ancestors, to the next sibling, there is none, so the walk unwinds and ends there; its
// last step out puts the DOM back as it was, in the same call. `releaseWalkBound` takes the switch down if
// the walk did not, and keeps what the read taught (its ratio of text to estimate, and where it ended).

/** Where the switch lives on the utility world's global (not enumerable; the page's scripts cannot see it). */
export const BOUND_KEY = "__svcWalkBound"

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
  /** The roles that make an element a control (RenderedSnapshot's INTERACTIVE_ROLES). */
  readonly controlRoles: ReadonlyArray<string>
  /** End where the document's last bounded read ended (a second read of the same part), if it still can. */
  readonly sameEnd: boolean
  /** Which arming this is: only its own release takes it down (a read ahead and a snapshot may overlap). */
  readonly id: number
}

export type BoundAnswer =
  | { readonly bounded: false }
  | {
    readonly bounded: true
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
    getComputedStyle?(el: NodeLike): { readonly display: string }
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
  if (root === null) return { bounded: false }
  const keep = (name: string, value: unknown) =>
    Object.defineProperty(g, name, { value, configurable: true, enumerable: false, writable: true })
  const SKIP = /^(SCRIPT|STYLE|NOSCRIPT|TEMPLATE|HEAD)$/
  const CONTROL = /^(BUTTON|SELECT|TEXTAREA|SUMMARY)$/
  const controlRoles = new Set(arg.controlRoles)
  const interactive = (el: NodeLike) => {
    const name = el.nodeName
    if (CONTROL.test(name)) return true
    if (name === "A") return el.hasAttribute!("href")
    if (name === "INPUT") return el.getAttribute!("type") !== "hidden"
    const role = el.getAttribute!("role")
    return role !== null && controlRoles.has(role)
  }
  interface ShadowLike {
    readonly textContent: string | null
    querySelectorAll(selector: string): ArrayLike<NodeLike>
  }
  const CONTROLS = "a[href],button,input:not([type=hidden]),select,textarea,summary,[role]"
  const shadowEstimate = (shadow: ShadowLike, at: number): number => {
    if (!arg.controls) {
      const text = (shadow.textContent ?? "").replace(/\s+/g, " ").length
      return text + shadow.querySelectorAll("*").length * (arg.perElement + arg.perDepth * at)
    }
    let chars = 0
    for (const el of Array.from(shadow.querySelectorAll(CONTROLS))) {
      if (interactive(el)) chars += arg.perControl + Math.min(arg.controlText, el.textContent?.length ?? 0)
    }
    return chars
  }
  let estimate = 0
  let end: NodeLike | null = null
  let unreadElements = 0
  let unreadInteractive = 0
  let depth = 0
  let n: NodeLike | null = root
  // The styles of what the walk will read are asked here first, all in one go. Asking an element's style
  // inside a part of the page the browser keeps unrendered (a closed <details>, content-visibility) makes it
  // compute that part, and leaves the page's layout to be done again at the next box asked for; the walk
  // asks styles and boxes in turn, so each such part cost it a layout of the whole page: 1.5 s for 1,500
  // closed details, 200-300 ms once their styles are asked first. Asking a style the page has computed
  // already costs under a microsecond (15 ms for Python's 17,000-element stdtypes page). Nothing under an
  // element that is not shown is asked: the walk does not go there either.
  let unstyled: NodeLike | null = null
  if (arg.sameEnd) {
    const before = (g[endKey] as WeakRef<NodeLike> | undefined)?.deref()
    if (before === undefined || before.isConnected !== true || !root.contains(before)) return { bounded: false }
    end = before
    n = null
  }
  while (n !== null) {
    let down = false
    if (n.nodeType === 3) {
      if (end === null && !arg.controls && /\S/.test(n.data!)) estimate += n.data!.length
    } else if (n.nodeType === 1 && !SKIP.test(n.nodeName) && n.hidden !== true) {
      down = true
      if (end === null && g.getComputedStyle !== undefined) {
        if (unstyled !== null && !unstyled.contains(n)) unstyled = null
        if (unstyled === null) {
          const display = g.getComputedStyle(n).display
          // What the walk will not go into: nothing shown under it (display:contents has no box of its own).
          if (display === "none" || (display !== "contents" && n.checkVisibility?.({}) === false)) unstyled = n
        }
      }
      if (end === null) {
        if (!arg.controls) estimate += arg.perElement + arg.perDepth * depth
        else if (interactive(n) && n.checkVisibility?.({ visibilityProperty: true }) !== false) {
          estimate += arg.perControl + Math.min(arg.controlText, n.textContent?.length ?? 0)
        }
        // An open shadow tree is read with its host: its elements and text, or its controls, counted at once.
        const shadow = n.shadowRoot as ShadowLike | null | undefined
        if (shadow !== null && shadow !== undefined) estimate += shadowEstimate(shadow, depth + 1)
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
  if (end === null) return { bounded: false }
  // Out of any ancestor whose name is computed from its content, any shadow host and any slot assignment.
  const NAMED_TAG = /^(A|AREA|BUTTON|H[1-6]|TD|TH|TR|OPTION|SUMMARY|LABEL|LEGEND|CAPTION|FIGCAPTION)$/
  const NAMED_ROLE =
    /(^|\s)(button|cell|checkbox|columnheader|gridcell|heading|link|menuitem|menuitemcheckbox|menuitemradio|option|radio|row|rowheader|switch|tab|tooltip|treeitem)(\s|$)/
  for (let a = end.parentNode; a !== null && a !== root; a = a.parentNode) {
    if (a.nodeType !== 1) return { bounded: false }
    const role = a.getAttribute!("role")
    if (NAMED_TAG.test(a.nodeName) || (role !== null && NAMED_ROLE.test(role)) || a.shadowRoot) end = a
  }
  for (let a: NodeLike | null = end; a !== null && a !== root; a = a.parentNode) {
    if (a.assignedSlot) return { bounded: false }
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
  keep(arg.key, state)
  return { bounded: true, unreadElements, unreadInteractive }
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
