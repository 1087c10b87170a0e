import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { toolHints } from "../../../src/mcp/failures.js"
import { defineTool, elementRef, inputJsonSchema, type ToolEnv } from "../../../src/mcp/tool.js"
import { ALL_TOOLS } from "../../../src/mcp/tools.js"

// The MCP tools' edges: the schemas clients see, bad arguments named, the CLI's hints turned into tools.

const env = { client: {} as ToolEnv["client"], query: {}, sandboxed: false, readFile: () => Effect.die("unused") } satisfies ToolEnv

const echo = defineTool({
  name: "echo",
  title: "Echo",
  description: "says what it got",
  input: Schema.Struct({ url: Schema.String, depth: Schema.optional(Schema.Int.pipe(Schema.between(1, 10))) }),
  readOnly: true,
  run: (input) => Effect.succeed(JSON.stringify(input))
})

const textOf = (r: { readonly content: ReadonlyArray<unknown> }) =>
  r.content.map((c) => (c as { text?: string }).text ?? "").join("\n")

describe("MCP tools", () => {
  it("every input schema is a flat object without refinement titles", () => {
    for (const { tool } of ALL_TOOLS) {
      const schema = tool.inputSchema as Record<string, unknown>
      expect(schema.type, tool.name).toBe("object")
      expect(schema).not.toHaveProperty("anyOf")
      expect(schema).not.toHaveProperty("$schema")
      // A root $ref (a Schema with an identifier) would show the client a tool without parameters.
      expect(schema, tool.name).not.toHaveProperty("$ref")
      // Nor any reference inside: draft-07 readers ignore a $ref's sibling bounds, some model APIs refuse $refs.
      expect(JSON.stringify(schema), tool.name).not.toContain("$ref")
      expect(JSON.stringify(schema), tool.name).not.toMatch(/"title":"minLength/)
    }
    const agentTool = ALL_TOOLS.find((t) => t.tool.name === "browser")!.tool.inputSchema as any
    expect(agentTool.required).toEqual(["action"])
    expect(agentTool.properties.action.enum).toContain("snapshot")
    expect(Object.keys(agentTool.properties)).toEqual(expect.arrayContaining(["targetId", "url", "ref", "request"]))
    expect(inputJsonSchema(Schema.Struct({}))).toEqual({ type: "object", properties: {}, additionalProperties: false })
  })

  it("tool names are unique and snake_case under browser_, beside the agent tool `browser`", () => {
    const names = ALL_TOOLS.map((t) => t.tool.name)
    expect(new Set(names).size).toBe(names.length)
    for (const name of names) expect(name).toMatch(/^browser(_[a-z_]+)?$/)
    expect(names).toContain("browser")
  })

  it("read-only tools are never destructive; annotations follow the spec", () => {
    for (const { tool } of ALL_TOOLS) {
      if (tool.annotations?.readOnlyHint === true) expect(tool.annotations.destructiveHint, tool.name).toBe(false)
    }
  })

  it.effect("a bad argument is an isError answer naming it", () =>
    Effect.gen(function*() {
      const missing = yield* echo.handle({}, env)
      expect(missing.isError).toBe(true)
      expect(textOf(missing)).toBe("invalid arguments for echo: url is missing")
      const wrong = yield* echo.handle({ url: "x", depth: 0 }, env)
      expect(wrong.isError).toBe(true)
      expect(textOf(wrong)).toMatch(/^invalid arguments for echo: depth: /)
      const ok = yield* echo.handle({ url: "x" }, env)
      expect(ok.isError).toBeUndefined()
      expect(textOf(ok)).toBe('{"url":"x"}')
      // No arguments at all is an empty object, not a crash.
      expect(textOf(yield* echo.handle(undefined, env))).toContain("url is missing")
    }))

  it.effect("a bad value is said by its type, and the field's description still reaches the client", () =>
    Effect.gen(function*() {
      const tool = (name: string) => ALL_TOOLS.find((t) => t.tool.name === name)!
      const cases: ReadonlyArray<readonly [string, unknown, string]> = [
        ["browser_navigate", { url: "" }, "url: expected a string at least 1 character(s) long, got \"\""],
        ["browser_snapshot", { mode: "role" }, "mode: expected \"efficient\", got \"role\""],
        ["browser_tabs", { action: "select", index: -1 }, "index: expected a non-negative number, got -1"],
        ["browser_file_upload", { paths: [] }, "paths: expected an array of at least 1 item(s), got []"]
      ]
      for (const [name, args, said] of cases) {
        const r = yield* tool(name).handle(args, env)
        expect(r.isError, name).toBe(true)
        expect(textOf(r), name).toContain(said)
      }
      const navigate = tool("browser_navigate").tool.inputSchema as any
      expect(navigate.properties.url).toMatchObject({ type: "string", minLength: 1, description: "the URL to load" })
      const tabs = tool("browser_tabs").tool.inputSchema as any
      expect(tabs.properties.index.description).toBe("the tab, for select and close")
    }))

  it.effect("ref, or target as its synonym; neither is named", () =>
    Effect.gen(function*() {
      expect(yield* elementRef({ ref: "12" })).toBe("12")
      expect(yield* elementRef({ target: "e3" })).toBe("e3")
      expect(yield* elementRef({ ref: "12", target: "e3" })).toBe("12")
      const neither = yield* Effect.flip(elementRef({}))
      expect(neither.message).toMatch(/^ref is missing/)
    }))

  it("the gateway's hints name tools instead of CLI commands", () => {
    expect(toolHints("take a fresh snapshot (`svc browser snapshot`, or `svc browser snapshot --interactive`) and use a [ref=…] from it"))
      .toBe("take a fresh snapshot (browser_snapshot, or browser_snapshot {interactive: true}) and use a [ref=…] from it")
    expect(toolHints("arm it with `svc browser dialog --accept`")).toBe("arm it with browser_handle_dialog")
  })
})
