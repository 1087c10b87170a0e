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
import { Chunk, Clock, Context, Data, Duration, Effect, Either, FiberId, Layer, Option, Ref, Schema, Stream } from "effect"
import { randomUUID } from "node:crypto"

// ---- errors ----

/** Nothing answers at serverUrl (connection refused, DNS failure, reset). Transient. */
export class BridgeUnreachable extends Data.TaggedError("BridgeUnreachable")<{
  readonly url: string
  readonly message: string
}> {}

/** The call took longer than its timeout. Transient. */
export class BridgeTimeout extends Data.TaggedError("BridgeTimeout")<{
  readonly route: string
  readonly timeoutMs: number
  readonly message: string
}> {}

/** 401: the password is wrong. Not transient: fix channels.msgbridge.password. */
export class BridgeAuthFailed extends Data.TaggedError("BridgeAuthFailed")<{
  readonly url: string
  readonly message: string
}> {}

/** A Private-API route failed (500) or a call needs the Private API that the server reports off. */
export class BridgeNeedsPrivateApi extends Data.TaggedError("BridgeNeedsPrivateApi")<{
  readonly route: string
  readonly message: string
}> {}

/** Any other non-2xx answer (400, 404, 500 on a plain route, 504 ...). Transient when status >= 500. */
export class BridgeHttpError extends Data.TaggedError("BridgeHttpError")<{
  readonly route: string
  readonly status: number
  readonly serverMessage: string
  readonly message: string
}> {}

/** The answer was not the documented envelope / shape. */
export class BridgeBadResponse extends Data.TaggedError("BridgeBadResponse")<{
  readonly route: string
  readonly message: string
}> {}

/** An attachment download passed its byte cap; the download was aborted there. */
export class BridgeTooLarge extends Data.TaggedError("BridgeTooLarge")<{
  readonly guid: string
  readonly maxBytes: number
  readonly message: string
}> {}

export type BridgeError =
  | BridgeUnreachable
  | BridgeTimeout
  | BridgeAuthFailed
  | BridgeNeedsPrivateApi
  | BridgeHttpError
  | BridgeBadResponse
  | BridgeTooLarge

/** Worth retrying: connection errors, timeouts, 5xx (including 504). Not 4xx, auth, Private API, shape. */
export const isTransientBridgeError = (e: BridgeError): boolean =>
  e._tag === "BridgeUnreachable" || e._tag === "BridgeTimeout" || (e._tag === "BridgeHttpError" && e.status >= 500)

// ---- wire shapes ----

export const BridgeHandle = Schema.Struct({
  address: Schema.String,
  service: Schema.optional(Schema.NullOr(Schema.String))
})

export const BridgeChat = Schema.Struct({
  guid: Schema.String,
  style: Schema.optional(Schema.NullOr(Schema.Number)),
  chatIdentifier: Schema.optional(Schema.NullOr(Schema.String)),
  displayName: Schema.optional(Schema.NullOr(Schema.String)),
  originalROWID: Schema.optional(Schema.NullOr(Schema.Number)),
  participants: Schema.optional(Schema.NullOr(Schema.Array(BridgeHandle)))
})
export type BridgeChat = typeof BridgeChat.Type

export const BridgeAttachment = Schema.Struct({
  guid: Schema.String,
  mimeType: Schema.optional(Schema.NullOr(Schema.String)),
  transferName: Schema.optional(Schema.NullOr(Schema.String)),
  totalBytes: Schema.optional(Schema.NullOr(Schema.Number)),
  uti: Schema.optional(Schema.NullOr(Schema.String)),
  width: Schema.optional(Schema.NullOr(Schema.Number)),
  height: Schema.optional(Schema.NullOr(Schema.Number))
})
export type BridgeAttachment = typeof BridgeAttachment.Type

const optStr = Schema.optional(Schema.NullOr(Schema.String))
const optNum = Schema.optional(Schema.NullOr(Schema.Number))

export const BridgeMessage = Schema.Struct({
  guid: Schema.String,
  text: optStr,
  handle: Schema.optional(Schema.NullOr(BridgeHandle)),
  isFromMe: Schema.optional(Schema.NullOr(Schema.Boolean)),
  dateCreated: optNum,
  attachments: Schema.optional(Schema.NullOr(Schema.Array(BridgeAttachment))),
  chats: Schema.optional(Schema.NullOr(Schema.Array(BridgeChat))),
  associatedMessageGuid: optStr,
  // a reaction name or a number, depending on the server version
  associatedMessageType: Schema.optional(Schema.NullOr(Schema.Union(Schema.String, Schema.Number))),
  threadOriginatorGuid: optStr,
  expressiveSendStyleId: optStr,
  balloonBundleId: optStr,
  subject: optStr,
  error: Schema.optional(Schema.Unknown),
  itemType: optNum,
  groupTitle: optStr,
  dateEdited: optNum,
  dateRetracted: optNum,
  partCount: optNum,
  tempGuid: optStr
})
export type BridgeMessage = typeof BridgeMessage.Type

