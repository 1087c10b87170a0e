import { describe, expect, it } from "vitest"
import { BrowserToolParams } from "../../../src/domain/browserTool.js"
import { toolInputSchema } from "../../../src/platform/toolSchema.js"

// The `browser` tool's JSON Schema, as a model API and an MCP client receive it: derived from the one Schema,
// a flat object at the root (no root $ref: a client reading the root's properties would see no parameters),
// no union anywhere (some model APIs refuse `anyOf`), every action and act kind listed.

const walk = (node: unknown, visit: (key: string, value: unknown) => void) => {
  if (node === null || typeof node !== "object") return
  for (const [k, v] of Object.entries(node)) {
    visit(k, v)
    walk(v, visit)
  }
}

describe("the browser tool's JSON Schema", () => {
  const schema = toolInputSchema(BrowserToolParams) as any
  const root = schema

  it("is one object at the root with action required, and no union anywhere", () => {
    expect(schema).not.toHaveProperty("$ref")
    expect(schema).not.toHaveProperty("$schema")
    expect(root.type).toBe("object")
    expect(root.required).toEqual(["action"])
    const unions: Array<string> = []
    walk(schema, (k) => (k === "anyOf" || k === "oneOf" || k === "allOf") && unions.push(k))
    expect(unions).toEqual([])
  })

  it("lists every action and act kind, and describes each parameter", () => {
    expect(root.properties.action.enum).toEqual([
      "status", "start", "stop", "profiles", "tabs", "open", "focus", "close", "snapshot", "screenshot", "navigate",
      "act", "console", "errors", "requests", "pdf", "upload", "dialog", "download", "waitfordownload", "cookies",
      "storage", "savestate", "loadstate", "emulate", "styles", "routes"
    ])
    const request = root.properties.request.$ref !== undefined
      ? schema.$defs[root.properties.request.$ref.split("/").pop()]
      : root.properties.request
    expect(request.properties.kind.enum).toEqual([
      "click", "type", "press", "hover", "drag", "drop", "select", "fill", "resize", "wait", "evaluate", "scrollIntoView", "scroll", "clickAt", "moveAt", "mouseDown", "mouseUp", "dragAt", "close"
    ])
    for (const [name, p] of Object.entries(root.properties as Record<string, any>)) {
      expect(typeof p.description, name).toBe("string")
    }
    expect(root.properties.target.enum).toEqual(["sandbox", "host", "node"])
  })
})
