import { OpenApi } from "@effect/platform"
import { describe, expect, it } from "vitest"
import { ControlApi } from "../../../src/api/ControlApi.js"
import { cleanSchema, finishDocument } from "../../../src/api/openApiDocument.js"
import { GROUP_DESCRIPTIONS, OPERATION_DESCRIPTIONS } from "../../../src/api/openApiText.js"
import { VERSION } from "../../../src/version.js"
import { coverageProblems, definedRoutes, deref, operations, structuralProblems } from "../../support/openApi.js"

// The control API's OpenAPI document as generated from the one API definition (no server): valid in
// shape, complete, and free of what the generator gets wrong for our schemas.

const doc = OpenApi.fromApi(ControlApi) as unknown as Record<string, any>

describe("the control API's OpenAPI document", () => {
  it("is OpenAPI 3.1: every $ref resolves, operationIds are unique, every schema is valid JSON Schema 2020-12", () => {
    expect(structuralProblems(doc)).toEqual([])
    const ids = operations(doc).map((o) => o.op["operationId"])
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids.length).toBeGreaterThan(40)
  })

  it("has every route of the definition, with its body, its 200 and its {_tag, message} errors", () => {
    const routes = definedRoutes()
    expect(routes.map((r) => r.path)).toContain("/openapi.json")
    expect(coverageProblems(doc, routes)).toEqual([])
    expect(operations(doc).length).toBe(routes.length)
  })

  it("names itself, and says which credentials every route takes", () => {
    expect(doc["info"]).toMatchObject({ title: "svc control API", version: VERSION })
    expect(doc["components"]["securitySchemes"]).toEqual({
      gatewayToken: expect.objectContaining({ type: "http", scheme: "bearer" }),
      gatewayPassword: expect.objectContaining({ type: "apiKey", in: "header", name: "x-svc-password" }),
      gatewayPasswordBasic: expect.objectContaining({ type: "http", scheme: "basic" })
    })
    expect(doc["security"]).toEqual([{ gatewayToken: [] }, { gatewayPassword: [] }, { gatewayPasswordBasic: [] }])
    // An operation's `security: []` would say it needs none.
    expect(operations(doc).filter((o) => "security" in o.op).map((o) => o.path)).toEqual([])
    const tooMany = deref(doc, doc["paths"]["/tabs"]["get"]["responses"]["429"])
    expect(deref(doc, tooMany["content"]["application/json"]["schema"])["properties"]["_tag"]).toEqual({
      type: "string",
      enum: ["TooManyRequests"]
    })
  })

  it("describes every group and route, and describes none that is not there", () => {
    const missing = operations(doc).filter((o) => typeof o.op["description"] !== "string").map((o) => o.op["operationId"])
    expect(
      missing,
      "add a line to OPERATION_DESCRIPTIONS in src/api/openApiText.ts (or annotate the endpoint: OpenApi.annotations({ description }))"
    ).toEqual([])
    const ids = new Set(operations(doc).map((o) => o.op["operationId"]))
    expect(Object.keys(OPERATION_DESCRIPTIONS).filter((id) => !ids.has(id))).toEqual([])
    const tags = (doc["tags"] as Array<{ name: string; description?: string }>)
    expect(tags.filter((t) => t.description === undefined).map((t) => t.name)).toEqual([])
    expect(Object.keys(GROUP_DESCRIPTIONS).sort()).toEqual(tags.map((t) => t.name).sort())
  })

  it("has no schema ids, no refinement titles, no anyOf nested in anyOf, no bounds beside a $ref", () => {
    const found: Array<string> = []
    const walk = (node: unknown, at: string, parentKey: string) => {
      if (Array.isArray(node)) return node.forEach((v, i) => walk(v, `${at}/${i}`, parentKey))
      if (typeof node !== "object" || node === null) return
      const o = node as Record<string, unknown>
      // Inside `properties` the keys are property names (a tab's `title`), not keywords.
      if (parentKey !== "properties") {
        if ("$id" in o) found.push(`${at}: $id`)
        if (typeof o["title"] === "string" && !at.startsWith("#/info") && !at.includes("/servers")) found.push(`${at}: title ${o["title"]}`)
        if (Array.isArray(o["anyOf"]) && o["anyOf"].some((m) => Object.keys(m as object).length === 1 && "anyOf" in (m as object))) {
          found.push(`${at}: nested anyOf`)
        }
        if ("$ref" in o && ("minimum" in o || "maximum" in o)) found.push(`${at}: bounds beside $ref`)
      }
      for (const [k, v] of Object.entries(o)) walk(v, `${at}/${k}`, parentKey === "properties" ? "" : k)
    }
    walk(doc, "#", "")
    expect(found).toEqual([])
    // The union of actions is one flat list of its 21 kinds.
    const act = doc["paths"]["/act"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    expect(act["anyOf"].map((m: any) => m.properties.kind.enum[0])).toContain("clickAt")
    expect(act["anyOf"].every((m: any) => m.type === "object")).toBe(true)
  })

  it("describes a numeric query parameter by its number and bounds, not as any string", () => {
    const params = doc["paths"]["/snapshot"]["get"]["parameters"] as Array<Record<string, any>>
    expect(params.find((p) => p["name"] === "limit")).toMatchObject({
      in: "query",
      required: false,
      schema: { type: "integer", minimum: 1, maximum: 10_000_000 }
    })
    expect(params.find((p) => p["name"] === "depth")?.["schema"]).toMatchObject({ type: "integer", minimum: 1, maximum: 1000 })
    // A flag keeps the words the server takes.
    expect(params.find((p) => p["name"] === "interactive")?.["schema"]).toEqual({ type: "string", enum: ["true", "false", "1", "0", ""] })
  })

  it("is generated once: the same document every time", () => {
    expect(OpenApi.fromApi(ControlApi)).toBe(doc)
  })
})

