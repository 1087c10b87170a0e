import { HttpApiBuilder, HttpMiddleware, HttpRouter, HttpServer, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { type Effect, Layer } from "effect"
import { createServer } from "node:http"
import { ControlApi } from "../api/ControlApi.js"
import { Actions } from "../browser/act/Actions.js"
import { Automate } from "../browser/act/Automate.js"
import { BrowserManager } from "../browser/launch/BrowserManager.js"
import { BrowserState } from "../browser/inspect/BrowserState.js"
import { Dialogs } from "../browser/inspect/Dialogs.js"
import { Emulation } from "../browser/inspect/Emulation.js"
import { Files } from "../browser/inspect/Files.js"
import { Inspector } from "../browser/inspect/Inspector.js"
import { Observe } from "../browser/inspect/Observe.js"
import { SafePaths } from "../browser/inspect/SafePaths.js"
import { PlaywrightSessions } from "../browser/pages/Playwright.js"
import { Refs } from "../browser/act/Refs.js"
import { Snapshots } from "../browser/snapshot/Snapshots.js"
import { Capture } from "../browser/snapshot/Capture.js"
import { Cdp } from "../browser/cdp/Cdp.js"
import { ChromeLauncher } from "../browser/launch/ChromeLauncher.js"
import { ChromeLocator } from "../browser/launch/ChromeLocator.js"
import { Profiles } from "../browser/launch/Profiles.js"
import { TabPages } from "../browser/pages/TabPages.js"
import { Tabs } from "../browser/pages/Tabs.js"
import { Trash } from "../browser/launch/Trash.js"
import { ConfigStore } from "../config/ConfigStore.js"
import { ControlHandlersLive } from "../http/ControlHandlers.js"
import type { Credentials } from "../http/guards.js"
import { isLoopbackHostname } from "../platform/loopback.js"
import { guard } from "../http/middleware.js"
import { VERSION } from "../version.js"
import { type ChannelsApi, makeChannels, MsgbridgeChannels } from "../msgbridge/channel/Channels.js"

/** What the browser services stand on: the outside world (executables, processes, CDP, the trash). */
export const BrowserLeavesLive = Layer.mergeAll(ChromeLocator.Default, ChromeLauncher.Default, Cdp.Default, Trash.Default)

/** The browser services over the given leaves (tests swap in fakes), on top of a ConfigStore. */
export const browserServices = <E, R>(leaves: Layer.Layer<ChromeLocator | ChromeLauncher | Cdp | Trash, E, R>) =>
  Layer.mergeAll(Automate.Default, Inspector.Default).pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        Capture.Default,
        Refs.Default,
        Snapshots.Default,
        Actions.Default,
        TabPages.Default,
        Observe.Default,
        Dialogs.Default,
        Files.Default,
        BrowserState.Default,
        Emulation.Default,
        SafePaths.Default
      )
    ),
    Layer.provideMerge(Tabs.Default),
    Layer.provideMerge(PlaywrightSessions.Default),
    Layer.provideMerge(BrowserManager.Default),
    Layer.provideMerge(Profiles.Default),
    Layer.provideMerge(leaves)
  )

export const BrowserServicesLive = browserServices(BrowserLeavesLive)

/** The browser control server: 127.0.0.1:<control port>, never another interface. */
export const ControlServerLive = (options: {
  readonly port: number
  readonly credentials: Credentials
  /** The running messaging accounts (none by default). */
  readonly channels?: ChannelsApi
}) =>
  HttpApiBuilder.serve(guard({ credentials: options.credentials, checkHost: true })).pipe(
    Layer.provide(HttpApiBuilder.api(ControlApi)),
    Layer.provide(ControlHandlersLive),
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

export const ConfigStoreLive = ConfigStore.Default
