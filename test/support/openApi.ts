import { HttpApi, HttpMethod } from "@effect/platform"
import Ajv2020 from "ajv/dist/2020.js"
import { ControlApi } from "../../src/api/ControlApi.js"

// Checks of an OpenAPI 3.1 document, shared by the unit test (the document as generated) and the e2e test
// (the document the gateway serves and the CLI prints). Each returns what is wrong, in words; [] is fine.

type Json = Record<string, any>

/** Every route the server serves, from the API definition (as test/e2e/hostile-requests walks them). */
export interface DefinedRoute {
  readonly method: string
  readonly path: string
  readonly operationId: string
  readonly hasPayload: boolean
  readonly hasSuccess: boolean
}

export const definedRoutes = (): Array<DefinedRoute> => {
  const routes: Array<DefinedRoute> = []
  HttpApi.reflect(ControlApi, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint, group, payloads, successes }) =>
      void routes.push({
        method: endpoint.method,
        path: endpoint.path,
        operationId: `${group.identifier}.${endpoint.name}`,
        hasPayload: HttpMethod.hasBody(endpoint.method) && payloads.size > 0,
        hasSuccess: [...successes.values()].some((s) => s.ast._tag === "Some")
      })
  })
  return routes
}

/** `/tabs/:targetId` as OpenAPI writes it: `/tabs/{targetId}`. */
export const openApiPath = (path: string) => path.replace(/:(\w+)\??/g, "{$1}")

/** The value a local `$ref` points to, or undefined. */
export const resolveRef = (doc: Json, ref: string): unknown => {
  if (!ref.startsWith("#/")) return undefined
  let node: unknown = doc
  for (const raw of ref.slice(2).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~")
    if (typeof node !== "object" || node === null || !(key in node)) return undefined
    node = (node as Json)[key]
  }
  return node
}

/** A response, request body or schema with its `$ref` followed (once). */
export const deref = (doc: Json, node: unknown): Json =>
  typeof node === "object" && node !== null && typeof (node as Json)["$ref"] === "string"
    ? (resolveRef(doc, (node as Json)["$ref"]) as Json)
    : (node as Json)

const allRefs = (node: unknown, at: string, out: Array<[string, string]>) => {
  if (Array.isArray(node)) node.forEach((v, i) => allRefs(v, `${at}/${i}`, out))
  else if (typeof node === "object" && node !== null) {
    for (const [k, v] of Object.entries(node)) {
      if (k === "$ref" && typeof v === "string") out.push([at, v])
      else allRefs(v, `${at}/${k}`, out)
    }
  }
  return out
}

export const operations = (doc: Json): Array<{ path: string; method: string; op: Json }> =>
  Object.entries(doc["paths"] ?? {}).flatMap(([path, item]) =>
    Object.entries(item as Json)
      .filter(([method]) => ["get", "put", "post", "delete", "patch", "head", "options", "trace"].includes(method))
      .map(([method, op]) => ({ path, method, op: op as Json }))
  )

/** Every JSON Schema of the document that a client would validate with: parameters, bodies, responses. */
const schemasOf = (doc: Json): Array<[string, unknown]> => {
  const out: Array<[string, unknown]> = []
  for (const { method, op, path } of operations(doc)) {
    const at = `${method.toUpperCase()} ${path}`
    for (const p of op["parameters"] ?? []) out.push([`${at} parameter ${p.name}`, p.schema])
    for (const [type, media] of Object.entries(deref(doc, op["requestBody"])?.["content"] ?? {})) {
      out.push([`${at} request body ${type}`, (media as Json)["schema"]])
    }
    for (const [status, response] of Object.entries(op["responses"] ?? {})) {
      for (const [type, media] of Object.entries(deref(doc, response)?.["content"] ?? {})) {
        out.push([`${at} ${status} ${type}`, (media as Json)["schema"]])
      }
    }
  }
  return out
}

