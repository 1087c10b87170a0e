// Code that runs in the page. Each function is self-contained: playwright sends its source text.

/** What the agent's code is run with: its source, svc's pin to take off the element first, the cap on the answer. */
export interface AgentCode {
  readonly source: string
  readonly unmark: string
  readonly limit: number
  /** Run on the page: the element is the top document's under this selector (the mark of a checked ref). */
  readonly marked?: string | undefined
}

/** The agent's result as capped JSON text (see runAgentCode); `missing`: the marked element was not there, nothing ran. */
export interface AgentAnswer {
  readonly json?: string
  readonly total: number
  readonly error?: string
  readonly missing?: true
}

/**
 * The agent's code, run and its result told, in one call: its JSON text cut to `limit` characters (`total`:
 * the whole text's length), where DOM nodes, functions and cycles become strings; `error` when the result
 * has no JSON (a getter or toJSON of the page's threw); neither for undefined. The result stays in the page
 * until cut: a 50 MB string is not sent whole.
 *
 * The source is an expression, or a function (called with the element when there is a ref). The element
 * may carry svc's pin (`unmark`, the attribute refIdentity.ts sets while an action by ref runs): it is taken
 * off first, so the agent's code reads the element (its outerHTML, its attributes) as the page made it.
 * Called as `(element, code)` on an element and `(code)` on the page, where `code.marked` names the element
 * by its mark instead (one call less than finding it first); when no element has that mark, nothing runs.
 */
export const runAgentCode = async (first: unknown, second?: AgentCode): Promise<AgentAnswer> => {
  const code = (second ?? first) as AgentCode
  const doc = (globalThis as { document?: { querySelector(selector: string): unknown } }).document
  const element = second !== undefined ? first : code.marked !== undefined ? doc?.querySelector(code.marked) ?? undefined : undefined
  if (code.marked !== undefined && element === undefined) return { total: 0, missing: true }
  const onElement = element !== undefined
  if (onElement) (element as { removeAttribute?: (name: string) => void }).removeAttribute?.(code.unmark)
  const made: unknown = (0, eval)(code.source)
  const value: unknown = typeof made !== "function"
    ? await made
    : onElement
    ? await (made as (el: unknown) => unknown)(element)
    : await (made as () => unknown)()
  const seen = new WeakSet<object>()
  let json: string | undefined
  try {
    json = JSON.stringify(value, function(_key: string, v: unknown) {
      if (typeof v === "bigint") return `${v}n`
      if (typeof v === "function") return `[function ${(v as { name?: string }).name || "anonymous"}]`
      if (typeof v === "symbol") return v.toString()
      if (typeof v === "number" && !Number.isFinite(v)) return String(v)
      if (typeof v !== "object" || v === null) return v
      const node = v as { nodeType?: unknown; nodeName?: unknown; id?: unknown; className?: unknown }
      if (typeof node.nodeType === "number" && typeof node.nodeName === "string") {
        if (node.nodeType !== 1) return `[${node.nodeName}]`
        const id = typeof node.id === "string" && node.id !== "" ? `#${node.id}` : ""
        const cls = typeof node.className === "string" && node.className.trim() !== ""
          ? `.${node.className.trim().split(/\s+/).join(".")}`
          : ""
        return `<${node.nodeName.toLowerCase()}${id}${cls}>`
      }
      if (v === globalThis) return "[Window]"
      if (v instanceof Map) return Array.from(v.entries())
      if (v instanceof Set) return Array.from(v.values())
      if (v instanceof Error) return { name: v.name, message: v.message }
      if (seen.has(v)) return "[seen above]"
      seen.add(v)
      return v
    })
  } catch (e) {
    return { total: 0, error: String(e) }
  }
  if (json === undefined) return { total: 0 }
  return { json: json.length > code.limit ? json.slice(0, code.limit) : json, total: json.length }
}

/** Where an element is in the viewport, in CSS pixels. */
export interface ElementBox {
  readonly x: number
  readonly y: number
  readonly width: number
  readonly height: number
}

// The few DOM shapes the in-page functions touch (the project compiles without the DOM library).
interface PageRect {
  readonly left: number
  readonly top: number
  readonly width: number
  readonly height: number
}
interface PageNode {
  setAttribute(name: string, value: string): void
  readonly style: { cssText: string }
  remove(): void
}
interface PageElement {
  readonly tagName: string
  readonly options?: ArrayLike<{ readonly value: string; readonly label: string }>
  readonly ownerDocument: {
    readonly defaultView: { readonly scrollX: number; readonly scrollY: number } | null
    readonly documentElement: { appendChild(node: PageNode): void }
    querySelectorAll(selector: string): { forEach(f: (node: PageNode) => void): void }
    createElement(tag: string): PageNode
  }
  getBoundingClientRect(): PageRect
}

