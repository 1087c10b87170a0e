// The bridge server's REST API (../shared/BRIDGE-API.md), as one client per account.
//
// A pipeline over HttpClient: every request gets `<serverUrl>/api/v1` prepended and `?password=` appended
// (the server reads it from the query string only), non-2xx answers become tagged errors that say what
// happened, and bodies are decoded from the {status, message, data} envelope with Schema.
//
// No transport-level retry (HttpClient.retryTransient): most calls are non-idempotent sends, and the
// outbound path owns the retry policy (Outbound.ts, bounded exponential backoff on transient errors).

import { HttpBody, HttpClient, HttpClientRequest, HttpClientResponse } from "@effect/platform"
import type { HttpClientError } from "@effect/platform"
import { Chunk, Clock, Context, Duration, Effect, Either, Layer, Option, Ref, Schema, Stream } from "effect"
import { randomUUID } from "node:crypto"
import type { BridgeClientApi, SendAttachmentParams, SendTextParams } from "./calls.js"
import {
  BridgeAuthFailed,
  BridgeBadResponse,
  type BridgeError,
  BridgeHttpError,
  BridgeNeedsPrivateApi,
  BridgeTimeout,
  BridgeTooLarge,
  BridgeUnreachable
} from "./errors.js"
import { BridgeChat, BridgeMessage, decodeEnvelope, FailureEnvelope } from "./schemas.js"
import { chooseSendMethod, type SendMethod, ServerInfo } from "./serverInfo.js"
import { withTimeout } from "./timeout.js"
import { normaliseServerUrl, redactor } from "./url.js"

export interface BridgeClientOptions {
  /** The bridge server, e.g. "http://mac.local:1234"; without a scheme, http:// is assumed. */
  readonly serverUrl: string
  readonly password: string
  /** Timeout of every call but sends (default 10 s). */
  readonly timeoutMs?: number
  /** Timeout of text and attachment sends and chat/new (default 30 s: Private-API sends can be slow). */
  readonly sendTimeoutMs?: number
  /** How long server info is cached (default 60 s). */
  readonly serverInfoTtlMs?: number
}

/** A unique tempGuid for one send. */
export const newTempGuid = (): string => `temp-${randomUUID()}`

const DEFAULT_TIMEOUT_MS = 10_000
const DEFAULT_SEND_TIMEOUT_MS = 30_000
const DEFAULT_INFO_TTL_MS = 60_000

interface Route {
  /** "POST /message/text": what error messages show. */
  readonly label: string
  /** A route that only works through the Private API helper: a 500 there means the helper is missing. */
  readonly privateApi: boolean
  readonly timeoutMs: number
}

const enc = encodeURIComponent
const Unit = Schema.Unknown

