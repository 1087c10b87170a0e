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
// request, and a response body is read once, lazily (a download stays a stream, destroyed when the stream
// stops early). Multipart and streamed bodies (attachments, group icons) are rare: they go through the
// stock client on the same agent.

import { Cookies, Headers, HttpClient, HttpClientError, type HttpClientRequest, HttpClientResponse, HttpIncomingMessage, UrlParams } from "@effect/platform"
import { NodeHttpClient, NodeStream } from "@effect/platform-node"
import { Effect, Exit, Inspectable, Layer, Option, Stream } from "effect"
import * as Http from "node:http"
import * as Https from "node:https"
import { Readable } from "node:stream"

/** Sockets kept per bridge host: more than the channel's concurrent calls, so none waits for a socket. */
export const BRIDGE_MAX_SOCKETS = 64

type Body = HttpClientRequest.HttpClientRequest["body"]

const isSimpleBody = (body: Body): boolean => body._tag === "Empty" || body._tag === "Uint8Array" || body._tag === "Raw"

// A response dropped without reading its body would hold its connection: drop the connection when the
// response is collected (the stock client does the same with its abort controller).
const unread = new FinalizationRegistry<Http.IncomingMessage>((source) => {
  if (!source.complete) source.destroy()
})

/** A response over node's IncomingMessage; the body is read once, lazily (a download stays a stream). */
class BridgeResponse extends Inspectable.Class implements HttpClientResponse.HttpClientResponse {
  readonly [HttpClientResponse.TypeId]: HttpClientResponse.TypeId = HttpClientResponse.TypeId
  readonly [HttpIncomingMessage.TypeId]: HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId
  private bodyExit: Exit.Exit<Buffer, HttpClientError.ResponseError> | undefined
  private waiting: Array<(exit: Exit.Exit<Buffer, HttpClientError.ResponseError>) => void> | undefined
  private cachedHeaders: Headers.Headers | undefined

  constructor(readonly request: HttpClientRequest.HttpClientRequest, readonly source: Http.IncomingMessage) {
    super()
    unread.register(this, source, this)
  }

  private readonly decodeError = (cause: unknown) =>
    new HttpClientError.ResponseError({ request: this.request, response: this, reason: "Decode", cause })

  get status(): number {
    return this.source.statusCode ?? 0
  }
  get headers(): Headers.Headers {
    return (this.cachedHeaders ??= Headers.fromInput(this.source.headers as Record<string, string | ReadonlyArray<string> | undefined>))
  }
  get cookies(): Cookies.Cookies {
    const header = this.source.headers["set-cookie"]
    return header === undefined ? Cookies.empty : Cookies.fromSetCookie(header)
  }
  get remoteAddress(): Option.Option<string> {
    return Option.fromNullable(this.source.socket?.remoteAddress)
  }

  /** The whole body, read on first use and kept (text, json and arrayBuffer share it). */
  get bytes(): Effect.Effect<Buffer, HttpClientError.ResponseError> {
    return Effect.async<Buffer, HttpClientError.ResponseError>((resume) => {
      if (this.bodyExit !== undefined) return resume(this.bodyExit)
      if (this.waiting !== undefined) {
        this.waiting.push(resume)
        return
      }
      this.waiting = [resume]
      unread.unregister(this)
      const chunks: Array<Buffer> = []
      const source = this.source
      const finish = (exit: Exit.Exit<Buffer, HttpClientError.ResponseError>) => {
        if (this.bodyExit !== undefined) return
        this.bodyExit = exit
        source.off("data", onData)
        const waiting = this.waiting!
        this.waiting = undefined
        for (const w of waiting) w(exit)
      }
      const onData = (chunk: Buffer) => void chunks.push(chunk)
      source.on("data", onData)
      source.once("end", () => finish(Exit.succeed(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks))))
      source.once("error", (cause) => finish(Exit.fail(this.decodeError(cause))))
      source.once("close", () => {
        if (!source.complete) finish(Exit.fail(this.decodeError(new Error("the response ended before its body was complete"))))
      })
      // A reader interrupted half-way (a timeout): drop the connection, its rest is of no use.
      return Effect.sync(() => {
        if (this.bodyExit === undefined) source.destroy()
      })
    })
  }
  get text(): Effect.Effect<string, HttpClientError.ResponseError> {
    return Effect.map(this.bytes, (b) => b.toString("utf8"))
  }
  get json(): Effect.Effect<unknown, HttpClientError.ResponseError> {
    return Effect.flatMap(this.text, (text) =>
      Effect.try({ try: () => (text === "" ? null : JSON.parse(text)), catch: this.decodeError }))
  }
  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpClientError.ResponseError> {
    return Effect.flatMap(this.text, (text) =>
      Effect.try({ try: () => UrlParams.fromInput(new URLSearchParams(text)), catch: this.decodeError }))
  }
  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpClientError.ResponseError> {
    return Effect.map(this.bytes, (b) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer)
  }
  get stream(): Stream.Stream<Uint8Array, HttpClientError.ResponseError> {
    // fromReadable destroys the source when the stream ends early (a download over its cap).
    return NodeStream.fromReadable<HttpClientError.ResponseError, Uint8Array>(() => {
      unread.unregister(this)
      return this.source
    }, this.decodeError)
  }
  get formData(): Effect.Effect<FormData, HttpClientError.ResponseError> {
    return Effect.tryPromise({
      try: () =>
        new Response(Readable.toWeb(this.source) as ReadableStream, {
          status: this.status,
          headers: new globalThis.Headers(this.headers as Record<string, string>)
        }).formData(),
      catch: this.decodeError
    })
  }
  toJSON(): unknown {
    return { _id: "@effect/platform/HttpClientResponse", request: this.request.toJSON(), status: this.status }
  }
}

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
      resume(Effect.succeed(new BridgeResponse(request, response)))
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
