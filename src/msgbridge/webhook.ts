import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect, Option, Stream } from "effect"
import * as Http from "node:http"
import type { WebhookAnswer } from "./channel/Channel.js"
import { hostnameOf, isLoopbackAddress, isLoopbackHostname } from "../platform/loopback.js"
import { authThrottle } from "../platform/authThrottle.js"
import { secretEquals } from "../platform/secrets.js"

export const WEBHOOK_MAX_BYTES = 1024 * 1024

const FORWARDING_HEADERS = ["x-forwarded-for", "x-real-ip", "forwarded", "x-forwarded-host"] as const

/** The client a forwarding header names (first hop), if any. */
const forwardedClient = (headers: Readonly<Record<string, string | undefined>>): string | undefined => {
  const xff = headers["x-forwarded-for"]?.split(",")[0]?.trim()
  if (xff !== undefined && xff !== "") return xff
  const real = headers["x-real-ip"]?.trim()
  if (real !== undefined && real !== "") return real
  const fwd = /for="?\[?([^\]";,]+)/i.exec(headers["forwarded"] ?? "")?.[1]
  return fwd
}

/**
 * Whether a browser sent the request: a page (any page the browser on this machine opened, the managed one
 * included) can post to a loopback port, but a browser always says where the request comes from (Origin,
 * Sec-Fetch-Site, -Dest, -User). A bridge server never sends those; Node's own fetch sends a lone
 * `Sec-Fetch-Mode: cors`, which alone does not mark a browser.
 */
export const fromBrowser = (headers: Readonly<Record<string, string | undefined>>): boolean =>
  headers["origin"] !== undefined ||
  headers["sec-fetch-site"] !== undefined ||
  headers["sec-fetch-dest"] !== undefined ||
  headers["sec-fetch-user"] !== undefined ||
  (headers["sec-fetch-mode"] !== undefined && headers["sec-fetch-mode"] !== "cors")

/**
 * Who may post a webhook: the account password (query `password` or `guid`, or a header of either name,
 * compared in constant time), or a direct loopback request from a bridge on this machine: a loopback Host,
 * no sign of a browser (fromBrowser), no forwarding headers. A request that carries forwarding headers is
 * proxied: only the password admits it, unless it comes from a trusted proxy that names a loopback client.
 * Checked before the body is read.
 */
export const webhookAuthorised = (input: {
  readonly url: string
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly remoteAddress: string | undefined
  readonly password: string
  readonly trustedProxies: ReadonlyArray<string>
}): boolean => {
  const query = new URL(input.url, "http://x").searchParams
  const given = [query.get("password"), query.get("guid"), input.headers["password"], input.headers["guid"]]
    .filter((g): g is string => g !== null && g !== undefined)
  if (given.some((g) => secretEquals(g, input.password))) return true
  // A wrong password is refused even from loopback.
  if (given.length > 0) return false
  const remote = input.remoteAddress
  if (remote === undefined || !isLoopbackAddress(remote)) return false
  if (fromBrowser(input.headers)) return false
  // A name that resolves here but is not a loopback name is DNS rebinding: a page of that site, not the bridge.
  const host = input.headers["host"]
  if (host === undefined || !isLoopbackHostname(hostnameOf(host))) return false
  const proxied = FORWARDING_HEADERS.some((h) => input.headers[h] !== undefined)
  if (!proxied) return true
  const trusted = input.trustedProxies.some((p) => p.replace(/^::ffff:/, "") === remote.replace(/^::ffff:/, ""))
  const client = forwardedClient(input.headers)
  return trusted && client !== undefined && isLoopbackAddress(client)
}

type ReadFailure = "too-large" | "unreadable"

/**
 * The body of a request served by node:http, read straight from its IncomingMessage: one callback-driven
 * effect per webhook instead of a Stream fold (this is on every webhook's path), capped at 1 MiB as it
 * arrives. Anything over the cap stops the read at once; node discards the rest after the answer.
 */
