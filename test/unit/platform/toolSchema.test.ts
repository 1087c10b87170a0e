import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { rootObjectSchema, toolInputSchema } from "../../../src/platform/toolSchema.js"

// Tool input schemas as clients read them: the parameters at the root, no references left to follow.

describe("tool input schemas", () => {
  it("a Schema with an identifier is its object at the root, not a $ref", () => {
    const Params = Schema.Struct({ action: Schema.Literal("a", "b"), n: Schema.optional(Schema.Number) })
      .annotations({ identifier: "params", description: "the params" })
    const json = toolInputSchema(Params)
    expect(json).not.toHaveProperty("$ref")
    expect(json).not.toHaveProperty("$defs")
    expect(json).not.toHaveProperty("$schema")
    expect(json).toMatchObject({ type: "object", required: ["action"], description: "the params" })
    expect(json.properties).toMatchObject({ action: { enum: ["a", "b"] }, n: { type: "number" } })
  })

  it("a named refinement is put in place, with its bounds and the field's description", () => {
    const json = toolInputSchema(Schema.Struct({
      depth: Schema.Int.pipe(Schema.between(1, 9)).annotations({ description: "how deep" }),
      list: Schema.Array(Schema.Struct({ at: Schema.Int })).annotations({ identifier: "List" })
    }))
    expect(JSON.stringify(json)).not.toContain("$ref")
    expect((json.properties as any).depth).toMatchObject({ type: "integer", description: "how deep", minimum: 1, maximum: 9 })
    expect((json.properties as any).list.items.properties.at.type).toBe("integer")
  })

  it("a field described apart from its type is one schema: no allOf, the type's bounds and the description", () => {
    const json = toolInputSchema(Schema.Struct({
      limit: Schema.propertySignature(Schema.Int.pipe(Schema.between(1, 9))).annotations({ description: "how many" }),
      kind: Schema.optional(Schema.Literal("a").annotations({ identifier: "Kind" })).annotations({ description: "which" })
    }))
    expect(JSON.stringify(json)).not.toMatch(/allOf|\$ref/)
    expect((json.properties as any).limit).toMatchObject({ type: "integer", minimum: 1, maximum: 9, description: "how many" })
    expect((json.properties as any).kind).toMatchObject({ enum: ["a"], description: "which" })
  })

  it("a recursive definition stays a reference, with the definition it needs", () => {
    const json = rootObjectSchema({
      $schema: "http://json-schema.org/draft-07/schema#",
      $ref: "#/$defs/Tree",
      $defs: {
        Tree: { type: "object", properties: { kids: { type: "array", items: { $ref: "#/$defs/Tree" } } } },
        Unused: { type: "string" }
      }
    })
    expect(json).toEqual({
      type: "object",
      properties: { kids: { type: "array", items: { $ref: "#/$defs/Tree" } } },
      $defs: { Tree: { type: "object", properties: { kids: { type: "array", items: { $ref: "#/$defs/Tree" } } } } }
    })
  })
})