export const ServerInfo = Schema.Struct({
  os_version: Schema.String,
  server_version: Schema.optional(Schema.NullOr(Schema.String)),
  private_api: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  helper_connected: Schema.optionalWith(Schema.Boolean, { default: () => false })
})
export type ServerInfo = typeof ServerInfo.Type

/** The Private API is on and its helper connected: effects, typing, reactions ... can work. */
export const privateApiUsable = (info: ServerInfo): boolean => info.private_api && info.helper_connected

/** Major version of the bridge host's OS ("15.3.1" → 15); undefined when unparseable. */
export const osMajor = (info: ServerInfo): number | undefined => {
  const n = Number.parseInt(info.os_version, 10)
  return Number.isFinite(n) ? n : undefined
}

const SuccessEnvelope = Schema.Struct({
  status: Schema.Number,
  message: Schema.optional(Schema.String),
  data: Schema.optional(Schema.Unknown)
})
const decodeEnvelope = Schema.decodeUnknownEither(SuccessEnvelope)
const FailureEnvelope = Schema.Struct({
  status: Schema.optional(Schema.Number),
  message: Schema.optional(Schema.String),
  error: Schema.optional(
    Schema.NullOr(Schema.Struct({ type: Schema.optional(Schema.String), message: Schema.optional(Schema.String) }))
  )
})

// ---- the client ----

export type SendMethod = "apple-script" | "private-api"

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

export interface SendTextParams {
  readonly chatGuid: string
  readonly message: string
  /** Explicit method; when absent, chosen by `chooseSendMethod`. */
  readonly method?: SendMethod
  /** Unique per send; generated when absent. */
  readonly tempGuid?: string
  readonly effectId?: string
  readonly subject?: string
  readonly selectedMessageGuid?: string
  readonly partIndex?: number
}

export interface SendAttachmentParams {
  readonly chatGuid: string
  /** File name the recipient sees. */
  readonly name: string
  readonly data: Uint8Array
  readonly mimeType?: string
  /** A voice memo (MP3 or CAF). */
  readonly isAudioMessage?: boolean
  readonly method?: SendMethod
  readonly tempGuid?: string
  readonly selectedMessageGuid?: string
  readonly partIndex?: number
}

export interface NewChatParams {
  readonly addresses: ReadonlyArray<string>
  readonly message: string
  readonly tempGuid?: string
  readonly service?: "iMessage" | "SMS"
  readonly method?: SendMethod
}

export interface QueryChatsParams {
  readonly limit?: number
  readonly offset?: number
  /** Default ["participants"]. */
  readonly with?: ReadonlyArray<string>
}

export type Reaction = "love" | "like" | "dislike" | "laugh" | "emphasize" | "question"

export interface ReactParams {
  readonly chatGuid: string
  readonly selectedMessageGuid: string
  readonly reaction: Reaction | `-${Reaction}`
  readonly partIndex?: number
}

export interface MessagesSinceParams {
  /** Epoch milliseconds. */
  readonly after: number
  readonly limit?: number
  /** Default ["chat", "chat.participants", "attachment"]. */
  readonly with?: ReadonlyArray<string>
}