/** Draws a bright outline over the element for `ms`, above everything, ignoring the pointer. */
export const drawOutline = (node: unknown, args: { ms: number; color: string }): ElementBox => {
  const element = node as PageElement
  const doc = element.ownerDocument
  const view = doc.defaultView
  doc.querySelectorAll("[data-svc-highlight]").forEach((old) => old.remove())
  const r = element.getBoundingClientRect()
  const box = doc.createElement("div")
  box.setAttribute("data-svc-highlight", "")
  box.setAttribute("aria-hidden", "true")
  const border = 4
  box.style.cssText = [
    "position:absolute",
    `left:${r.left + (view?.scrollX ?? 0) - border}px`,
    `top:${r.top + (view?.scrollY ?? 0) - border}px`,
    `width:${r.width}px`,
    `height:${r.height}px`,
    `border:${border}px solid ${args.color}`,
    "box-sizing:content-box",
    "border-radius:3px",
    "background:transparent",
    "margin:0",
    "padding:0",
    "z-index:2147483647",
    "pointer-events:none"
  ].join(";")
  doc.documentElement.appendChild(box)
  setTimeout(() => box.remove(), args.ms)
  return { x: r.left, y: r.top, width: r.width, height: r.height }
}

export const selectOptions = (node: unknown) => {
  const element = node as PageElement
  return element.tagName === "SELECT" && element.options !== undefined
    ? Array.from(element.options).map((o) => ({ value: o.value, label: o.label }))
    : []
}

export const tagName = (node: unknown) => (node as PageElement).tagName

/**
 * `wait --fn`: the agent's condition, polled by the library. Truthy only when the condition's value is: a
 * condition that returns a promise (an async function) is awaited across polls in a slot, so the promise
 * object itself never counts as truthy. The slots live under one symbol on the window, which the page's own
 * enumeration (`Object.keys(window)`, `for…in`) does not see. With `end`, the wait is over: its slot goes,
 * and a later poll (the library's poll can outlive the wait by a frame or two) answers false without running
 * the condition again; the record of the ended wait goes a minute later, and the symbol with the last one.
 */
export const waitCondition = ({ source, slot, end }: { source: string; slot: string; end?: boolean }): unknown => {
  type Slot = { pending: boolean; value: unknown }
  type Slots = { live: Map<string, Slot>; ended: Set<string> }
  const key = Symbol.for("svc.waitSlots")
  const g = globalThis as unknown as Record<symbol, Slots | undefined>
  let slots = g[key]
  if (slots === undefined) {
    slots = { live: new Map(), ended: new Set() }
    Object.defineProperty(globalThis, key, { value: slots, configurable: true, enumerable: false, writable: true })
  }
  const mine = slots
  if (end === true) {
    mine.live.delete(slot)
    mine.ended.add(slot)
    setTimeout(() => {
      mine.ended.delete(slot)
      if (mine.live.size === 0 && mine.ended.size === 0 && g[key] === mine) delete g[key]
    }, 60_000)
    return false
  }
  if (mine.ended.has(slot)) return false
  const held = mine.live.get(slot)
  if (held !== undefined) {
    if (held.pending) return false
    mine.live.delete(slot)
    if (held.value) return held.value
  }
  const value: unknown = (0, eval)(source)
  const result: unknown = typeof value === "function" ? (value as () => unknown)() : value
  if (result !== null && typeof result === "object" && typeof (result as { then?: unknown }).then === "function") {
    const s: Slot = { pending: true, value: undefined }
    mine.live.set(slot, s)
    ;(result as Promise<unknown>).then(
      (v) => {
        s.pending = false
        s.value = v
      },
      () => {
        s.pending = false
        s.value = false
      }
    )
    return false
  }
  return result
}

/** Runs in the page: the viewport's size in CSS pixels, without the scrollbars. */
export const viewportOf = (): { width: number; height: number } => {
  const w = globalThis as unknown as {
    document: { documentElement: { clientWidth: number; clientHeight: number } }
    innerWidth: number
    innerHeight: number
  }
  return {
    width: w.document.documentElement.clientWidth || w.innerWidth,
    height: w.document.documentElement.clientHeight || w.innerHeight
  }
}
