import type { CssDeclaration, CssRule } from "../../domain/styles.js"

// The rules that style an element, from what Chromium's CSS domain reports (CSS.getMatchedStylesForNode):
// highest precedence first (the style attribute, then the matched rules from the most specific and latest
// down to the browser's own), each declaration as it is written, marked overridden when another wins.
// Precedence is taken as Chromium orders the rules; a declaration loses to a later one of the same property
// name (a shorthand and its longhands are not weighed against each other), and !important wins over normal.

/** What is read of a CDP CSSStyle. */
export interface CdpStyle {
  readonly cssProperties: ReadonlyArray<{
    readonly name: string
    readonly value: string
    readonly important?: boolean
    readonly disabled?: boolean
    readonly parsedOk?: boolean
    readonly range?: { readonly startLine: number }
  }>
  readonly range?: { readonly startLine: number }
}

export interface CdpRule {
  readonly selectorList: { readonly text: string }
  readonly origin: string
  readonly styleSheetId?: string
  readonly style: CdpStyle
  readonly media?: ReadonlyArray<{ readonly text: string }>
  readonly layers?: ReadonlyArray<{ readonly text: string }>
  readonly supports?: ReadonlyArray<{ readonly text: string }>
  readonly containerQueries?: ReadonlyArray<{ readonly text: string; readonly name?: string }>
}

export interface CdpMatched {
  readonly inlineStyle?: CdpStyle
  /** Lowest precedence first, as Chromium sends them. */
  readonly matchedCSSRules?: ReadonlyArray<{ readonly rule: CdpRule }>
}

export interface SheetHeader {
  readonly sourceURL: string
  readonly startLine: number
  readonly isInline?: boolean
}

/** What the element's properties compute to, by default. */
export const COMMON_PROPERTIES = [
  "display",
  "position",
  "visibility",
  "opacity",
  "width",
  "height",
  "margin",
  "padding",
  "color",
  "background-color",
  "font-family",
  "font-size",
  "font-weight",
  "line-height",
  "z-index",
  "overflow",
  "pointer-events",
  "cursor"
] as const

const SIDES = ["top", "right", "bottom", "left"] as const

/** A property's computed value; a box shorthand (margin, padding, inset, border-width) from its four sides. */
export const computedValue = (computed: Readonly<Record<string, string>>, name: string): string | undefined => {
  const own = computed[name]
  if (own !== undefined) return own
  const sides = SIDES.map((side) =>
    name === "border-width" ? computed[`border-${side}-width`] : name === "inset" ? computed[side] : computed[`${name}-${side}`]
  )
  return sides.every((v): v is string => v !== undefined) ? sides.join(" ") : undefined
}

/** The declarations as written (a shorthand, not the longhands Chromium adds), without disabled or invalid ones. */
const written = (style: CdpStyle) => {
  const usable = style.cssProperties.filter((p) => p.disabled !== true && p.parsedOk !== false && p.value !== "")
  const withText = usable.filter((p) => p.range !== undefined)
  return withText.length > 0 ? withText : usable
}

const originOf = (origin: string): CssRule["origin"] =>
  origin === "regular" ? "author" : origin === "user-agent" ? "user-agent" : "other"

const conditionsOf = (rule: CdpRule): ReadonlyArray<string> => [
  ...(rule.media ?? []).map((m) => `@media ${m.text}`),
  ...(rule.containerQueries ?? []).map((c) => `@container ${c.name !== undefined && c.name !== "" ? `${c.name} ` : ""}${c.text}`),
  ...(rule.supports ?? []).map((s) => `@supports ${s.text}`),
  ...(rule.layers ?? []).map((l) => `@layer ${l.text}`)
]

const sourceOf = (rule: CdpRule, sheets: ReadonlyMap<string, SheetHeader>, pageUrl: string): string | undefined => {
  const header = rule.styleSheetId !== undefined ? sheets.get(rule.styleSheetId) : undefined
  if (header === undefined || rule.style.range === undefined) return undefined
  const url = header.sourceURL !== "" ? header.sourceURL : header.isInline === true ? pageUrl : ""
  return url === "" ? undefined : `${url}:${header.startLine + rule.style.range.startLine + 1}`
}

const IMPORTANT = /\s*!\s*important\s*$/i

/** Every rule of the element, highest precedence first, with overridden declarations marked. */
export const matchedRules = (matched: CdpMatched, sheets: ReadonlyMap<string, SheetHeader>, pageUrl: string): Array<CssRule> => {
  const rules: Array<{ rule: Omit<CssRule, "declarations">; declarations: Array<Omit<CssDeclaration, "overridden">> }> = []
  const declarationsOf = (style: CdpStyle) =>
    written(style).map((p) => ({ name: p.name, value: p.value.replace(IMPORTANT, ""), important: p.important === true }))
  if (matched.inlineStyle !== undefined && written(matched.inlineStyle).length > 0) {
    rules.push({ rule: { selector: "element.style", origin: "inline" }, declarations: declarationsOf(matched.inlineStyle) })
  }
  for (const { rule } of [...(matched.matchedCSSRules ?? [])].reverse()) {
    const source = sourceOf(rule, sheets, pageUrl)
    const conditions = conditionsOf(rule)
    rules.push({
      rule: {
        selector: rule.selectorList.text,
        origin: originOf(rule.origin),
        ...(source !== undefined ? { source } : {}),
        ...(conditions.length > 0 ? { conditions } : {})
      },
      declarations: declarationsOf(rule.style)
    })
  }
  // The winner of each property: its first !important declaration, else its first one.
  const winners = new Map<string, Omit<CssDeclaration, "overridden">>()
  for (const important of [true, false]) {
    for (const r of rules) {
      for (const d of r.declarations) if (d.important === important && !winners.has(d.name)) winners.set(d.name, d)
    }
  }
  return rules.map((r) => ({ ...r.rule, declarations: r.declarations.map((d) => ({ ...d, overridden: winners.get(d.name) !== d })) }))
}

/** Whether a declaration is about one of the properties asked for (a shorthand and its longhands match both ways). */
const about = (name: string, asked: ReadonlyArray<string>) =>
  asked.some((p) => name === p || name.startsWith(`${p}-`) || p.startsWith(`${name}-`))

/**
 * The rules to show: without properties asked for, the page's own (the browser's defaults are counted, not
 * shown); with them, every rule that sets one of them, with only those declarations.
 */
export const shownRules = (rules: ReadonlyArray<CssRule>, asked: ReadonlyArray<string> | undefined) => {
  if (asked === undefined) {
    const own = rules.filter((r) => r.origin !== "user-agent")
    return { rules: own, userAgentRulesLeftOut: rules.length - own.length }
  }
  const kept = rules
    .map((r) => ({ ...r, declarations: r.declarations.filter((d) => about(d.name, asked)) }))
    .filter((r) => r.declarations.length > 0)
  return { rules: kept, userAgentRulesLeftOut: 0 }
}