/** What is structurally wrong with the document as OpenAPI 3.1 whose schemas are JSON Schema 2020-12. */
export const structuralProblems = (doc: Json): Array<string> => {
  const problems: Array<string> = []
  if (doc["openapi"] !== "3.1.0") problems.push(`openapi is ${doc["openapi"]}, not 3.1.0`)
  if (typeof doc["info"]?.["title"] !== "string" || typeof doc["info"]?.["version"] !== "string") {
    problems.push("info needs a title and a version")
  }
  for (const [at, ref] of allRefs(doc, "#", [])) {
    if (resolveRef(doc, ref) === undefined) problems.push(`${at}: $ref ${ref} does not resolve`)
  }
  const ids = new Map<string, string>()
  for (const { method, op, path } of operations(doc)) {
    const at = `${method.toUpperCase()} ${path}`
    if (!path.startsWith("/")) problems.push(`${at}: a path starts with /`)
    const id = op["operationId"]
    if (typeof id !== "string") problems.push(`${at}: no operationId`)
    else if (ids.has(id)) problems.push(`${at}: operationId ${id} is also ${ids.get(id)}'s`)
    else ids.set(id, at)
    for (const name of [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1])) {
      const p = (op["parameters"] ?? []).find((x: Json) => x.in === "path" && x.name === name)
      if (p?.required !== true) problems.push(`${at}: path parameter ${name} is not declared as required`)
    }
    if (Object.keys(op["responses"] ?? {}).length === 0) problems.push(`${at}: no responses`)
    for (const [status, response] of Object.entries(op["responses"] ?? {})) {
      if (typeof deref(doc, response)?.["description"] !== "string") problems.push(`${at} ${status}: no description`)
    }
    const body = deref(doc, op["requestBody"])
    if (body !== undefined && Object.values(body["content"] ?? {}).some((m) => (m as Json)["schema"] === undefined)) {
      problems.push(`${at}: a request body without a schema`)
    }
    if (Array.isArray(op["security"]) && op["security"].length === 0) {
      problems.push(`${at}: security [] says it needs no credentials`)
    }
  }
  // Every schema is valid JSON Schema 2020-12 (strict: no unknown keywords, no untyped bounds); named
  // schemas are reached through one root holding them.
  const ajv = new Ajv2020.default({ strict: true, allErrors: true, validateFormats: false })
  const toRoot = (s: unknown) => JSON.parse(JSON.stringify(s ?? {}).replaceAll("\"#/components/schemas/", "\"doc#/$defs/"))
  try {
    ajv.addSchema({ $id: "doc", $defs: toRoot(doc["components"]?.["schemas"] ?? {}) })
    ajv.getSchema("doc")
  } catch (e) {
    problems.push(`components.schemas: ${(e as Error).message}`)
  }
  for (const [at, schema] of schemasOf(doc)) {
    if (schema === undefined) continue
    try {
      ajv.compile(toRoot(schema))
    } catch (e) {
      problems.push(`${at}: not valid JSON Schema: ${(e as Error).message}`)
    }
  }
  return problems
}

/** The control API's statuses every route may answer, beside 200. */
export const ERROR_STATUSES = ["400", "401", "403", "404", "409", "413", "429", "500", "501", "502", "503"]

/**
 * Every route the server serves is in the document with its method, a request body schema where it takes
 * a payload, a schema for its 200, and each error status with a `{_tag, message}` schema.
 */
export const coverageProblems = (doc: Json, routes: ReadonlyArray<DefinedRoute>): Array<string> => {
  const problems: Array<string> = []
  for (const route of routes) {
    const at = `${route.method} ${route.path}`
    const op = doc["paths"]?.[openApiPath(route.path)]?.[route.method.toLowerCase()] as Json | undefined
    if (op === undefined) {
      problems.push(`${at} is not in the document`)
      continue
    }
    if (op["operationId"] !== route.operationId) problems.push(`${at}: operationId ${op["operationId"]}, not ${route.operationId}`)
    const bodySchema = deref(doc, op["requestBody"])?.["content"]?.["application/json"]?.["schema"]
    if (route.hasPayload && bodySchema === undefined) problems.push(`${at}: takes a payload but has no request body schema`)
    const ok = deref(doc, op["responses"]?.["200"])?.["content"]?.["application/json"]?.["schema"]
    if (route.hasSuccess && ok === undefined) problems.push(`${at}: no schema for 200`)
    for (const status of ERROR_STATUSES) {
      const schema = deref(doc, op["responses"]?.[status])?.["content"]?.["application/json"]?.["schema"]
      if (schema === undefined) {
        problems.push(`${at}: no ${status} response schema`)
        continue
      }
      const members = (schema["anyOf"] ?? [schema]).map((m: unknown) => deref(doc, m))
      for (const m of members) {
        const tag = m?.["properties"]?.["_tag"]?.["enum"]
        const required = m?.["required"] ?? []
        if (!Array.isArray(tag) || m?.["properties"]?.["message"]?.["type"] !== "string" || !required.includes("_tag") || !required.includes("message")) {
          problems.push(`${at} ${status}: an error schema that is not {_tag, message}: ${JSON.stringify(m).slice(0, 120)}`)
        }
      }
    }
  }
  return problems
}
