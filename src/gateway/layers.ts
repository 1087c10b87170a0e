import { HttpApiBuilder, HttpMiddleware, HttpRouter, HttpServer, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { type Effect, Layer } from "effect"
import { closingServer } from "../platform/httpServer.js"
import { ControlApi } from "../api/ControlApi.js"
import { OpenApiHttpLive } from "../api/openApiHttp.js"
import { BrowserHttpLive } from "../browser/http.js"
import type { Credentials } from "../http/guards.js"
import { ShortDecodeErrorsLive } from "../http/decodeErrors.js"
import { guard } from "../http/middleware.js"
import { type ChannelsApi, makeChannels, MsgbridgeChannels } from "../msgbridge/channel/Channels.js"
import { MessagingHttpLive } from "../msgbridge/http.js"
import { forwardToNodes } from "../node/gateway/forward.js"
import { NodeRegistry } from "../node/gateway/NodeRegistry.js"
import { nodeSocketHandler } from "../node/gateway/socketRoute.js"
import { NodesHttpLive } from "../node/http.js"
import { NODE_SOCKET_PATH } from "../node/protocol.js"
import { isLoopbackHostname } from "../platform/loopback.js"
import { VERSION } from "../version.js"
import { GatewayHttpLive } from "./http.js"
import { GatewayStatusLive } from "./Status.js"
import { AgentStatus, EchoAgentStatus } from "../agent/model/AgentStatus.js"

/**
 * The control API's handlers, every group (the node registry and the browser services still to provide):
 * the control server serves them, and so does a node host, for the requests its gateway forwards.
 */
export const ControlApiLive = (
  options: { readonly channels?: ChannelsApi; readonly agentStatus?: AgentStatus["Type"] | undefined } = {}
) =>
  HttpApiBuilder.api(ControlApi).pipe(
    Layer.provide(ShortDecodeErrorsLive),
    Layer.provide(Layer.mergeAll(BrowserHttpLive, MessagingHttpLive, GatewayHttpLive, OpenApiHttpLive, NodesHttpLive)),
    Layer.provide(GatewayStatusLive),
    Layer.provide(options.agentStatus !== undefined ? Layer.succeed(AgentStatus, options.agentStatus) : EchoAgentStatus),
    Layer.provide(Layer.succeed(MsgbridgeChannels, options.channels ?? makeChannels([])))
  )

/**
 * The browser control server: 127.0.0.1:<control port>, never another interface. A request with
 * `?node=<id>` goes to that node host (node/gateway/forward.ts), after the same guard.
 */
export const ControlServerLive = (options: {
  readonly port: number
  readonly credentials: Credentials
  /** The running messaging accounts (none by default). */
  readonly channels?: ChannelsApi
  /** What `svc status` says about the agent (echo by default). */
  readonly agentStatus?: AgentStatus["Type"]
}) =>
  HttpApiBuilder.serve((app) => guard({ credentials: options.credentials, checkHost: true })(forwardToNodes(app))).pipe(
    Layer.provide(ControlApiLive(options)),
    // The same layer value as the gateway port's: one registry when both are built together.
    Layer.provide(NodeRegistry.Default),
    HttpServer.withLogAddress,
    Layer.provide(NodeHttpServer.layer(closingServer, { port: options.port, host: "127.0.0.1" }))
  )

type Handler = Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest>

/** An MCP endpoint's handlers of POST, GET and DELETE /mcp (the gateway serves them; mcp/http.ts makes them). */
export interface McpEndpoint {
  readonly post: Handler
  readonly get: Handler
  readonly del: Handler
}

/**
 * The gateway port: loopback unless gateway.bind says otherwise. /health, the node hosts' socket (`/node`),
 * MCP over HTTP (`/mcp`) and anything unknown need the gateway credentials; each msgbridge account's webhook
 * has its own auth (the channel password, see http/webhook.ts).
 */
export const GatewayServerLive = (options: {
  readonly port: number
  readonly bind: string
  readonly credentials: Credentials
  /** One per running msgbridge account. */
  readonly webhooks?: ReadonlyArray<{
    readonly path: string
    readonly handler: Handler
  }>
  /** The MCP tools over Streamable HTTP (made by mcp/http.ts), on /mcp. */
  readonly mcp?: McpEndpoint
}) => {
  const guarded = guard({ credentials: options.credentials, checkHost: isLoopbackHostname(options.bind) })
  const withHealth = HttpRouter.empty.pipe(
    HttpRouter.get("/health", guarded(HttpServerResponse.unsafeJson({ ok: true, version: VERSION }))),
    HttpRouter.get(NODE_SOCKET_PATH, guarded(nodeSocketHandler))
  )
  const withMcp = options.mcp === undefined ? withHealth : withHealth.pipe(
    HttpRouter.post("/mcp", guarded(options.mcp.post)),
    HttpRouter.get("/mcp", guarded(options.mcp.get)),
    HttpRouter.del("/mcp", guarded(options.mcp.del))
  )
  const withWebhooks = (options.webhooks ?? []).reduce(
    (router, hook) => router.pipe(HttpRouter.post(hook.path as HttpRouter.PathInput, hook.handler)),
    withMcp
  )
  return withWebhooks.pipe(
    HttpRouter.all("*", guarded(HttpServerResponse.unsafeJson({ error: "not found" }, { status: 404 }))),
    HttpServer.serve(),
    // No request spans here: a webhook URL carries the channel password in its query string.
    HttpMiddleware.withTracerDisabledWhen(() => true),
    Layer.provide(NodeRegistry.Default),
    Layer.provide(NodeHttpServer.layer(closingServer, { port: options.port, host: options.bind }))
  )
}

