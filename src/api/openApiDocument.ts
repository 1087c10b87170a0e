import { HttpApi, OpenApiJsonSchema } from "@effect/platform"
import { Schema } from "effect"
import { API_DESCRIPTION, ERROR_DESCRIPTIONS, GROUP_DESCRIPTIONS, OPERATION_DESCRIPTIONS } from "./openApiText.js"

// What @effect/platform's OpenApi.fromApi gives for the control API, finished into a document clients can
// be generated from (applied as the API's OpenApi `transform`, so every caller of fromApi gets it):
// - every operation says `security: []`, which in OpenAPI means "no credentials needed" and overrides
//   the document's own: dropped, and the document declares what the guard (http/guards.ts) accepts;
// - a top-level union payload (ActRequest) comes out as anyOf nested 19 deep: flattened;
// - Schema.Unknown comes out as `{"$id": "/schemas/unknown", "title": "unknown"}`, the same `$id` in many
//   places (JSON Schema validators refuse a document where one id names several schemas): any value, `{}`;
// - a refinement of a named schema (Int between 1 and 120000) is a `$ref` with `minimum`/`maximum` beside
//   it, which many generators drop (OpenAPI 3.0 ignored a $ref's siblings): such a ref to a simple schema
//   is written out in place;
// - a query parameter that is a number on the server (`limit`, `depth`: NumberFromString, int, between)
//   comes out as any string: described by the number it is, with its bounds (a client sends it as text);
// - the titles Schema gives its refinements (`minLength(1)`, `between(1, 120000)`) would be taken for type
//   names by generators: dropped (the descriptions say the same in words);
// - the guard's 429 is not an error of the API definition: added; the error responses every route shares
//   are written once under components.responses, with what each status means.

type Json = Record<string, unknown>

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v)

/** The ports of the control server: gateway port + 2 (18791 unless gateway.port says otherwise). */
const SERVERS = [{
  url: "http://127.0.0.1:{port}",
  description: "the gateway's control server (loopback only)",
  variables: { port: { default: "18791", description: "the control port: gateway port + 2" } }
}]

const SECURITY_SCHEMES = {
  gatewayToken: {
    type: "http",
    scheme: "bearer",
    description: "the gateway token (gateway.auth.token in svc.json)"
  },
  gatewayPassword: {
    type: "apiKey",
    in: "header",
    name: "x-svc-password",
    description: "the gateway password (gateway.auth.password in svc.json)"
  },
  gatewayPasswordBasic: {
    type: "http",
    scheme: "basic",
    description: "HTTP Basic with the gateway password (any user name)"
  }
}

/** Any one of them will do. */
const SECURITY = Object.keys(SECURITY_SCHEMES).map((name) => ({ [name]: [] }))

/** The guard's answer to too many wrong credentials (http/middleware.ts): not an error of the API definition. */
const TOO_MANY_REQUESTS_SCHEMA = {
  type: "object",
  required: ["message", "_tag"],
  properties: { message: { type: "string" }, _tag: { type: "string", enum: ["TooManyRequests"] } },
  additionalProperties: false
}

/** The names of the shared error responses under components.responses. */
const RESPONSE_NAMES: Readonly<Record<string, string>> = {
  "400": "BadRequest",
  "401": "Unauthorized",
  "403": "Forbidden",
  "404": "NotFound",
  "409": "Conflict",
  "413": "PayloadTooLarge",
  "429": "TooManyRequests",
  "500": "InternalError",
  "501": "NotImplemented",
  "502": "BadGateway",
  "503": "BrowserUnavailable"
}

const SCHEMA_MAPS = ["properties", "patternProperties", "$defs", "dependentSchemas"] as const
const SCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"] as const
const SCHEMA_ONE = ["items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else"] as const

/** Query parameters by operationId: for each that the server decodes into a number, that number's schema. */
export type NumericQueryParameters = ReadonlyMap<string, Readonly<Record<string, unknown>>>

