import { HttpApiBuilder, HttpMiddleware, HttpRouter, HttpServer, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { type Effect, Layer } from "effect"
import { createServer } from "node:http"
import { ControlApi } from "../api/ControlApi.js"
import { OpenApiHttpLive } from "../api/openApiHttp.js"
import { BrowserHttpLive } from "../browser/http.js"
import type { Credentials } from "../http/guards.js"
import { ShortDecodeErrorsLive } from "../http/decodeErrors.js"
import { guard } from "../http/middleware.js"
import { type ChannelsApi, makeChannels, MsgbridgeChannels } from "../msgbridge/channel/Channels.js"
import { MessagingHttpLive } from "../msgbridge/http.js"
import { isLoopbackHostname } from "../platform/loopback.js"
import { VERSION } from "../version.js"
import { GatewayHttpLive } from "./http.js"
import { GatewayStatusLive } from "./Status.js"
import { AgentStatus, EchoAgentStatus } from "../agent/model/AgentStatus.js"

/** The browser control server: 127.0.0.1:<control port>, never another interface. */
export const ControlServerLive = (options: {
  readonly port: number
  readonly credentials: Credentials
  /** The running messaging accounts (none by default). */
  readonly channels?: ChannelsApi
  /** What `svc status` says about the agent (echo by default). */
  readonly agentStatus?: AgentStatus["Type"]
}) =>
  HttpApiBuilder.serve(guard({ credentials: options.credentials, checkHost: true })).pipe(
    Layer.provide(ShortDecodeErrorsLive),
    Layer.provide(HttpApiBuilder.api(ControlApi)),
    Layer.provide(Layer.mergeAll(BrowserHttpLive, MessagingHttpLive, GatewayHttpLive, OpenApiHttpLive)),
    Layer.provide(GatewayStatusLive),
    Layer.provide(options.agentStatus !== undefined ? Layer.succeed(AgentStatus, options.agentStatus) : EchoAgentStatus),
    Layer.provide(Layer.succeed(MsgbridgeChannels, options.channels ?? makeChannels([]))),
    HttpServer.withLogAddress,
    Layer.provide(NodeHttpServer.layer(createServer, { port: options.port, host: "127.0.0.1" }))
  )

/**
 * The gateway port: loopback unless gateway.bind says otherwise. /health (and anything unknown) needs the
 * gateway credentials; each msgbridge account's webhook has its own auth (the channel
 * password, see http/webhook.ts). Node-host connections arrive here in a later capability.
 */
export const GatewayServerLive = (options: {
  readonly port: number
  readonly bind: string
  readonly credentials: Credentials
  /** One per running msgbridge account. */
  readonly webhooks?: ReadonlyArray<{
    readonly path: string
    readonly handler: Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest>
  }>
}) => {
  const guarded = guard({ credentials: options.credentials, checkHost: isLoopbackHostname(options.bind) })
  const withHealth = HttpRouter.empty.pipe(
    HttpRouter.get("/health", guarded(HttpServerResponse.unsafeJson({ ok: true, version: VERSION })))
  )
  const withWebhooks = (options.webhooks ?? []).reduce(
    (router, hook) => router.pipe(HttpRouter.post(hook.path as HttpRouter.PathInput, hook.handler)),
    withHealth
  )
  return withWebhooks.pipe(
    HttpRouter.all("*", guarded(HttpServerResponse.unsafeJson({ error: "not found" }, { status: 404 }))),
    HttpServer.serve(),
    // No request spans here: a webhook URL carries the channel password in its query string.
    HttpMiddleware.withTracerDisabledWhen(() => true),
    Layer.provide(NodeHttpServer.layer(createServer, { port: options.port, host: options.bind }))
  )
}

