import { describe, expect, it } from "vitest"
import { computedValue, matchedRules, shownRules } from "../../../src/browser/inspect/cssRules.js"

// What Chromium's CSS.getMatchedStylesForNode sends, turned into the rules svc shows.

const prop = (name: string, value: string, extra: object = {}) => ({ name, value, range: { startLine: 0 }, ...extra })
const matched = {
  inlineStyle: { cssProperties: [prop("color", "purple")] },
  matchedCSSRules: [
    { rule: { selectorList: { text: "button" }, origin: "user-agent", style: { cssProperties: [{ name: "color", value: "buttontext" }, { name: "font-size", value: "" }] } } },
    {
      rule: {
        selectorList: { text: "button" },
        origin: "regular",
        styleSheetId: "s1",
        style: { range: { startLine: 3 }, cssProperties: [prop("margin", "0"), { name: "margin-top", value: "0px" }, prop("color", "red", { disabled: true })] }
      }
    },
    {
      rule: {
        selectorList: { text: ".a" },
        origin: "regular",
        styleSheetId: "s2",
        media: [{ text: "(min-width: 10px)" }],
        layers: [{ text: "base" }],
        style: { range: { startLine: 0 }, cssProperties: [prop("color", "blue !important", { important: true }), prop("width", "1px", { parsedOk: false })] }
      }
    }
  ]
}
const sheets = new Map([
  ["s1", { sourceURL: "", startLine: 10, isInline: true }],
  ["s2", { sourceURL: "http://x.test/app.css", startLine: 0 }]
])

describe("an element's CSS rules", () => {
  it("puts the style attribute first, then the rules from the highest precedence down, with where each is written", () => {
    const rules = matchedRules(matched, sheets, "http://x.test/page")
    expect(rules.map((r) => [r.selector, r.origin, r.source, r.conditions])).toEqual([
      ["element.style", "inline", undefined, undefined],
      [".a", "author", "http://x.test/app.css:1", ["@media (min-width: 10px)", "@layer base"]],
      ["button", "author", "http://x.test/page:14", undefined],
      ["button", "user-agent", undefined, undefined]
    ])
    // As written: the shorthand, not the longhand Chromium adds; no disabled, invalid or empty declarations.
    expect(rules[2]!.declarations.map((d) => d.name)).toEqual(["margin"])
    expect(rules[1]!.declarations).toEqual([{ name: "color", value: "blue", important: true, overridden: false }])
    expect(rules[0]!.declarations[0]).toMatchObject({ name: "color", overridden: true })
    expect(rules[3]!.declarations).toEqual([{ name: "color", value: "buttontext", important: false, overridden: true }])
  })

  it("leaves the browser's own rules out unless properties are named, and then keeps only theirs", () => {
    const rules = matchedRules(matched, sheets, "http://x.test/page")
    expect(shownRules(rules, undefined)).toMatchObject({ userAgentRulesLeftOut: 1, rules: [{ selector: "element.style" }, { selector: ".a" }, { selector: "button" }] })
    const margins = shownRules(rules, ["margin-top"])
    expect(margins.rules.map((r) => r.declarations.map((d) => d.name))).toEqual([["margin"]])
  })

  it("reads a box shorthand's computed value from its four sides", () => {
    const computed = { "margin-top": "1px", "margin-right": "2px", "margin-bottom": "3px", "margin-left": "4px", color: "red" }
    expect(computedValue(computed, "margin")).toBe("1px 2px 3px 4px")
    expect(computedValue(computed, "color")).toBe("red")
    expect(computedValue(computed, "padding")).toBeUndefined()
  })
})
