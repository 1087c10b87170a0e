import {
  Cookies,
  Headers,
  HttpClientError,
  type HttpClientRequest,
  HttpClientResponse,
  HttpIncomingMessage,
  UrlParams
} from "@effect/platform"
import { Effect, Exit, Inspectable, Option, Stream } from "effect"
import type * as NodeHttp from "node:http"

// The one reader of HTTP client responses that arrive over node:http, for the CLI's lean client and the
// bridge transport (on every webhook reply's path). The body is read once, lazily, by callbacks (no fiber
// per read) and kept, so text, json and arrayBuffer share it. Nothing here loads node:http: the message
// is handed in, so this module is safe in the CLI's start-up snapshot.

/** What arrived before the body. node's IncomingMessage is one; a buffered response makes its own. */
export interface ResponseHead {
  readonly statusCode?: number | undefined
  readonly statusMessage?: string | undefined
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  readonly socket?: { readonly remoteAddress?: string | undefined } | null | undefined
}

/** How the body arrives. */
export interface ResponseBody {
  /**
   * Read it whole, failing past `maxBytes`: calls `done` once, and returns how to abandon the read (which
   * may still end in a call of `done` with a failure).
   */
  readonly read: (maxBytes: number | undefined, done: (exit: Exit.Exit<Uint8Array, unknown>) => void) => () => void
  /** The body as it arrives; without it, `stream` reads the body whole and gives it as one chunk. */
  readonly stream?: (onError: (cause: unknown) => HttpClientError.ResponseError) => Stream.Stream<Uint8Array, HttpClientError.ResponseError>
}

const utf8 = (bytes: Uint8Array) =>
  (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)).toString("utf8")

const tooLarge = (maxBytes: number) => new Error(`the response body is larger than ${maxBytes} bytes`)

/** A response over a head and a body; the body is read on first use (honouring MaxBodySize) and kept. */
export class NodeClientResponse extends Inspectable.Class implements HttpClientResponse.HttpClientResponse {
  readonly [HttpClientResponse.TypeId]: HttpClientResponse.TypeId = HttpClientResponse.TypeId
  readonly [HttpIncomingMessage.TypeId]: HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId
  private bodyExit: Exit.Exit<Uint8Array, HttpClientError.ResponseError> | undefined
  private waiting: Array<(exit: Exit.Exit<Uint8Array, HttpClientError.ResponseError>) => void> | undefined
  private cachedHeaders: Headers.Headers | undefined

  constructor(
    readonly request: HttpClientRequest.HttpClientRequest,
    private readonly head: ResponseHead,
    private readonly source: ResponseBody
  ) {
    super()
  }

  private readonly decodeError = (cause: unknown) =>
    new HttpClientError.ResponseError({ request: this.request, response: this, reason: "Decode", cause })

  get status(): number {
    return this.head.statusCode ?? 0
  }
  get headers(): Headers.Headers {
    return (this.cachedHeaders ??= Headers.fromInput(this.head.headers as Record<string, string | ReadonlyArray<string> | undefined>))
  }
  get cookies(): Cookies.Cookies {
    const header = this.head.headers["set-cookie"]
    return header === undefined ? Cookies.empty : Cookies.fromSetCookie(header)
  }
  get remoteAddress(): Option.Option<string> {
    return Option.fromNullable(this.head.socket?.remoteAddress)
  }

