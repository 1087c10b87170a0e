import { HttpClient, type HttpClientError, HttpClientRequest, HttpClientResponse } from "@effect/platform"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { type Cause, Data, Duration, Effect, Layer, type ParseResult, Schema } from "effect"
import { BrowserUnavailable } from "../../domain/errors.js"
import { basicAuthOf, redactSecrets, withoutUserinfo } from "../../domain/redact.js"
import { type CdpEndpoint, isWebSocketUrl, jsonUrl, parseEndpoint, rewriteWebSocketUrl } from "./endpoints.js"
import { authenticationFailed, describeError, hasUserinfo, unreachable } from "./messages.js"

// A browser's DevTools HTTP endpoint, asked what it is and where its websocket is: GET /json/version. One
// request serves the launcher (is the browser it started ready yet?) and the Cdp service (which websocket
// does this endpoint lead to?).

/** The fields of /json/version that svc reads, under the names svc uses. */
export const CdpVersion = Schema.Struct({
  browser: Schema.optional(Schema.String).pipe(Schema.fromKey("Browser")),
  protocolVersion: Schema.optional(Schema.String).pipe(Schema.fromKey("Protocol-Version")),
  webSocketDebuggerUrl: Schema.String
})
export type CdpVersion = typeof CdpVersion.Type

/** A loopback port did not answer /json/version as a DevTools endpoint (not yet, or not at all). */
export class CdpProbeFailed extends Data.TaggedError("CdpProbeFailed") {}

/** Bound on one probe of a loopback port. */
export const PROBE_TIMEOUT_MS = 1_000

type VersionError = HttpClientError.HttpClientError | ParseResult.ParseError | Cause.TimeoutException

/** Why an endpoint's /json/version gave no websocket, worded for a person configuring cdpUrl. */
const versionFailure = (ep: CdpEndpoint, path: string) => (e: VersionError): BrowserUnavailable => {
  const where = redactSecrets(ep.url)
  switch (e._tag) {
    case "TimeoutException":
      return new BrowserUnavailable({
        message: `the browser at ${where} did not answer ${path} within ${ep.timeoutMs} ms ` +
          `(browser.remoteCdpTimeoutMs). Check that cdpUrl points at a running browser, or raise ` +
          `browser.remoteCdpTimeoutMs for a slow link.`
      })
    case "RequestError":
      return unreachable(ep, e.cause !== undefined ? describeError(e.cause) : e.reason)
    case "ResponseError":
      if (e.reason === "StatusCode" && (e.response.status === 401 || e.response.status === 403)) {
        return authenticationFailed(`${where} (${path})`, e.response.status, hasUserinfo(ep.url))
      }
      if (e.reason === "StatusCode") {
        return new BrowserUnavailable({
          message: `${where} answered HTTP ${e.response.status} for ${path}: it does not look like a ` +
            `CDP endpoint. Check cdpUrl (it should be the browser's --remote-debugging-port address).`
        })
      }
      // A body that is not JSON, or one cut off on the way.
      if (!(e.cause instanceof SyntaxError)) return unreachable(ep, describeError(e.cause))
      return new BrowserUnavailable({
        message: `${where} answered ${path} with something that is not JSON: it does not look ` +
          `like a CDP endpoint. Check cdpUrl.`
      })
    case "ParseError":
      return new BrowserUnavailable({
        message: `${where}/json/version has no webSocketDebuggerUrl: the browser does not accept ` +
          `CDP clients (is another tool holding it, or is this not a Chromium?). Check cdpUrl.`
      })
  }
}

export class CdpDiscovery extends Effect.Service<CdpDiscovery>()("svc/CdpDiscovery", {
  effect: Effect.gen(function*() {
    const client = (yield* HttpClient.HttpClient).pipe(
      // No span or trace header per request: the launcher asks every 15 ms while Chromium starts, which would
      // fill a trace with dozens of identical spans (the Cdp methods that ask have spans of their own).
      HttpClient.withTracerDisabledWhen(() => true),
      HttpClient.withTracerPropagation(false),
      HttpClient.followRedirects(),
      HttpClient.filterStatusOk
    )

    /**
     * The one /json/version request: 2xx only, decoded, the whole exchange bounded by `timeoutMs`. Credentials
     * in the URL's userinfo go as an Authorization: Basic header (a query token stays in the URL).
     */
    const fetchVersion = (url: URL, timeoutMs: number) => {
      const auth = basicAuthOf(url)
      const request = HttpClientRequest.get(withoutUserinfo(url))
      return client.execute(auth === undefined ? request : HttpClientRequest.setHeader(request, "authorization", auth)).pipe(
        Effect.flatMap(HttpClientResponse.schemaBodyJson(CdpVersion)),
        Effect.timeout(Duration.millis(timeoutMs))
      )
    }

    /** Whether the browser on a loopback port answers yet (the launcher polls this while Chromium starts). */
    const probe = (port: number, timeoutMs = PROBE_TIMEOUT_MS): Effect.Effect<CdpVersion, CdpProbeFailed> =>
      fetchVersion(new URL(`http://127.0.0.1:${port}/json/version`), timeoutMs).pipe(
        Effect.mapError(() => new CdpProbeFailed())
      )

    /** The browser behind an http(s) endpoint, with the websocket it advertises pointed back at that endpoint. */
    const version = (ep: CdpEndpoint, base: URL): Effect.Effect<Required<CdpVersion>, BrowserUnavailable> =>
      fetchVersion(jsonUrl(base, "/json/version"), ep.timeoutMs).pipe(
        Effect.mapError(versionFailure(ep, "/json/version")),
        Effect.flatMap((v) => {
          let rewritten: string
          try {
            rewritten = rewriteWebSocketUrl(ep.url, v.webSocketDebuggerUrl)
          } catch {
            return Effect.fail(
              unreachable(ep, `it advertised an unusable websocket URL ${JSON.stringify(redactSecrets(v.webSocketDebuggerUrl))}`)
            )
          }
          return Effect.succeed({
            browser: v.browser ?? "unknown",
            protocolVersion: v.protocolVersion ?? "unknown",
            webSocketDebuggerUrl: rewritten
          })
        })
      )

    /** The browser websocket an endpoint leads to: its own URL when it is one, else the advertised one. */
    const webSocketUrl = (ep: CdpEndpoint): Effect.Effect<string, BrowserUnavailable> =>
      Effect.flatMap(parseEndpoint(ep), (base) =>
        isWebSocketUrl(base)
          ? Effect.succeed(ep.url)
          : Effect.map(version(ep, base), (v) => v.webSocketDebuggerUrl))

    return { probe, version, webSocketUrl } as const
  })
}) {}

/**
 * Node's HTTP client without keep-alive, for the /json requests: each is a fresh loopback connection, and no
 * pooled socket outlives the browser it reached (a browser is stopped and started again on the same port).
 */
export const DiscoveryHttpClient: Layer.Layer<HttpClient.HttpClient> = NodeHttpClient.layerWithoutAgent.pipe(
  Layer.provide(NodeHttpClient.makeAgentLayer({ keepAlive: false }))
)