const readNodeBody = (source: Http.IncomingMessage): Effect.Effect<Buffer, ReadFailure> =>
  Effect.async<Buffer, ReadFailure>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    let settled = false
    const stop = () => {
      settled = true
      source.off("data", onData)
      source.off("end", onEnd)
      source.off("error", onError)
      source.off("close", onClose)
    }
    const finish = (result: Effect.Effect<Buffer, ReadFailure>) => {
      if (settled) return
      stop()
      resume(result)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength
      if (size > WEBHOOK_MAX_BYTES) finish(Effect.fail("too-large"))
      else chunks.push(chunk)
    }
    const onEnd = () => finish(Effect.succeed(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)))
    const onError = () => finish(Effect.fail("unreadable"))
    const onClose = () => finish(Effect.fail("unreadable"))
    source.on("data", onData)
    source.once("end", onEnd)
    source.once("error", onError)
    source.once("close", onClose)
    return Effect.sync(() => {
      if (!settled) stop()
    })
  })

/** The same through the platform's body stream, for a request that node:http did not serve. */
const readStreamBody = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<Buffer, ReadFailure> =>
  request.stream.pipe(
    Stream.runFoldEffect({ size: 0, chunks: [] as Array<Uint8Array> }, (acc, chunk) => {
      const size = acc.size + chunk.byteLength
      return size > WEBHOOK_MAX_BYTES ? Effect.fail("too-large" as const) : Effect.succeed({ size, chunks: [...acc.chunks, chunk] })
    }),
    Effect.mapError((e): ReadFailure => (e === "too-large" ? e : "unreadable")),
    Effect.map((acc) => Buffer.concat(acc.chunks))
  )

const readBody = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<Buffer, ReadFailure> => {
  const source = NodeHttpServerRequest.toIncomingMessage(request) as unknown
  return source instanceof Http.IncomingMessage && !source.readableDidRead ? readNodeBody(source) : readStreamBody(request)
}

/** `application/json` or a `+json` type, with or without parameters. A page can send no other type without asking first. */
const isJson = (contentType: string | undefined): boolean => {
  const type = contentType?.split(";")[0]?.trim().toLowerCase()
  return type === "application/json" || (type !== undefined && /^application\/[\w.+-]+\+json$/.test(type))
}

const answer = (a: WebhookAnswer) => HttpServerResponse.unsafeJson(a.body, { status: a.status })

/** The raw webhook route: auth first, then a body capped at 1 MiB, then JSON, then the channel. */
export const webhookHandler = (options: {
  readonly password: string
  readonly trustedProxies: ReadonlyArray<string>
  readonly handle: (body: unknown) => Effect.Effect<WebhookAnswer>
}) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const headers = request.headers as Readonly<Record<string, string | undefined>>
    const ok = webhookAuthorised({
      url: request.url,
      headers,
      remoteAddress: Option.getOrUndefined(request.remoteAddress),
      password: options.password,
      trustedProxies: options.trustedProxies
    })
    if (!ok) {
      // Slowed per address, like the control port's failures (the bridge's own webhooks never are).
      const verdict = yield* authThrottle.failed(Option.getOrElse(request.remoteAddress, () => "unknown"))
      if (verdict === "refuse") {
        return answer({ status: 429, body: { error: "webhook refused: too many failed attempts from this address; wait" } })
      }
      return answer({
        status: 401,
        body: { error: "webhook refused: pass the channel password as ?password=… in the URL registered on the bridge server" }
      })
    }
    if (!isJson(headers["content-type"])) {
      return answer({
        status: 415,
        body: { error: `webhook refused: the body must be JSON (Content-Type: application/json), not ${JSON.stringify(headers["content-type"] ?? "none")}` }
      })
    }
    const declared = Number(headers["content-length"] ?? "0")
    if (declared > WEBHOOK_MAX_BYTES) return answer({ status: 413, body: { error: "webhook body over 1 MiB" } })
    const read = yield* Effect.either(readBody(request))
    if (read._tag === "Left") {
      return read.left === "too-large"
        ? answer({ status: 413, body: { error: "webhook body over 1 MiB" } })
        : answer({ status: 400, body: { error: "could not read the webhook body" } })
    }
    let body: unknown
    try {
      body = JSON.parse(read.right.toString("utf8"))
    } catch {
      return answer({ status: 400, body: { error: "webhook body is not JSON" } })
    }
    return answer(yield* options.handle(body))
  })