export const makeBridgeClient = (options: BridgeClientOptions): Effect.Effect<BridgeClientApi, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const baseUrl = normaliseServerUrl(options.serverUrl)
    const password = options.password
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
    const sendTimeoutMs = options.sendTimeoutMs ?? DEFAULT_SEND_TIMEOUT_MS
    const infoTtlMs = options.serverInfoTtlMs ?? DEFAULT_INFO_TTL_MS

    /** Never let the password reach a message or a log line. */
    const redact = redactor(password)

    const client = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest((req) =>
        req.pipe(HttpClientRequest.prependUrl(`${baseUrl}/api/v1`), HttpClientRequest.setUrlParam("password", password))
      ),
      HttpClient.filterStatusOk,
      // No client spans: they would record the full URL, password included, and cost a span per call.
      HttpClient.withTracerDisabledWhen(() => true)
    )

    const describeFailure = (route: Route, status: number, serverMessage: string): BridgeError => {
      const detail = serverMessage === "" ? "" : `: ${redact(serverMessage)}`
      if (status === 401) {
        return new BridgeAuthFailed({
          url: baseUrl,
          message: `the bridge server refused the password (channels.msgbridge.password) at ${baseUrl}${detail}`
        })
      }
      if (status === 500 && route.privateApi) {
        return new BridgeNeedsPrivateApi({
          route: route.label,
          message: `${route.label} failed (500${detail}): this call needs the Private API helper; turn on the Private API on the bridge server and check that its helper is connected`
        })
      }
      const what = status === 504
        ? "the bridge server timed out talking to the messaging app (504)"
        : status === 404
        ? "not found (404)"
        : status === 400
        ? "the bridge server rejected the request (400)"
        : `the bridge server answered ${status}`
      return new BridgeHttpError({
        route: route.label,
        status,
        serverMessage: redact(serverMessage),
        message: `${route.label}: ${what}${detail}`
      })
    }

    const fromHttpError = (route: Route) => (e: HttpClientError.HttpClientError): Effect.Effect<never, BridgeError> => {
      if (e._tag === "RequestError") {
        const cause = e.cause as { code?: unknown; message?: unknown } | undefined
        const code = typeof cause?.code === "string" ? ` (${cause.code})` : ""
        return Effect.fail(
          e.reason === "Transport"
            ? new BridgeUnreachable({ url: baseUrl, message: `no bridge server answers at ${baseUrl}${code}; check channels.msgbridge.serverUrl and that the server is running` })
            : new BridgeBadResponse({ route: route.label, message: `${route.label}: could not send the request (${e.reason}): ${redact(String(cause?.message ?? e.description ?? ""))}` })
        )
      }
      if (e.reason === "StatusCode") {
        const status = e.response.status
        return e.response.json.pipe(
          Effect.flatMap(Schema.decodeUnknown(FailureEnvelope)),
          Effect.map((env) => env.error?.message ?? env.message ?? ""),
          Effect.orElseSucceed(() => ""),
          Effect.flatMap((serverMessage) => Effect.fail(describeFailure(route, status, serverMessage)))
        )
      }
      return Effect.fail(new BridgeBadResponse({ route: route.label, message: `${route.label}: unreadable answer (${e.reason})` }))
    }

    const badShape = (route: Route) => (e: { readonly message: string }) =>
      new BridgeBadResponse({ route: route.label, message: `${route.label}: unexpected answer from the bridge server: ${redact(e.message)}` })

    const timedOut = (route: Route) =>
      new BridgeTimeout({
        route: route.label,
        timeoutMs: route.timeoutMs,
        message: `${route.label}: the bridge server at ${baseUrl} did not answer within ${route.timeoutMs} ms`
      })

    /** Execute, decode the envelope, decode `data`, map every failure to a BridgeError, apply the timeout. */
    const call = <A, I>(
      route: Route,
      request: HttpClientRequest.HttpClientRequest,
      data: Schema.Schema<A, I>
    ): Effect.Effect<A, BridgeError> =>
      client.execute(request).pipe(
        Effect.catchAll(fromHttpError(route)),
        Effect.flatMap((res) => Effect.mapError(res.json, badShape(route))),
        // Decoded synchronously (plain structs): a few effects fewer on every call.
        Effect.flatMap((body) =>
          Either.match(Either.flatMap(decodeEnvelope(body), (env) => Schema.decodeUnknownEither(data)(env.data)), {
            onLeft: (e) => Effect.fail(badShape(route)(e)),
            onRight: Effect.succeed
          })
        ),
        (self) => withTimeout(self, route.timeoutMs, () => timedOut(route))
      )

    const route = (label: string, privateApi = false, timeout = timeoutMs): Route => ({ label, privateApi, timeoutMs: timeout })
    const post = (path: string, body: unknown) => HttpClientRequest.post(path).pipe(HttpClientRequest.bodyUnsafeJson(body))

    // ---- server info, cached ----
    const infoCache = yield* Ref.make(Option.none<{ readonly info: ServerInfo; readonly at: number }>())
    const refreshServerInfo = Effect.gen(function*() {
      const info = yield* call(route("GET /server/info"), HttpClientRequest.get("/server/info"), ServerInfo)
      const at = yield* Clock.currentTimeMillis
      yield* Ref.set(infoCache, Option.some({ info, at }))
      return info
    })
    const serverInfo = Effect.gen(function*() {
      const cached = yield* Ref.get(infoCache)
      const now = yield* Clock.currentTimeMillis
      if (Option.isSome(cached) && now - cached.value.at < infoTtlMs) return cached.value.info
      return yield* refreshServerInfo
    })

    const sendMethodFor = (needsPrivateApi: boolean) =>
      serverInfo.pipe(
        Effect.option,
        Effect.flatMap((info) => {
          const choice = chooseSendMethod(needsPrivateApi, Option.getOrUndefined(info))
          return choice === "unavailable"
            ? Effect.fail(
              new BridgeNeedsPrivateApi({
                route: "send",
                message: "message effects, subjects and replies need the Private API, which is off on the bridge server (or its helper is not connected)"
              })
            )
            : Effect.succeed(choice)
        })
      )
    const methodOf = (explicit: SendMethod | undefined, needsPrivateApi: boolean) =>
      explicit !== undefined ? Effect.succeed(explicit) : sendMethodFor(needsPrivateApi)

    const sendText = (p: SendTextParams) =>
      Effect.gen(function*() {
        const needsPrivate = p.effectId !== undefined || p.subject !== undefined || p.selectedMessageGuid !== undefined
        const method = yield* methodOf(p.method, needsPrivate)
        const body: Record<string, unknown> = {
          chatGuid: p.chatGuid,
          tempGuid: p.tempGuid ?? newTempGuid(),
          message: p.message,
          method
        }
        if (p.effectId !== undefined) body.effectId = p.effectId
        if (p.subject !== undefined) body.subject = p.subject
        if (p.selectedMessageGuid !== undefined) {
          body.selectedMessageGuid = p.selectedMessageGuid
          body.partIndex = p.partIndex ?? 0
        }
        return yield* call(route("POST /message/text", false, sendTimeoutMs), post("/message/text", body), BridgeMessage)
      })

    const sendAttachment = (p: SendAttachmentParams) =>
      Effect.gen(function*() {
        const method = yield* methodOf(p.method, p.selectedMessageGuid !== undefined)
        const form = new FormData()
        form.append("attachment", new Blob([p.data], p.mimeType !== undefined ? { type: p.mimeType } : {}), p.name)
        form.append("chatGuid", p.chatGuid)
        form.append("name", p.name)
        form.append("tempGuid", p.tempGuid ?? newTempGuid())
        form.append("method", method)
        form.append("isAudioMessage", p.isAudioMessage === true ? "true" : "false")
        if (p.selectedMessageGuid !== undefined) {
          form.append("selectedMessageGuid", p.selectedMessageGuid)
          form.append("partIndex", String(p.partIndex ?? 0))
        }
        const request = HttpClientRequest.post("/message/attachment").pipe(HttpClientRequest.setBody(HttpBody.formData(form)))
        return yield* call(route("POST /message/attachment", false, sendTimeoutMs), request, BridgeMessage)
      })

    const chatPath = (chatGuid: string, rest = "") => `/chat/${enc(chatGuid)}${rest}`
    const unit = (label: string, request: HttpClientRequest.HttpClientRequest, privateApi = true) =>
      Effect.asVoid(call(route(label, privateApi), request, Unit))

    const downloadAttachment = (guid: string, maxBytes: number): Stream.Stream<Uint8Array, BridgeError> => {
      const r = route("GET /attachment/:guid/download")
      const tooLarge = () =>
        new BridgeTooLarge({ guid, maxBytes, message: `attachment ${guid} is larger than the ${maxBytes}-byte limit (channels.msgbridge.mediaMaxMb); download aborted` })
      const response = client.get(`/attachment/${enc(guid)}/download`).pipe(
        Effect.catchAll(fromHttpError(r)),
        Effect.timeoutFail({ duration: Duration.millis(r.timeoutMs), onTimeout: () => timedOut(r) }),
        Effect.tap((res) => {
          const declared = Number(res.headers["content-length"])
          return Number.isFinite(declared) && declared > maxBytes ? Effect.fail(tooLarge()) : Effect.void
        })
      )
      return HttpClientResponse.stream(response).pipe(
        Stream.catchAll((e) =>
          e._tag === "ResponseError" ? Stream.fromEffect(fromHttpError(r)(e)) : Stream.fail(e)
        ),
        Stream.mapAccumEffect(0, (total, chunk: Uint8Array) => {
          const next = total + chunk.length
          return next > maxBytes ? Effect.fail(tooLarge()) : Effect.succeed([next, chunk] as const)
        })
      )
    }

    const downloadAttachmentBytes = (guid: string, maxBytes: number) =>
      Stream.runCollect(downloadAttachment(guid, maxBytes)).pipe(
        Effect.map((chunks) => {
          const parts = Chunk.toReadonlyArray(chunks)
          const out = new Uint8Array(parts.reduce((n, c) => n + c.length, 0))
          let at = 0
          for (const c of parts) {
            out.set(c, at)
            at += c.length
          }
          return out
        })
      )

    const api: BridgeClientApi = {
      baseUrl,
      ping: Effect.asVoid(call(route("GET /ping"), HttpClientRequest.get("/ping"), Unit)),
      serverInfo,
      refreshServerInfo,
      sendMethodFor,
      sendText,
      sendAttachment,
      startTyping: (chatGuid) => unit("POST /chat/:chatGuid/typing", HttpClientRequest.post(chatPath(chatGuid, "/typing"))),
      stopTyping: (chatGuid) =>
        Effect.ignore(unit("DELETE /chat/:chatGuid/typing", HttpClientRequest.del(chatPath(chatGuid, "/typing")))),
      markRead: (chatGuid) => unit("POST /chat/:chatGuid/read", HttpClientRequest.post(chatPath(chatGuid, "/read"))),
      newChat: (p) =>
        Effect.gen(function*() {
          const method = p.method ?? (yield* sendMethodFor(p.addresses.length > 1))
          const body: Record<string, unknown> = {
            addresses: p.addresses,
            message: p.message,
            tempGuid: p.tempGuid ?? newTempGuid(),
            method
          }
          if (p.service !== undefined) body.service = p.service
          return yield* call(route("POST /chat/new", true, sendTimeoutMs), post("/chat/new", body), BridgeChat)
        }),
      queryChats: (p = {}) =>
        call(
          route("POST /chat/query"),
          post("/chat/query", { with: p.with ?? ["participants"], limit: p.limit ?? 1000, offset: p.offset ?? 0 }),
          Schema.Array(BridgeChat)
        ),
      react: (p) =>
        unit(
          "POST /message/react",
          post("/message/react", {
            chatGuid: p.chatGuid,
            selectedMessageGuid: p.selectedMessageGuid,
            reaction: p.reaction,
            partIndex: p.partIndex ?? 0
          })
        ),
      edit: (p) =>
        unit(
          "POST /message/:guid/edit",
          post(`/message/${enc(p.messageGuid)}/edit`, {
            editedMessage: p.editedMessage,
            backwardsCompatibilityMessage: p.backwardsCompatibilityMessage ?? `Edited to “${p.editedMessage}”`,
            partIndex: p.partIndex ?? 0
          })
        ),
      unsend: (p) =>
        unit("POST /message/:guid/unsend", post(`/message/${enc(p.messageGuid)}/unsend`, { partIndex: p.partIndex ?? 0 })),
      renameGroup: (p) =>
        unit(
          "PUT /chat/:chatGuid",
          HttpClientRequest.put(chatPath(p.chatGuid)).pipe(HttpClientRequest.bodyUnsafeJson({ displayName: p.displayName }))
        ),
      setGroupIcon: (p) => {
        const form = new FormData()
        form.append("icon", new Blob([p.data], p.mimeType !== undefined ? { type: p.mimeType } : {}), p.name)
        return unit(
          "POST /chat/:chatGuid/icon",
          HttpClientRequest.post(chatPath(p.chatGuid, "/icon")).pipe(HttpClientRequest.setBody(HttpBody.formData(form)))
        )
      },
      addParticipant: (p) =>
        unit("POST /chat/:chatGuid/participant/add", post(chatPath(p.chatGuid, "/participant/add"), { address: p.address })),
      removeParticipant: (p) =>
        unit("POST /chat/:chatGuid/participant/remove", post(chatPath(p.chatGuid, "/participant/remove"), { address: p.address })),
      leaveGroup: (chatGuid) => unit("POST /chat/:chatGuid/leave", HttpClientRequest.post(chatPath(chatGuid, "/leave"))),
      messageByGuid: (guid) =>
        call(
          route("GET /message/:guid"),
          HttpClientRequest.get(`/message/${enc(guid)}`).pipe(HttpClientRequest.setUrlParam("with", "chats,attachment")),
          BridgeMessage
        ),
      messagesSince: (p) =>
        call(
          route("POST /message/query"),
          post("/message/query", {
            after: p.after,
            sort: "ASC",
            limit: p.limit ?? 100,
            with: p.with ?? ["chat", "chat.participants", "attachment"]
          }),
          Schema.Array(BridgeMessage)
        ),
      downloadAttachment,
      downloadAttachmentBytes
    }
    return api
  })

/** One account's bridge client. Build it per account with `BridgeClient.layer(options)`. */
export class BridgeClient extends Context.Tag("svc/msgbridge/BridgeClient")<BridgeClient, BridgeClientApi>() {
  static readonly layer = (options: BridgeClientOptions): Layer.Layer<BridgeClient, never, HttpClient.HttpClient> =>
    Layer.effect(BridgeClient, makeBridgeClient(options))
}