export interface BridgeClientApi {
  /** serverUrl normalised (scheme added, no trailing slash, never the password). */
  readonly baseUrl: string
  readonly ping: Effect.Effect<void, BridgeError>
  /** Cached for serverInfoTtlMs. */
  readonly serverInfo: Effect.Effect<ServerInfo, BridgeError>
  /** Fetch server info now and refresh the cache. */
  readonly refreshServerInfo: Effect.Effect<ServerInfo, BridgeError>
  /** The method a send will use when none is given (see chooseSendMethod). */
  readonly sendMethodFor: (needsPrivateApi: boolean) => Effect.Effect<SendMethod, BridgeNeedsPrivateApi>
  readonly sendText: (params: SendTextParams) => Effect.Effect<BridgeMessage, BridgeError>
  readonly sendAttachment: (params: SendAttachmentParams) => Effect.Effect<BridgeMessage, BridgeError>
  readonly startTyping: (chatGuid: string) => Effect.Effect<void, BridgeError>
  /** Best effort: DELETE is unreliable on some server versions, and errors are ignored. */
  readonly stopTyping: (chatGuid: string) => Effect.Effect<void>
  readonly markRead: (chatGuid: string) => Effect.Effect<void, BridgeError>
  readonly newChat: (params: NewChatParams) => Effect.Effect<BridgeChat, BridgeError>
  readonly queryChats: (params?: QueryChatsParams) => Effect.Effect<ReadonlyArray<BridgeChat>, BridgeError>
  readonly react: (params: ReactParams) => Effect.Effect<void, BridgeError>
  readonly edit: (params: {
    readonly messageGuid: string
    readonly editedMessage: string
    readonly backwardsCompatibilityMessage?: string
    readonly partIndex?: number
  }) => Effect.Effect<void, BridgeError>
  readonly unsend: (params: { readonly messageGuid: string; readonly partIndex?: number }) => Effect.Effect<void, BridgeError>
  readonly renameGroup: (params: { readonly chatGuid: string; readonly displayName: string }) => Effect.Effect<void, BridgeError>
  readonly setGroupIcon: (params: {
    readonly chatGuid: string
    readonly data: Uint8Array
    readonly name: string
    readonly mimeType?: string
  }) => Effect.Effect<void, BridgeError>
  readonly addParticipant: (params: { readonly chatGuid: string; readonly address: string }) => Effect.Effect<void, BridgeError>
  readonly removeParticipant: (params: { readonly chatGuid: string; readonly address: string }) => Effect.Effect<void, BridgeError>
  readonly leaveGroup: (chatGuid: string) => Effect.Effect<void, BridgeError>
  /** GET message/:guid?with=chats,attachment. */
  readonly messageByGuid: (guid: string) => Effect.Effect<BridgeMessage, BridgeError>
  readonly messagesSince: (params: MessagesSinceParams) => Effect.Effect<ReadonlyArray<BridgeMessage>, BridgeError>
  /**
   * The attachment's bytes as a stream, failing with BridgeTooLarge as soon as more than maxBytes arrive
   * (or at once when Content-Length says so); the request is aborted then, nothing is buffered.
   */
  readonly downloadAttachment: (guid: string, maxBytes: number) => Stream.Stream<Uint8Array, BridgeError>
  /** downloadAttachment collected (bounded by maxBytes). */
  readonly downloadAttachmentBytes: (guid: string, maxBytes: number) => Effect.Effect<Uint8Array, BridgeError>
}

/**
 * The send-method rule (the bridge needs `method` explicitly):
 * - effects, subjects and replies need `private-api`; when server info says the Private API is off or its
 *   helper is not connected, such a send fails at once with BridgeNeedsPrivateApi (it could not succeed);
 * - otherwise `private-api` when server info says the helper is connected (faster, no AppleScript),
 * - else `apple-script` (also when server info cannot be read).
 */
export const chooseSendMethod = (needsPrivateApi: boolean, info: ServerInfo | undefined): SendMethod | "unavailable" => {
  if (needsPrivateApi) return info === undefined || privateApiUsable(info) ? "private-api" : "unavailable"
  return info !== undefined && privateApiUsable(info) ? "private-api" : "apple-script"
}

/** "mac.local:1234/" → "http://mac.local:1234". */
export const normaliseServerUrl = (serverUrl: string): string => {
  const trimmed = serverUrl.trim().replace(/\/+$/, "")
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`
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

/**
 * `self`, or `onTimeout()` once it has run `ms` milliseconds (wall clock), `self` then interrupted (which
 * aborts its request). Every bridge call goes through this, so it costs one child fiber and a timer where
 * Effect.timeoutFail races two fibers and merges their state back (measured ~50-80 µs more per call).
 */
const withTimeout = <A, E, E2>(self: Effect.Effect<A, E>, ms: number, onTimeout: () => E2): Effect.Effect<A, E | E2> =>
  Effect.flatMap(Effect.fork(self), (child) =>
    Effect.async<A, E | E2>((resume) => {
      let settled = false
      const timer = setTimeout(() => {
        if (settled) return
        settled = true
        child.unsafeInterruptAsFork(FiberId.none)
        resume(Effect.fail(onTimeout()))
      }, ms)
      child.addObserver((exit) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        resume(exit)
      })
      return Effect.sync(() => {
        settled = true
        clearTimeout(timer)
        child.unsafeInterruptAsFork(FiberId.none)
      })
    }))

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
    const redact = (text: string): string => {
      let out = text.replace(/([?&](?:password|guid|token)=)[^&\s"']*/gi, "$1***")
      for (const form of new Set([password, enc(password), new URLSearchParams({ p: password }).toString().slice(2)])) {
        if (form.length > 0) out = out.split(form).join("***")
      }
      return out
    }

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
