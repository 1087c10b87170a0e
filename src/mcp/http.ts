import { McpSchema } from "@effect/ai"
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { makeControlClientAt } from "../client/ControlClient.js"
import type { McpEndpoint } from "../gateway/layers.js"
import { KeepAliveHttp } from "../platform/keepAliveHttp.js"
import { VERSION } from "../version.js"
import { failedResult, type McpTool, readLocalFile, type ToolEnv } from "./tool.js"
import { ALL_TOOLS } from "./tools.js"

// The MCP tools over Streamable HTTP (POST /mcp on the gateway port, behind the gateway's guard), for MCP
// clients that speak HTTP rather than spawn `svc mcp`. The same tools as `svc mcp` (ALL_TOOLS), answered
// with plain JSON (no event streams: every call is one request and one answer). `initialize` starts a
// session (`Mcp-Session-Id`); `?profile=<name>` on the URL of that request picks its browser profile.
// @effect/ai's own HTTP layer is not accepted by spec clients on this version, hence this small dispatcher.

/** Newest first; a client asking for another one is answered with the newest. */
export const PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const
/** Sessions kept at most (the oldest goes first): a client whose session went must initialize again (404). */
const MAX_SESSIONS = 1_000

type Id = string | number | null

const encodeTool = Schema.encodeSync(McpSchema.Tool)
const encodeResult = Schema.encodeSync(McpSchema.CallToolResult)

const rpcError = (id: Id, code: number, message: string) => ({ jsonrpc: "2.0", id, error: { code, message } })
const rpcResult = (id: Id, result: unknown) => ({ jsonrpc: "2.0", id, result })

/** A JSON-RPC error as the whole answer, with the HTTP status that goes with it. */
const refuse = (status: number, code: number, message: string) =>
  HttpServerResponse.unsafeJson(rpcError(null, code, message), { status })

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

export interface McpHttpOptions {
  readonly tools: ReadonlyArray<McpTool>
  /** The tools' environment for a session on `profile` (the gateway's default when undefined). */
  readonly env: (profile: string | undefined) => ToolEnv
}

