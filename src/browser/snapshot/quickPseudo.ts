// In the library's utility world (self-contained: its source is sent, with the walk's arming: walkBound.ts).
//
// The library's walk asks the browser for the `::before` and `::after` style of every element it visits (their
// CSS `content` is part of names and text). Each is a style resolution of its own: on a page of 12,000 to
// 17,000 elements (Node's fs docs, Python's stdtypes) 90-110 ms of a first read, 50-60 ms of a later one, for
// the few dozen elements a stylesheet actually gives such content. An element gets a `::before` or `::after`
// only from a rule whose selector ends in one, so the elements that can have one are those the rules'
// selectors, the pseudo-element taken off, match: one querySelectorAll finds them all. Every other element is
// answered "no content" without asking the browser.
//
// Only for the walk an arming announces, and only within the task that runs it: the elements are looked up at
// the walk's first question (the page as the walk sees it), and forgotten when that task ends; anything else
// asking in this world (an action matching names) asks the browser as before. The browser is asked about
// every element whenever the rules cannot all be read (a cross-origin sheet, a rule nested in another), for
// elements in shadow trees, shadow hosts and custom elements (a shadow tree's `:host::before` styles its
// host), elements outside HTML, and `q` (quotes come from the browser's own sheet).

/** Installs the quick answer in this world once, and lets the next walk use it; `key` names its state. */
export const quickPseudo = (key: string): void => {
  interface Rule {
    readonly selectorText?: string
    readonly cssRules?: ArrayLike<Rule>
    readonly styleSheet?: { readonly cssRules: ArrayLike<Rule> } | null
  }
  interface State {
    /** An arming announced a walk: its first question looks the elements up. */
    armed: boolean
    /** During the walk's task: the elements that may have content (undefined: ask about all). */
    hosts: Set<unknown> | undefined
    active: boolean
  }
  const g = globalThis as unknown as Record<string, unknown>
  const name = `${key}:pseudo`
  const existing = g[name] as State | undefined
  if (existing !== undefined) {
    existing.armed = true
    return
  }
  const state: State = { armed: true, hosts: undefined, active: false }
  Object.defineProperty(g, name, { value: state, configurable: true, enumerable: false, writable: true })

  const PSEUDO = /::?(?:before|after)(?![\w-])/i
  /** A selector list's selectors (commas inside brackets, parentheses or strings do not split). */
  const split = (text: string): Array<string> => {
    const out: Array<string> = []
    let depth = 0
    let quote = ""
    let start = 0
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!
      if (quote !== "") {
        if (c === "\\") i++
        else if (c === quote) quote = ""
      } else if (c === "\\") i++
      else if (c === "\"" || c === "'") quote = c
      else if (c === "(" || c === "[") depth++
      else if (c === ")" || c === "]") depth--
      else if (c === "," && depth === 0) {
        out.push(text.slice(start, i))
        start = i + 1
      }
    }
    out.push(text.slice(start))
    return out
  }
  /** The selector of the elements `selector`'s pseudo-element belongs to (everything after it dropped). */
  const hostOf = (selector: string): string => {
    const at = selector.search(PSEUDO)
    const host = selector.slice(0, at).trim()
    return host === "" || /[>+~]$/.test(host) ? `${host} *` : host
  }
  /** The host selectors of every `::before` and `::after` rule; undefined when some rule cannot be read or placed. */
  const hostSelectors = (doc: { readonly styleSheets: ArrayLike<{ readonly cssRules: ArrayLike<Rule> }>; readonly adoptedStyleSheets?: ArrayLike<{ readonly cssRules: ArrayLike<Rule> }> }) => {
    const found: Array<string> = []
    let readable = true
    const scan = (rules: ArrayLike<Rule>, nested: boolean) => {
      for (let i = 0; i < rules.length && readable; i++) {
        const rule = rules[i]!
        const text = rule.selectorText
        if (typeof text === "string" && PSEUDO.test(text)) {
          // A nested rule's selector is relative to its parent's: not placed here.
          if (nested) readable = false
          else for (const s of split(text)) if (PSEUDO.test(s)) found.push(hostOf(s))
        }
        if (rule.styleSheet !== undefined) {
          try {
            if (rule.styleSheet !== null) scan(rule.styleSheet.cssRules, false)
          } catch {
            readable = false
          }
        }
        // Grouping rules (media, supports, layer, container) keep their rules' selectors; a style rule's own
        // rules (nesting) and a scope's do not.
        if (rule.cssRules !== undefined && rule.cssRules.length > 0) {
          scan(rule.cssRules, nested || typeof text === "string" || "start" in rule)
        }
      }
    }
    const sheets = [...Array.from(doc.styleSheets), ...Array.from(doc.adoptedStyleSheets ?? [])]
    for (const sheet of sheets) {
      try {
        scan(sheet.cssRules, false)
      } catch {
        readable = false
      }
      if (!readable) return undefined
    }
    return found
  }
  const lookUp = (): Set<unknown> | undefined => {
    const doc = g.document as Parameters<typeof hostSelectors>[0] & { querySelectorAll(s: string): ArrayLike<unknown> }
    const selectors = hostSelectors(doc)
    if (selectors === undefined) return undefined
    try {
      return new Set(Array.from(doc.querySelectorAll(["q", ...selectors].join(","))))
    } catch {
      return undefined
    }
  }

  interface Element {
    readonly namespaceURI: string | null
    readonly localName: string
    readonly shadowRoot: unknown
    getRootNode(): unknown
  }
  const NONE = Object.freeze({
    content: "none",
    display: "inline",
    visibility: "visible",
    getPropertyValue: (property: string) =>
      property === "content" ? "none" : property === "display" ? "inline" : property === "visibility" ? "visible" : ""
  })
  const original = g.getComputedStyle as (this: unknown, element: unknown, pseudo?: string | null) => unknown
  if (typeof original !== "function") return
  const quick = function(this: unknown, element: unknown, pseudo?: string | null) {
    if ((pseudo === "::before" || pseudo === "::after") && (state.armed || state.active)) {
      if (!state.active) {
        state.armed = false
        state.active = true
        state.hosts = lookUp()
        // The walk is one task: what follows it (another read, an action) asks the browser.
        Promise.resolve().then(() => {
          state.active = false
          state.hosts = undefined
        })
      }
      const e = element as Element
      if (
        state.hosts !== undefined && !state.hosts.has(e) && e.namespaceURI === "http://www.w3.org/1999/xhtml" &&
        !e.localName.includes("-") && e.shadowRoot === null && e.getRootNode() === g.document
      ) {
        return NONE
      }
    }
    return original.call(this, element, pseudo)
  }
  Object.defineProperty(g, "getComputedStyle", { value: quick, configurable: true, enumerable: true, writable: true })
}