/** Read from the API definition (the document only has their encoded side, any string). */
export const numericQueryParameters = (api: HttpApi.HttpApi.Any): NumericQueryParameters => {
  const out = new Map<string, Record<string, unknown>>()
  HttpApi.reflect(api as HttpApi.HttpApi<string, any, any, any>, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint, group }) => {
      if (endpoint.urlParamsSchema._tag === "None") return
      const decoded = OpenApiJsonSchema.makeWithDefs(Schema.typeSchema(endpoint.urlParamsSchema.value), { defs: {} })
      if (!("properties" in decoded) || !isObject(decoded.properties)) return
      const numbers = Object.entries(decoded.properties).filter(([, p]) =>
        isObject(p) && (p["type"] === "integer" || p["type"] === "number") && !("$ref" in p)
      )
      if (numbers.length > 0) out.set(group.topLevel ? endpoint.name : `${group.identifier}.${endpoint.name}`, Object.fromEntries(numbers))
    }
  })
  return out
}

/** A schema with no structure of its own (a string with a pattern, an integer): fine to write out in place. */
const isSimple = (schema: unknown): schema is Json =>
  isObject(schema) && Object.keys(schema).every((k) => ["type", "description", "pattern", "format", "minLength", "maxLength", "minimum", "maximum", "enum"].includes(k))

/**
 * One JSON Schema, cleaned (see above); `schemas` are the named ones its refs point to. A new value, the
 * argument is left as it is.
 */
export const cleanSchema = (schema: unknown, schemas: Json = {}): unknown => {
  if (!isObject(schema)) return schema
  let out: Json = { ...schema }
  const ref = out["$ref"]
  if (typeof ref === "string" && Object.keys(out).length > 1 && ref.startsWith("#/components/schemas/")) {
    const target = schemas[ref.slice("#/components/schemas/".length)]
    if (isSimple(target)) {
      const { $ref: _, ...siblings } = out
      out = { ...target, ...siblings }
    }
  }
  if (typeof out["$id"] === "string" && out["$id"].startsWith("/schemas/")) delete out["$id"]
  if (typeof out["title"] === "string") delete out["title"]
  for (const key of SCHEMA_MAPS) {
    const map = out[key]
    if (isObject(map)) out[key] = Object.fromEntries(Object.entries(map).map(([k, v]) => [k, cleanSchema(v, schemas)]))
  }
  for (const key of SCHEMA_LISTS) {
    const list = out[key]
    if (!Array.isArray(list)) continue
    const cleaned = list.map((m) => cleanSchema(m, schemas))
    // An anyOf member that is nothing but an anyOf is its members.
    out[key] = key === "anyOf"
      ? cleaned.flatMap((m) => isObject(m) && Object.keys(m).length === 1 && Array.isArray(m["anyOf"]) ? m["anyOf"] : [m])
      : cleaned
  }
  for (const key of SCHEMA_ONE) {
    if (isObject(out[key])) out[key] = cleanSchema(out[key], schemas)
  }
  return out
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const

/** Every operation of the document, with its path and method. */
export const operationsOf = (doc: Json): Array<{ path: string; method: string; op: Json }> => {
  const out: Array<{ path: string; method: string; op: Json }> = []
  const paths = isObject(doc["paths"]) ? doc["paths"] : {}
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue
    for (const method of METHODS) {
      const op = item[method]
      if (isObject(op)) out.push({ path, method, op })
    }
  }
  return out
}

/** Clean the schemas of each `content` entry (request body or response). */
const cleanContent = (holder: unknown, schemas: Json) => {
  if (!isObject(holder) || !isObject(holder["content"])) return
  for (const media of Object.values(holder["content"])) {
    if (isObject(media) && "schema" in media) media["schema"] = cleanSchema(media["schema"], schemas)
  }
}