/** The handlers of POST, GET and DELETE /mcp. */
export const makeMcpHttp = (options: McpHttpOptions): McpEndpoint => {
  /** Each session's tool environment, by its Mcp-Session-Id. */
  const sessions = new Map<string, ToolEnv>()
  const byName = new Map(options.tools.map((t) => [t.tool.name, t]))
  const listed = options.tools.map((t) => encodeTool(t.tool))

  const open = (profile: string | undefined) => {
    const id = randomUUID()
    sessions.set(id, options.env(profile))
    if (sessions.size > MAX_SESSIONS) sessions.delete(sessions.keys().next().value!)
    return id
  }

  /** One request's answer (requests only: notifications and responses get none). */
  const answer = (env: ToolEnv, id: Id, method: string, params: Record<string, unknown>) =>
    Effect.gen(function*() {
      switch (method) {
        case "ping":
          return rpcResult(id, {})
        case "tools/list":
          return rpcResult(id, { tools: listed })
        case "tools/call": {
          const name = params.name
          const tool = typeof name === "string" ? byName.get(name) : undefined
          if (tool === undefined) {
            return rpcError(id, -32602, `unknown tool ${JSON.stringify(name)}; tools/list names the tools`)
          }
          const result = yield* tool.handle(params.arguments ?? {}, env).pipe(
            Effect.catchAllDefect((d) => Effect.succeed(failedResult(`${name} failed: ${String(d)}`)))
          )
          return rpcResult(id, encodeResult(result))
        }
        default:
          return rpcError(id, -32601, `method ${JSON.stringify(method)} is not served here (tools/list, tools/call, ping)`)
      }
    })

  const post = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const body = yield* Effect.orElseSucceed(request.json, () => undefined as unknown)
    const messages = Array.isArray(body) ? body : [body]
    if (body === undefined || messages.length === 0 || !messages.every(isObject)) {
      return refuse(400, -32700, "the body is not a JSON-RPC message (a JSON object with jsonrpc \"2.0\")")
    }
    const headers = request.headers as Readonly<Record<string, string | undefined>>
    const initialize = messages.find((m) => m.method === "initialize")
    if (initialize !== undefined) {
      if (messages.length > 1) return refuse(400, -32600, "initialize must be sent alone")
      const params = isObject(initialize.params) ? initialize.params : {}
      const asked = params.protocolVersion
      const version = PROTOCOL_VERSIONS.find((v) => v === asked) ?? PROTOCOL_VERSIONS[0]
      const profile = new URL(request.url, "http://gateway").searchParams.get("profile") ?? undefined
      const sessionId = open(profile === "" ? undefined : profile)
      return HttpServerResponse.unsafeJson(
        rpcResult((initialize.id ?? null) as Id, {
          protocolVersion: version,
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: "svc", version: VERSION },
          instructions: "svc's browser tools: browser_navigate, then browser_snapshot for [ref=…] refs to act on."
        }),
        { headers: { "mcp-session-id": sessionId } }
      )
    }
    const sessionId = headers["mcp-session-id"]
    if (sessionId === undefined) {
      return refuse(400, -32600, "Mcp-Session-Id is missing: send initialize first, then its Mcp-Session-Id on every request")
    }
    const env = sessions.get(sessionId)
    if (env === undefined) return refuse(404, -32001, "no such MCP session (it ended, or the gateway restarted): initialize again")
    const asked = headers["mcp-protocol-version"]
    if (asked !== undefined && !PROTOCOL_VERSIONS.some((v) => v === asked)) {
      return refuse(400, -32600, `MCP-Protocol-Version ${asked} is not supported (${PROTOCOL_VERSIONS.join(", ")})`)
    }
    const requests = messages.filter((m) => typeof m.method === "string" && m.id !== undefined)
    if (requests.length === 0) return HttpServerResponse.empty({ status: 202 })
    const answers = yield* Effect.forEach(requests, (m) =>
      answer(env, m.id as Id, m.method as string, isObject(m.params) ? m.params : {}))
    return HttpServerResponse.unsafeJson(Array.isArray(body) ? answers : answers[0])
  })

  const del = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const sessionId = (request.headers as Readonly<Record<string, string | undefined>>)["mcp-session-id"]
    if (sessionId === undefined || !sessions.delete(sessionId)) return refuse(404, -32001, "no such MCP session")
    return HttpServerResponse.empty({ status: 204 })
  })

  /** No server-to-client stream is offered: every answer comes with its request. */
  const get = Effect.succeed(
    HttpServerResponse.unsafeJson(
      { _tag: "MethodNotAllowed", message: "this MCP endpoint answers POST (and DELETE to end a session); it opens no event stream" },
      { status: 405, headers: { allow: "POST, DELETE" } }
    )
  )

  return { post, get, del } as const
}

/**
 * The gateway's endpoint: every tool of `svc mcp`, calling this gateway's control port with its credentials.
 * Made at the first request to /mcp, not with the gateway: its typed client of the control API and the tools'
 * listing took 20-35 ms of the gateway's start, while the browser it starts beside it needs the same cores.
 */
export const makeGatewayMcpHttp = (
  control: { readonly baseUrl: string; readonly headers: Readonly<Record<string, string>> }
): Effect.Effect<McpEndpoint> =>
  Effect.map(
    // Made uninterruptibly: a first request that goes away meanwhile must not leave its interruption cached.
    Effect.cached(
      Effect.map(makeControlClientAt(control), ({ client }) =>
        makeMcpHttp({
          tools: ALL_TOOLS,
          env: (profile) => ({ client, query: profile !== undefined ? { profile } : {}, sandboxed: false, readFile: readLocalFile })
        })).pipe(Effect.provide(KeepAliveHttp), Effect.uninterruptible)
    ),
    (endpoint): McpEndpoint => ({
      post: Effect.flatMap(endpoint, (e) => e.post),
      get: Effect.flatMap(endpoint, (e) => e.get),
      del: Effect.flatMap(endpoint, (e) => e.del)
    })
  )
