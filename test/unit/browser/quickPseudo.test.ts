import { afterEach, describe, expect, it } from "vitest"
import { quickPseudo } from "../../../src/browser/snapshot/quickPseudo.js"

// The quick `::before` / `::after` answers of the utility world (quickPseudo.ts), in a stand-in window: the
// walk an arming announces asks the browser only about the elements the rules' selectors can give content,
// within its own task; it is sent as source, so it runs here from its source text.

interface Rule {
  readonly selectorText?: string
  readonly cssRules?: ReadonlyArray<Rule>
  readonly styleSheet?: { readonly cssRules: ReadonlyArray<Rule> }
}

const g = globalThis as unknown as Record<string, unknown>
const KEY = "__svcTestQuickPseudo"
afterEach(() => {
  delete g.document
  delete g.getComputedStyle
  delete g[`${KEY}:pseudo`]
})

const XHTML = "http://www.w3.org/1999/xhtml"

/** A stand-in window: its sheets, the elements its querySelectorAll finds, and what the browser was asked. */
const makeWindow = (sheets: ReadonlyArray<{ readonly cssRules: ReadonlyArray<Rule> } | "unreadable">, matched: (selector: string) => ReadonlyArray<object>) => {
  const asked: Array<string> = []
  const selectors: Array<string> = []
  const document = {
    styleSheets: sheets.map((s) =>
      s === "unreadable"
        ? {
          get cssRules(): ReadonlyArray<Rule> {
            throw new Error("SecurityError: cannot access rules")
          }
        }
        : s
    ),
    querySelectorAll: (selector: string) => {
      selectors.push(selector)
      return matched(selector)
    }
  }
  const element = (id: string, more: Partial<{ localName: string; shadowRoot: unknown; namespaceURI: string; root: unknown }> = {}) => ({
    id,
    localName: more.localName ?? "button",
    namespaceURI: more.namespaceURI ?? XHTML,
    shadowRoot: more.shadowRoot ?? null,
    getRootNode: () => more.root ?? document
  })
  g.document = document
  g.getComputedStyle = (el: { id: string }, pseudo?: string) => {
    asked.push(`${el.id}${pseudo ?? ""}`)
    return { content: `"${el.id}"`, display: "inline", visibility: "visible" }
  }
  return { asked, selectors, element }
}

const install = () => new Function(`(${quickPseudo.toString()})(${JSON.stringify(KEY)})`)()
const style = (el: object, pseudo?: string) => (g.getComputedStyle as (e: object, p?: string) => { content: string })(el, pseudo)

describe("quickPseudo", () => {
  it("asks the browser only about the elements a rule can give content, during the walk's task", async () => {
    let star: object | undefined
    const w = makeWindow(
      [{ cssRules: [{ selectorText: ".star::before, .plain" }, { cssRules: [{ selectorText: ".list > :after" }] }, { selectorText: "p" }] }],
      () => [star!]
    )
    star = w.element("star")
    const plain = w.element("plain")
    install()
    expect(style(plain, "::before").content).toBe("none")
    expect(style(star, "::before").content).toBe('"star"')
    expect(style(plain, "::after").content).toBe("none")
    // Styles of the element itself always come from the browser.
    expect(style(plain).content).toBe('"plain"')
    // One look-up, of the hosts of the pseudo-element rules (grouping rules looked into), and quotes.
    expect(w.selectors).toEqual(["q,.star,.list > *"])
    expect(w.asked).toEqual(["star::before", "plain"])
    // The task is over: the browser is asked again, until the next arming.
    await Promise.resolve()
    await Promise.resolve()
    expect(style(plain, "::before").content).toBe('"plain"')
    install()
    expect(style(plain, "::after").content).toBe("none")
  })

  it("never answers for shadow trees, shadow hosts, custom elements or elements outside HTML", () => {
    const w = makeWindow([{ cssRules: [{ selectorText: ".x::before" }] }], () => [])
    install()
    const others = [
      w.element("inShadow", { root: {} }),
      w.element("host", { shadowRoot: {} }),
      w.element("custom", { localName: "x-card" }),
      w.element("svg", { namespaceURI: "http://www.w3.org/2000/svg", localName: "text" })
    ]
    for (const el of others) expect(style(el, "::before").content).not.toBe("none")
    expect(w.asked).toHaveLength(4)
  })

  it("asks about every element when a sheet cannot be read or a rule cannot be placed", async () => {
    for (
      const sheets of [
        ["unreadable" as const],
        [{ cssRules: [{ selectorText: ".nest", cssRules: [{ selectorText: "&::before" }] }] }],
        [{ cssRules: [{ styleSheet: { get cssRules(): ReadonlyArray<Rule> { throw new Error("SecurityError") } } }] }]
      ]
    ) {
      const w = makeWindow(sheets, () => [])
      install()
      expect(style(w.element("a"), "::before").content).toBe('"a"')
      expect(w.selectors).toEqual([])
      await Promise.resolve()
      delete g[`${KEY}:pseudo`]
    }
    // A host selector the browser refuses: the same.
    const w = makeWindow([{ cssRules: [{ selectorText: "[title=\":before\"]" }] }], () => {
      throw new Error("SyntaxError: not a valid selector")
    })
    install()
    expect(style(w.element("b"), "::after").content).toBe('"b"')
  })
})
