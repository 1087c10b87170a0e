// Placeholders an agent may write in a reply or in action parameters, expanded from the inbound message
// it is answering: short ids save tokens, the full guids are there when an action needs them.

export interface TemplateValues {
  readonly MessageSid?: string | undefined
  readonly MessageSidFull?: string | undefined
  readonly ReplyToId?: string | undefined
  readonly ReplyToIdFull?: string | undefined
}

const PLACEHOLDER = /\{\{\s*(MessageSidFull|MessageSid|ReplyToIdFull|ReplyToId)\s*\}\}/g

/** Replace the known placeholders that have a value; anything else is left as written. */
export const expandTemplates = (text: string, values: TemplateValues): string =>
  text.includes("{{")
    ? text.replace(PLACEHOLDER, (whole, name: keyof TemplateValues) => values[name] ?? whole)
    : text

/** expandTemplates over every string inside a JSON-like value (action parameters). */
export const expandTemplatesDeep = (value: unknown, values: TemplateValues): unknown => {
  if (typeof value === "string") return expandTemplates(value, values)
  if (Array.isArray(value)) return value.map((v) => expandTemplatesDeep(v, values))
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandTemplatesDeep(v, values)]))
  }
  return value
}