const finishOperation = (op: Json, operationId: string, schemas: Json, numbers: Readonly<Record<string, unknown>>) => {
  if (Array.isArray(op["security"]) && op["security"].length === 0) delete op["security"]
  const description = OPERATION_DESCRIPTIONS[operationId]
  if (description !== undefined && op["description"] === undefined) op["description"] = description
  if (Array.isArray(op["parameters"])) {
    for (const p of op["parameters"]) {
      if (!isObject(p)) continue
      const number = p["in"] === "query" ? numbers[String(p["name"])] : undefined
      if (number !== undefined && isObject(p["schema"]) && p["schema"]["type"] === "string" && !("enum" in p["schema"])) {
        p["schema"] = number
        if (isObject(number) && typeof number["description"] === "string") p["description"] = number["description"]
      }
      if ("schema" in p) p["schema"] = cleanSchema(p["schema"], schemas)
    }
  }
  cleanContent(op["requestBody"], schemas)
  const responses = isObject(op["responses"]) ? op["responses"] : (op["responses"] = {})
  responses["429"] ??= {
    description: "",
    content: { "application/json": { schema: { $ref: "#/components/schemas/TooManyRequests" } } }
  }
  for (const [status, response] of Object.entries(responses)) {
    cleanContent(response, schemas)
    const meaning = ERROR_DESCRIPTIONS[status]
    if (meaning !== undefined && isObject(response)) response["description"] = meaning
  }
}

/**
 * Error responses that most routes share, written once under components.responses and referenced; a
 * route whose answer for a status differs keeps its own.
 */
const shareErrorResponses = (doc: Json, components: Json) => {
  const ops = operationsOf(doc)
  const shared: Json = {}
  for (const [status, name] of Object.entries(RESPONSE_NAMES)) {
    const counts = new Map<string, number>()
    for (const { op } of ops) {
      const r = (op["responses"] as Json)[status]
      if (r !== undefined) counts.set(JSON.stringify(r), (counts.get(JSON.stringify(r)) ?? 0) + 1)
    }
    const common = [...counts].sort((a, b) => b[1] - a[1])[0]
    if (common === undefined || common[1] < 2) continue
    shared[name] = JSON.parse(common[0])
    for (const { op } of ops) {
      const responses = op["responses"] as Json
      if (responses[status] !== undefined && JSON.stringify(responses[status]) === common[0]) {
        responses[status] = { $ref: `#/components/responses/${name}` }
      }
    }
  }
  components["responses"] = shared
}

/**
 * The document fromApi made, finished (see above); `numbers` from numericQueryParameters. A new value:
 * fromApi's own is left as it is.
 */
export const finishDocument = (
  generated: Record<string, any>,
  numbers: NumericQueryParameters = new Map()
): Record<string, any> => {
  const doc = JSON.parse(JSON.stringify(generated)) as Json
  const info = isObject(doc["info"]) ? doc["info"] : (doc["info"] = {})
  info["description"] ??= API_DESCRIPTION
  doc["servers"] = SERVERS
  const components = isObject(doc["components"]) ? doc["components"] : (doc["components"] = {})
  const schemas = isObject(components["schemas"]) ? components["schemas"] : (components["schemas"] = {})
  // Twice: a named schema written out in place into another is itself clean by the second pass.
  for (let pass = 0; pass < 2; pass++) {
    for (const [name, schema] of Object.entries(schemas)) schemas[name] = cleanSchema(schema, schemas)
  }
  schemas["TooManyRequests"] ??= TOO_MANY_REQUESTS_SCHEMA
  components["securitySchemes"] = { ...(isObject(components["securitySchemes"]) ? components["securitySchemes"] : {}), ...SECURITY_SCHEMES }
  doc["security"] = SECURITY
  for (const { op } of operationsOf(doc)) finishOperation(op, String(op["operationId"]), schemas, numbers.get(String(op["operationId"])) ?? {})
  shareErrorResponses(doc, components)
  if (Array.isArray(doc["tags"])) {
    for (const tag of doc["tags"]) {
      if (!isObject(tag)) continue
      const description = GROUP_DESCRIPTIONS[String(tag["name"])]
      if (description !== undefined && tag["description"] === undefined) tag["description"] = description
    }
  }
  return doc
}