  /** The whole body: the first reader starts the read, later ones wait for it or get what it got. */
  get body(): Effect.Effect<Uint8Array, HttpClientError.ResponseError> {
    if (this.bodyExit !== undefined) return this.bodyExit
    return Effect.flatMap(HttpIncomingMessage.MaxBodySize, (maxBodySize) => {
      const max = Option.getOrUndefined(maxBodySize)
      return Effect.async<Uint8Array, HttpClientError.ResponseError>((resume) => {
        if (this.bodyExit !== undefined) return resume(this.bodyExit)
        if (this.waiting !== undefined) {
          this.waiting.push(resume)
          return
        }
        this.waiting = [resume]
        const abandon = this.source.read(max === undefined ? undefined : Number(max), (exit) => {
          if (this.bodyExit !== undefined) return
          const settled = (this.bodyExit = Exit.mapError(exit, this.decodeError))
          const waiting = this.waiting!
          this.waiting = undefined
          for (const w of waiting) w(settled)
        })
        // A reader interrupted half-way (a timeout): the rest of the body is of no use.
        return Effect.sync(() => {
          if (this.bodyExit === undefined) abandon()
        })
      })
    })
  }
  get text(): Effect.Effect<string, HttpClientError.ResponseError> {
    return Effect.map(this.body, utf8)
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
    return Effect.map(this.body, (b) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer)
  }
  get stream(): Stream.Stream<Uint8Array, HttpClientError.ResponseError> {
    return this.source.stream !== undefined ? this.source.stream(this.decodeError) : Stream.fromEffect(this.body)
  }
  get formData(): Effect.Effect<FormData, HttpClientError.ResponseError> {
    return Effect.flatMap(this.body, (bytes) =>
      Effect.tryPromise({
        try: () => {
          const headers = new globalThis.Headers()
          for (const [k, v] of Object.entries(this.head.headers)) {
            for (const value of typeof v === "string" ? [v] : v ?? []) headers.append(k, value)
          }
          return new Response(bytes, {
            headers,
            status: this.status,
            ...(this.head.statusMessage ? { statusText: this.head.statusMessage } : {})
          }).formData()
        },
        catch: this.decodeError
      }))
  }
  toJSON(): unknown {
    return { _id: "@effect/platform/HttpClientResponse", request: this.request.toJSON(), status: this.status }
  }
}

/** Reads a node message's body to its end (or its failure), by callbacks. */
const readIncoming = (
  source: NodeHttp.IncomingMessage,
  maxBytes: number | undefined,
  done: (exit: Exit.Exit<Uint8Array, unknown>) => void
): () => void => {
  const chunks: Array<Buffer> = []
  let size = 0
  const finish = (exit: Exit.Exit<Uint8Array, unknown>) => {
    source.off("data", onData)
    source.off("end", onEnd)
    source.off("error", onError)
    source.off("close", onClose)
    done(exit)
  }
  const onData = (chunk: Buffer) => {
    size += chunk.length
    if (maxBytes !== undefined && size > maxBytes) {
      source.destroy()
      return finish(Exit.fail(tooLarge(maxBytes)))
    }
    chunks.push(chunk)
  }
  const onEnd = () => finish(Exit.succeed(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)))
  const onError = (cause: Error) => finish(Exit.fail(cause))
  const onClose = () => {
    if (!source.complete) finish(Exit.fail(new Error("the connection closed before the response body was complete")))
  }
  source.on("data", onData)
  source.once("end", onEnd)
  source.once("error", onError)
  source.once("close", onClose)
  // Destroying the message closes it, and the close ends the read.
  return () => source.destroy()
}

// A response dropped without reading its body would hold its connection: drop the connection when the
// response is collected (the stock client does the same with its abort controller). Made on first use,
// so that the snapshot holds none.
let unreadRegistry: FinalizationRegistry<NodeHttp.IncomingMessage> | undefined
const unread = () =>
  (unreadRegistry ??= new FinalizationRegistry((source) => {
    if (!source.complete) source.destroy()
  }))

/**
 * The response of a node:http request. `stream`, when given, streams the body as it arrives (the bridge's
 * downloads); without it the body is read whole first.
 */
export const incomingResponse = (
  request: HttpClientRequest.HttpClientRequest,
  source: NodeHttp.IncomingMessage,
  stream?: (
    source: () => NodeHttp.IncomingMessage,
    onError: (cause: unknown) => HttpClientError.ResponseError
  ) => Stream.Stream<Uint8Array, HttpClientError.ResponseError>
): HttpClientResponse.HttpClientResponse => {
  const taken = () => {
    unread().unregister(body)
    return source
  }
  const body: ResponseBody = {
    read: (maxBytes, done) => readIncoming(taken(), maxBytes, done),
    ...(stream !== undefined ? { stream: (onError) => stream(taken, onError) } : {})
  }
  const response = new NodeClientResponse(request, source, body)
  unread().register(response, source, body)
  return response
}

/** A response whose body is already here: for clients that are not node:http (tests, the snapshot warm-up). */
export const bufferedResponse = (
  request: HttpClientRequest.HttpClientRequest,
  options: { readonly status: number; readonly headers?: Record<string, string>; readonly body?: Uint8Array }
): HttpClientResponse.HttpClientResponse => {
  const bytes = options.body ?? new Uint8Array(0)
  return new NodeClientResponse(request, { statusCode: options.status, headers: options.headers ?? {} }, {
    read: (maxBytes, done) => {
      done(maxBytes !== undefined && bytes.length > maxBytes ? Exit.fail(tooLarge(maxBytes)) : Exit.succeed(bytes))
      return () => {}
    }
  })
}
