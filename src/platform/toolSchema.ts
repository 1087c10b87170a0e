import { JSONSchema, type Schema } from "effect"

// A tool's input as JSON Schema the way model APIs and MCP clients take it: an object at the root, with no
// references to follow. Effect's JSONSchema.make gives a schema with an identifier as `{$ref: "#/$defs/<id>",
// $defs}` (a client that reads only the root's `properties` then sees a tool without parameters), and a named
// refinement (Schema.Int between 1 and 1000) as a `$ref` with `minimum`/`maximum` beside it, which draft-07
// readers ignore and some model APIs refuse. References are put in place; only a recursive one stays a
// reference, with the `$defs` it needs. A field described apart from its type (`{allOf: [type],
// description}`) is said as one schema.

const DEFS = "#/$defs/"

/** `json` with every `$ref` into its `$defs` replaced by what it names (its siblings kept over the named schema's). */
export const rootObjectSchema = (json: object): Record<string, unknown> => {
  const { $schema: _, $defs, ...rest } = json as Record<string, unknown>
  const defs = ($defs ?? {}) as Record<string, unknown>
  const kept = new Set<string>()
  const inline = (node: unknown, expanding: ReadonlyArray<string>): unknown => {
    if (Array.isArray(node)) return node.map((n) => inline(n, expanding))
    if (node === null || typeof node !== "object") return node
    const { $ref, ...siblings } = node as Record<string, unknown>
    const out: Record<string, unknown> = {}
    if (typeof $ref === "string" && $ref.startsWith(DEFS) && defs[$ref.slice(DEFS.length)] !== undefined) {
      const name = $ref.slice(DEFS.length)
      if (expanding.includes(name)) {
        kept.add(name)
        out.$ref = $ref
      } else {
        Object.assign(out, inline(defs[name], [...expanding, name]))
      }
    } else if ($ref !== undefined) {
      out.$ref = $ref
    }
    for (const [k, v] of Object.entries(siblings)) out[k] = inline(v, expanding)
    // A field described apart from its type comes as `{allOf: [type], description}`: one schema, said flat.
    const { allOf, ...beside } = out
    if (Array.isArray(allOf) && allOf.length === 1 && typeof allOf[0] === "object" && allOf[0] !== null) {
      return { ...(allOf[0] as Record<string, unknown>), ...beside }
    }
    return out
  }
  const root = inline(rest, []) as Record<string, unknown>
  if (kept.size === 0) return root
  // A recursive definition stays a reference: its definition goes along, in place itself.
  const needed: Record<string, unknown> = {}
  for (const name of kept) needed[name] = inline(defs[name], [name])
  return { ...root, $defs: needed }
}

/** `rootObjectSchema` of a Schema. */
export const toolInputSchema = (schema: Schema.Schema<any, any>): Record<string, unknown> =>
  rootObjectSchema(JSONSchema.make(schema))
