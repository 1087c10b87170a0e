import type { HttpClient } from "@effect/platform"
import { Context, Effect, Layer } from "effect"
import { ariaSnapshot } from "./ariaSnapshot.js"
import { CdpDiscovery, DiscoveryHttpClient } from "./discovery.js"
import { type CdpEndpoint, isWebSocketUrl, parseEndpoint } from "./endpoints.js"
import { protocolToUnavailable } from "./messages.js"
import type { ImageType } from "./png.js"
import { screenshot } from "./screenshot.js"
import { openConnection } from "./socket/connection.js"
import { makeConnectionPool, type PoolOptions } from "./socket/pool.js"
import * as Tabs from "./tabs.js"
import { normaliseTabUrl } from "./tabUrl.js"

// The Chrome DevTools Protocol spoken directly (no automation library): tabs, the accessibility tree,
// screenshots. Everything goes over the browser-level websocket with flat sessions, which works the same for
// a managed Chromium, a remote one behind a proxy (path and query kept) and a bare ws:// endpoint.

export type CdpOptions = PoolOptions

const makeWith = (discovery: CdpDiscovery, options: CdpOptions = {}) =>
  Effect.gen(function*() {
    const { withConnection } = yield* makeConnectionPool(
      (ep) => Effect.flatMap(discovery.webSocketUrl(ep), (wsUrl) => openConnection(ep, wsUrl)),
      options
    )

    const version = Effect.fn("Cdp.version")(function*(ep: CdpEndpoint) {
      const base = yield* parseEndpoint(ep)
      if (!isWebSocketUrl(base)) return yield* discovery.version(ep, base)
      return yield* withConnection(ep, (conn) =>
        conn.send("Browser.getVersion").pipe(
          Effect.mapError(protocolToUnavailable(ep)),
          Effect.map((v) => ({ browser: v.product, protocolVersion: v.protocolVersion, webSocketDebuggerUrl: ep.url }))
        ))
    })

    const listTabs = Effect.fn("Cdp.listTabs")(function*(ep: CdpEndpoint) {
      return yield* withConnection(ep, Tabs.listTabs)
    })

    const openTab = Effect.fn("Cdp.openTab")(function*(ep: CdpEndpoint, url: string) {
      const target = normaliseTabUrl(url)
      if (typeof target !== "string") return yield* target
      return yield* withConnection(ep, (conn) => Tabs.openTab(conn, target))
    })

    const activateTab = Effect.fn("Cdp.activateTab")(function*(ep: CdpEndpoint, targetId: string) {
      yield* withConnection(ep, (conn) => Tabs.activateTab(conn, targetId))
    })

    const closeTab = Effect.fn("Cdp.closeTab")(function*(ep: CdpEndpoint, targetId: string, withinMs?: number) {
      return yield* withConnection(ep, (conn) => Tabs.closeTab(conn, targetId, withinMs))
    })

    const snapshot = Effect.fn("Cdp.ariaSnapshot")(function*(
      ep: CdpEndpoint,
      targetId: string,
      opts: { readonly limit?: number | undefined }
    ) {
      return yield* withConnection(ep, (conn) => ariaSnapshot(conn, targetId, opts))
    })

    const capture = Effect.fn("Cdp.screenshot")(function*(
      ep: CdpEndpoint,
      targetId: string,
      opts: { readonly fullPage?: boolean | undefined; readonly type?: ImageType | undefined; readonly allTabsListed?: boolean | undefined }
    ) {
      return yield* withConnection(ep, (conn) => screenshot(conn, targetId, opts))
    })

    return {
      version,
      listTabs,
      openTab,
      activateTab,
      closeTab,
      ariaSnapshot: snapshot,
      screenshot: capture
    } as const
  })

/**
 * The service's implementation for the caller's scope, over its own node HTTP client (built into that
 * scope, so it lives as long as the connections do): for tests and scripts that have no layer graph.
 */
export const makeCdp = (options: CdpOptions = {}) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(CdpDiscovery.Default.pipe(Layer.provide(DiscoveryHttpClient)))
    return yield* makeWith(Context.get(context, CdpDiscovery), options)
  })

export class Cdp extends Effect.Service<Cdp>()("svc/Cdp", {
  scoped: Effect.flatMap(CdpDiscovery, (discovery) => makeWith(discovery)),
  dependencies: [CdpDiscovery.Default]
}) {
  /** The service with explicit options (for example without connection reuse, to compare). */
  static readonly layer = (options: CdpOptions): Layer.Layer<Cdp, never, HttpClient.HttpClient> =>
    Layer.scoped(Cdp, Effect.flatMap(CdpDiscovery, (d) => Effect.map(makeWith(d, options), (impl) => Cdp.make(impl))))
      .pipe(Layer.provide(CdpDiscovery.Default))
}
