// The bridge client's transport: node:http over a keep-alive agent, so the channel's calls (read receipt,
// typing, send: three per reply) reuse their connections instead of paying a TCP connect each, and a lean
// request path for the bodies the bridge client sends on every reply (none or JSON).
//
// Why not NodeHttpClient.layer as it is: its agent does not keep connections alive, and every request
// forks fibers (body and response concurrently), opens an AbortController and a span. Measured on this
// machine (16 concurrent calls, loopback server in another process, keep-alive in both): ~420-600 µs of CPU
// per call through the stock client against ~100-200 µs for node:http alone; this path is ~150-190 µs. With
// three calls per reply that difference was what starved webhook intake.
//
// The lean path is one callback-driven effect per request: interrupting it (a timeout) destroys the
// request, and the response is platform/nodeResponse.ts's: its body is read once, lazily, a response
// dropped unread drops its connection, and a download stays a stream, destroyed when the stream stops
// early. Multipart and streamed bodies (attachments, group icons) are rare: they go through the
// stock client on the same agent.

import { HttpClient, HttpClientError, type HttpClientRequest, type HttpClientResponse, UrlParams } from "@effect/platform"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeStream from "@effect/platform-node/NodeStream"
import { Effect, Layer } from "effect"
import * as Http from "node:http"
import * as Https from "node:https"
import { incomingResponse } from "../../platform/nodeResponse.js"

/** Sockets kept per bridge host: more than the channel's concurrent calls, so none waits for a socket. */
export const BRIDGE_MAX_SOCKETS = 64

type Body = HttpClientRequest.HttpClientRequest["body"]

const isSimpleBody = (body: Body): boolean => body._tag === "Empty" || body._tag === "Uint8Array" || body._tag === "Raw"

/** A download stays a stream; fromReadable destroys the source when the stream ends early (over its cap). */
const streamBody = (
  source: () => Http.IncomingMessage,
  onError: (cause: unknown) => HttpClientError.ResponseError
) => NodeStream.fromReadable<HttpClientError.ResponseError, Uint8Array>(source, onError)

const requestError = (request: HttpClientRequest.HttpClientRequest, reason: "Transport" | "InvalidUrl", cause: unknown) =>
  new HttpClientError.RequestError({ request, reason, cause })

/**
 * One request with no body, a byte body or a raw body: a single callback-driven effect, no forked fibers.
 * Interrupting it (a timeout) destroys the request, like the stock client's abort signal does.
 */
const sendSimple = (agents: NodeHttpClient.HttpAgent) =>
(
  request: HttpClientRequest.HttpClientRequest
): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.RequestError> => {
  const url = UrlParams.makeUrl(request.url, request.urlParams, request.hash)
  if (url._tag === "Left") return Effect.fail(requestError(request, "InvalidUrl", url.left))
  return Effect.async((resume) => {
    let settled = false
    const options = { method: request.method, headers: request.headers }
    const nodeRequest = url.right.protocol === "https:"
      ? Https.request(url.right, { ...options, agent: agents.https })
      : Http.request(url.right, { ...options, agent: agents.http })
    nodeRequest.on("error", (cause) => {
      if (settled) return
      settled = true
      resume(Effect.fail(requestError(request, "Transport", cause)))
    })
    nodeRequest.once("response", (response) => {
      if (settled) return
      settled = true
      resume(Effect.succeed(incomingResponse(request, response, streamBody)))
    })
    const body = request.body
    if (body._tag === "Uint8Array") nodeRequest.end(body.body)
    else if (body._tag === "Raw") nodeRequest.end(body.body as string | Uint8Array)
    else nodeRequest.end()
    return Effect.sync(() => {
      if (!settled) {
        settled = true
        nodeRequest.destroy()
      }
    })
  })
}

/** The bridge HttpClient over the given agents. */
export const makeBridgeHttpClient = Effect.gen(function*() {
  const agents = yield* NodeHttpClient.HttpAgent
  const stock = yield* NodeHttpClient.make
  const lean = sendSimple(agents)
  return HttpClient.makeWith<never, never, HttpClientError.HttpClientError, never>(
    (request) => Effect.flatMap(request, (r) => (isSimpleBody(r.body) ? lean(r) : stock.execute(r))),
    Effect.succeed
  )
})

/** node:http agents that keep connections to the bridge alive (destroyed with the layer). */
export const bridgeAgentLayer = (options: { readonly maxSockets?: number } = {}) =>
  NodeHttpClient.makeAgentLayer({ keepAlive: true, maxSockets: options.maxSockets ?? BRIDGE_MAX_SOCKETS })

/** The HttpClient the msgbridge channel's BridgeClient runs on (tests may bound its sockets). */
export const bridgeHttpClientLayer = (options: { readonly maxSockets?: number } = {}): Layer.Layer<HttpClient.HttpClient> =>
  Layer.effect(HttpClient.HttpClient, makeBridgeHttpClient).pipe(Layer.provide(bridgeAgentLayer(options)))

export const BridgeHttpClientLive: Layer.Layer<HttpClient.HttpClient> = bridgeHttpClientLayer()
