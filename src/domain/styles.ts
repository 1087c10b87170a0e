import { Schema } from "effect"
import { ProfileName, Ref, TargetId } from "./browser.js"
import { ShownText } from "./shown.js"

// The CSS of one element: what its properties compute to, and the rules that set them, highest precedence
// first, each declaration marked when another one wins.

export const StylesQuery = Schema.Struct({
  profile: Schema.optional(ProfileName),
  targetId: Schema.optional(TargetId),
  ref: Ref,
  /** Comma-separated property names: only these (their rules include the browser's own); else a common set. */
  properties: Schema.optional(Schema.String.pipe(Schema.minLength(1)))
})

export const CssDeclaration = Schema.Struct({
  name: Schema.String,
  value: Schema.String,
  important: Schema.Boolean,
  /** A rule of higher precedence (or an !important one) sets the same property. */
  overridden: Schema.Boolean
})
export type CssDeclaration = typeof CssDeclaration.Type

export const CssRule = Schema.Struct({
  /** `element.style` for the inline style attribute. */
  selector: Schema.String,
  origin: Schema.Literal("inline", "author", "user-agent", "other"),
  /** Where it is written: the stylesheet's URL and line (the page's own URL for a <style> element). */
  source: Schema.optional(ShownText),
  /** The at-rules it sits in: `@media (min-width: 600px)`, `@layer base`, `@supports …`. */
  conditions: Schema.optional(Schema.Array(Schema.String)),
  declarations: Schema.Array(CssDeclaration)
})
export type CssRule = typeof CssRule.Type

export const StylesResult = Schema.Struct({
  targetId: Schema.String,
  ref: Schema.String,
  description: Schema.String,
  /** Property → its computed value. */
  computed: Schema.Record({ key: Schema.String, value: Schema.String }),
  /** Highest precedence first. Without properties asked for, the browser's own rules are left out. */
  rules: Schema.Array(CssRule),
  /** The browser's own rules left out (ask for properties to see theirs). */
  userAgentRulesLeftOut: Schema.Number,
  /** Why rules could not be read (an element inside a frame): the computed values still are. */
  rulesUnavailable: Schema.optional(Schema.String)
})
export type StylesResult = typeof StylesResult.Type