describe("the document checks themselves", () => {
  it("name a $ref that resolves nowhere, a repeated operationId, security [], an undeclared path parameter", () => {
    const ok = { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/Gone" } } } }
    const broken = {
      openapi: "3.1.0",
      info: { title: "t", version: "1" },
      components: { schemas: {} },
      paths: {
        "/a/{id}": { get: { operationId: "x", responses: { 200: ok } } },
        "/b": { post: { operationId: "x", security: [], responses: { 200: { description: "ok" } } } }
      }
    }
    const problems = structuralProblems(broken).join("\n")
    expect(problems).toContain("$ref #/components/schemas/Gone does not resolve")
    expect(problems).toContain("operationId x is also GET /a/{id}'s")
    expect(problems).toContain("security [] says it needs no credentials")
    expect(problems).toContain("path parameter id is not declared as required")
  })
})

describe("cleanSchema", () => {
  it("makes Schema.Unknown any value, and keeps a property named title", () => {
    expect(cleanSchema({ $id: "/schemas/unknown", title: "unknown" })).toEqual({})
    expect(
      cleanSchema({ type: "object", properties: { title: { type: "string" } }, required: ["title"], title: "x" })
    ).toEqual({ type: "object", properties: { title: { type: "string" } }, required: ["title"] })
  })

  it("flattens anyOf nested in anyOf, at any depth, and keeps an anyOf member that says more", () => {
    const a = { type: "string" }
    const b = { type: "number" }
    const c = { type: "boolean" }
    expect(cleanSchema({ anyOf: [{ anyOf: [{ anyOf: [a, b] }, c] }, a] })).toEqual({ anyOf: [a, b, c, a] })
    const described = { anyOf: [a, b], description: "a or b" }
    expect(cleanSchema({ anyOf: [described, c] })).toEqual({ anyOf: [described, c] })
  })

  it("writes a bounded ref to a simple schema out in place; a ref to a structure stays a ref", () => {
    const schemas = { Int: { type: "integer", description: "an integer" }, Tab: { type: "object", properties: {} } }
    expect(cleanSchema({ $ref: "#/components/schemas/Int", minimum: 1, maximum: 9, description: "1 to 9" }, schemas))
      .toEqual({ type: "integer", minimum: 1, maximum: 9, description: "1 to 9" })
    expect(cleanSchema({ $ref: "#/components/schemas/Int" }, schemas)).toEqual({ $ref: "#/components/schemas/Int" })
    expect(cleanSchema({ $ref: "#/components/schemas/Tab", description: "a tab" }, schemas))
      .toEqual({ $ref: "#/components/schemas/Tab", description: "a tab" })
  })

  it("finishDocument leaves the document it was given as it was", () => {
    const generated = { openapi: "3.1.0", info: { title: "t", version: "1" }, paths: { "/x": { get: { operationId: "g.x", security: [], responses: {} } } } }
    const before = JSON.stringify(generated)
    const finished = finishDocument(generated)
    expect(JSON.stringify(generated)).toBe(before)
    expect(finished["paths"]["/x"]["get"]["security"]).toBeUndefined()
  })
})
