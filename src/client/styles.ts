import type { CssRule, StylesResult } from "../domain/styles.js"

// An element's CSS as the CLI and MCP answer it: what its properties compute to, then the rules that set
// them, highest precedence first, one line each.

const ruleLine = (r: CssRule): string => {
  const where = r.origin === "user-agent" ? "the browser's own" : r.source
  const head = [...(r.conditions ?? []), r.selector].join(" ")
  const declarations = r.declarations
    .map((d) => `${d.name}: ${d.value}${d.important ? " !important" : ""}${d.overridden ? " [overridden]" : ""}`)
    .join("; ")
  return `  ${head}${where !== undefined ? ` (${where})` : ""} { ${declarations} }`
}

/** The CSS properties asked for, as GET /styles takes them (comma-separated); none asked: nothing. */
export const propertiesParam = (properties: ReadonlyArray<string> | undefined): { readonly properties?: string } =>
  properties !== undefined && properties.length > 0 ? { properties: properties.join(",") } : {}

export const stylesText = (r: StylesResult): string => {
  const computed = Object.entries(r.computed).map(([k, v]) => `${k}: ${v}`).join("; ")
  const lines = [`${r.description} [ref=${r.ref}]`, `computed: ${computed}`]
  if (r.rulesUnavailable !== undefined) lines.push(`rules: not shown, ${r.rulesUnavailable}`)
  else if (r.rules.length === 0) lines.push("rules: none of the page's rules set these; the values are the browser's defaults or inherited")
  else lines.push("rules, highest precedence first ([overridden]: another declaration wins):", ...r.rules.map(ruleLine))
  if (r.userAgentRulesLeftOut > 0) {
    lines.push(`${r.userAgentRulesLeftOut} rule(s) of the browser's own left out; name properties to see those that set them`)
  }
  return lines.join("\n")
}
