import { JSONSchema, type Schema } from "effect"

// A tool's input as JSON Schema the way model APIs and MCP clients take it: an object at the root. Effect's
// JSONSchema.make gives a schema with an identifier as `{$ref: "#/$defs/<id>", $defs}`, and a client that
// reads only the root's `properties` then sees a tool without parameters.

/** The JSON Schema of a tool's input: no `$schema`, a root `$ref` replaced by what it names (other `$defs` kept). */
export const rootObjectSchema = (json: object): Record<string, unknown> => {
  const { $schema: _, ...rest } = json as Record<string, unknown>
  const ref = rest.$ref
  if (typeof ref !== "string" || !ref.startsWith("#/$defs/")) return rest
  const defs = (rest.$defs ?? {}) as Record<string, Record<string, unknown>>
  const { [ref.slice("#/$defs/".length)]: root, ...others } = defs
  if (root === undefined) return rest
  return Object.keys(others).length > 0 ? { ...root, $defs: others } : { ...root }
}

/** `rootObjectSchema` of a Schema. */
export const toolInputSchema = (schema: Schema.Schema<any, any>): Record<string, unknown> =>
  rootObjectSchema(JSONSchema.make(schema))
