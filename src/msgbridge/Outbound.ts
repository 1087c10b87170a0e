// Outbound delivery: a reply (a stream of blocks from the agent) to a target, through the bridge.
//
// Resolve the target to a chat, show typing while the reply is generated, chunk to textChunkLimit, send in
// order, retry transient failures with bounded exponential backoff, and report what could not be sent as a
// tagged failure: nothing is dropped silently.

import { Data, Duration, Effect, Either, Fiber, Ref, Schedule, Stream } from "effect"
import { chunkText, type ChunkMode } from "./Chunking.js"
import {
  BridgeClient,
  type BridgeChat,
  type BridgeClientApi,
  type BridgeError,
  isTransientBridgeError,
  privateApiUsable
} from "./BridgeClient.js"

// ---- errors ----

/** The target could not be parsed or resolved to a chat (not transient). */
export class OutboundTargetError extends Data.TaggedError("OutboundTargetError")<{
  readonly target: string
  readonly message: string
}> {}

/** A chunk could not be sent after its retries; `sent` chunks went out before it. */
export class OutboundDeliveryFailed extends Data.TaggedError("OutboundDeliveryFailed")<{
  readonly target: string
  readonly chatGuid: string | undefined
  /** Chunks delivered before the failure. */
  readonly sent: number
  /** Attempts made for the failing chunk. */
  readonly attempts: number
  readonly cause: BridgeError
  readonly message: string
}> {}

export type OutboundError = OutboundTargetError | OutboundDeliveryFailed

// ---- targets ----

export type DeliveryTarget =
  | { readonly _tag: "ChatGuid"; readonly chatGuid: string }
  | { readonly _tag: "ChatId"; readonly id: string }
  | { readonly _tag: "ChatIdentifier"; readonly identifier: string }
  | { readonly _tag: "Handle"; readonly address: string }

/** "+1 (555) 123-0001" → "+15551230001"; e-mail lower-cased; undefined when neither. */
export const normaliseAddress = (raw: string): string | undefined => {
  const s = raw.trim()
  if (/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(s)) return s.toLowerCase()
  const digits = s.replace(/[\s().-]/g, "")
  if (/^\+?\d{5,15}$/.test(digits)) return digits
  return undefined
}

/**
 * `chat_guid:<guid>`, `chat_id:<id>`, `chat_identifier:<id>`, a bare chat guid (contains ";-;" or ";+;"),
 * or a handle (E.164 number or e-mail address).
 */
export const parseTarget = (raw: string): Either.Either<DeliveryTarget, OutboundTargetError> => {
  const s = raw.trim()
  const after = (prefix: string) => s.slice(prefix.length).trim()
  const bad = (why: string) => Either.left(new OutboundTargetError({ target: raw, message: `cannot deliver to "${raw}": ${why}` }))
  if (s.startsWith("chat_guid:")) return after("chat_guid:") === "" ? bad("empty chat guid") : Either.right({ _tag: "ChatGuid", chatGuid: after("chat_guid:") })
  if (s.startsWith("chat_id:")) return after("chat_id:") === "" ? bad("empty chat id") : Either.right({ _tag: "ChatId", id: after("chat_id:") })
  if (s.startsWith("chat_identifier:")) {
    return after("chat_identifier:") === "" ? bad("empty chat identifier") : Either.right({ _tag: "ChatIdentifier", identifier: after("chat_identifier:") })
  }
  if (/;[-+];/.test(s)) return Either.right({ _tag: "ChatGuid", chatGuid: s })
  const address = normaliseAddress(s)
  if (address !== undefined) return Either.right({ _tag: "Handle", address })
  return bad("expected chat_guid:<guid>, chat_id:<id>, chat_identifier:<id>, an E.164 phone number or an e-mail address")
}

/** Where a reply goes: an existing chat, or a handle whose DM chat must be created by the first send. */
export type ResolvedTarget =
  | { readonly _tag: "Chat"; readonly chatGuid: string }
  | { readonly _tag: "NewChat"; readonly address: string }

const PAGE = 500
const MAX_PAGES = 40

/** The first chat (paging through chat/query) that matches. */
const findChat = (client: BridgeClientApi, matches: (chat: BridgeChat) => boolean) =>
  Effect.gen(function*() {
    for (let page = 0; page < MAX_PAGES; page++) {
      const chats = yield* client.queryChats({ limit: PAGE, offset: page * PAGE, with: ["participants"] })
      const hit = chats.find(matches)
      if (hit !== undefined) return hit
      if (chats.length < PAGE) break
    }
    return undefined
  })

const isDm = (chat: BridgeChat) => chat.style === 45 || (chat.style == null && chat.guid.includes(";-;"))

/**
 * Resolve a target. A handle maps to its existing DM chat (an iMessage chat preferred over SMS); with none,
 * it resolves to NewChat, which needs the Private API: when server info says it is off, this fails with
 * an OutboundTargetError saying so.
 */
export const resolveTarget = (client: BridgeClientApi, raw: string): Effect.Effect<ResolvedTarget, OutboundTargetError | BridgeError> =>
  Effect.gen(function*() {
    const target = yield* parseTarget(raw)
    switch (target._tag) {
      case "ChatGuid":
        return { _tag: "Chat", chatGuid: target.chatGuid } as const
      case "ChatId": {
        const chat = yield* findChat(client, (c) => c.originalROWID != null && String(c.originalROWID) === target.id)
        if (chat === undefined) return yield* new OutboundTargetError({ target: raw, message: `no chat with chat_id ${target.id} on the bridge server` })
        return { _tag: "Chat", chatGuid: chat.guid } as const
      }
      case "ChatIdentifier": {
        const want = target.identifier.toLowerCase()
        const chat = yield* findChat(client, (c) => (c.chatIdentifier ?? "").toLowerCase() === want)
        if (chat === undefined) {
          return yield* new OutboundTargetError({ target: raw, message: `no chat with chat_identifier ${target.identifier} on the bridge server` })
        }
        return { _tag: "Chat", chatGuid: chat.guid } as const
      }
      case "Handle": {
        const dmOf = (c: BridgeChat) =>
          isDm(c) &&
          ((c.participants ?? []).some((p) => normaliseAddress(p.address) === target.address) ||
            normaliseAddress(c.chatIdentifier ?? "") === target.address)
        const imessage = yield* findChat(client, (c) => dmOf(c) && !c.guid.startsWith("SMS;"))
        const chat = imessage ?? (yield* findChat(client, dmOf))
        if (chat !== undefined) return { _tag: "Chat", chatGuid: chat.guid } as const
        const info = yield* client.serverInfo
        if (!privateApiUsable(info)) {
          return yield* new OutboundTargetError({
            target: raw,
            message: `there is no chat with ${target.address} yet, and starting one (POST /api/v1/chat/new) needs the Private API, ` +
              `which is ${info.private_api ? "on but its helper is not connected" : "off"} on the bridge server: ` +
              "enable the Private API and connect its helper, or send the first message from the Mac"
          })
        }
        return { _tag: "NewChat", address: target.address } as const
      }
    }
  })

// ---- delivery ----

export interface RetryPolicy {
  /** Retries after the first attempt (default 3). */
  readonly retries?: number
  /** First backoff delay; doubles each retry (default 500 ms). */
  readonly baseDelayMs?: number
}

export interface DeliverOptions<E = never> {
  readonly target: string
  /** The reply, as the agent produces it. */
  readonly blocks: Stream.Stream<string, E> | ReadonlyArray<string>
  readonly textChunkLimit?: number
  readonly chunkMode?: ChunkMode
  /** messages.responsePrefix: on the first chunk of the reply only. */
  readonly responsePrefix?: string
  /** true: send each block as it arrives; false (default): join blocks with a blank line, send at the end. */
  readonly blockStreaming?: boolean
  /** Show typing while blocks are pending (default true; needs the Private API, skipped when it is off). */
  readonly typing?: boolean
  /** How often the typing indicator is re-sent while blocks are pending (default 5000 ms). */
  readonly typingIntervalMs?: number
  readonly retry?: RetryPolicy
  /** Expressive-send id for the first chunk. */
  readonly effectId?: string
  /** Thread the first chunk as a reply to this message. */
  readonly replyTo?: { readonly messageGuid: string; readonly partIndex?: number }
  /** Service for a chat created by chat/new. */
  readonly service?: "iMessage" | "SMS"
}

export interface DeliverResult {
  readonly chatGuid: string | undefined
  /** Guids of the sent messages, in order (a chat/new send yields no message guid). */
  readonly messageGuids: ReadonlyArray<string>
  /** Chunks delivered. */
  readonly sent: number
}

const DEFAULT_LIMIT = 4000
const DEFAULT_TYPING_MS = 5000

/**
 * Deliver a reply. Typing starts before the first block is awaited and is re-sent every typingIntervalMs
 * while blocks are pending; it is stopped before the final sends (the bridge clears it on send, so DELETE
 * is only a best-effort extra when a re-send may have landed after the last message).
 */
export const deliver = <E = never>(
  options: DeliverOptions<E>
): Effect.Effect<DeliverResult, OutboundError | BridgeError | E, BridgeClient> =>
  Effect.gen(function*() {
    const client = yield* BridgeClient
    const resolved = yield* resolveTarget(client, options.target)
    const limit = options.textChunkLimit ?? DEFAULT_LIMIT
    const mode = options.chunkMode ?? "length"
    const retries = Math.max(0, options.retry?.retries ?? 3)
    const baseDelay = Duration.millis(options.retry?.baseDelayMs ?? 500)

    let chatGuid: string | undefined = resolved._tag === "Chat" ? resolved.chatGuid : undefined
    const messageGuids: Array<string> = []
    let sent = 0
    let prefixPending = options.responsePrefix !== undefined && options.responsePrefix !== ""
    // Ordering marks for the typing stop: was typing re-sent after the last message?
    const typingAfterSend = yield* Ref.make(false)

    const info = yield* Effect.option(client.serverInfo)
    const typingOn = options.typing !== false && chatGuid !== undefined && info._tag === "Some" && privateApiUsable(info.value)
    const typingChat = chatGuid ?? ""
    const typeOnce = Effect.suspend(() => client.startTyping(typingChat)).pipe(Effect.ignore, Effect.zipRight(Ref.set(typingAfterSend, true)))
    const interval = Duration.millis(options.typingIntervalMs ?? DEFAULT_TYPING_MS)

    const sendChunk = (text: string) =>
      Effect.gen(function*() {
        const first = sent === 0
        const attempts = yield* Ref.make(0)
        const once = Effect.gen(function*() {
          yield* Ref.update(attempts, (n) => n + 1)
          if (chatGuid === undefined && resolved._tag === "NewChat") {
            const chat = yield* client.newChat({
              addresses: [resolved.address],
              message: text,
              method: "private-api",
              ...(options.service !== undefined ? { service: options.service } : {})
            })
            chatGuid = chat.guid
            return undefined
          }
          const msg = yield* client.sendText({
            chatGuid: chatGuid!,
            message: text,
            ...(first && options.effectId !== undefined ? { effectId: options.effectId } : {}),
            ...(first && options.replyTo !== undefined
              ? { selectedMessageGuid: options.replyTo.messageGuid, partIndex: options.replyTo.partIndex ?? 0 }
              : {})
          })
          return msg.guid
        })
        const guid = yield* once.pipe(
          Effect.retry({ schedule: Schedule.exponential(baseDelay, 2), times: retries, while: isTransientBridgeError }),
          Effect.catchAll((cause) =>
            Ref.get(attempts).pipe(
              Effect.flatMap((n) =>
                Effect.fail(
                  new OutboundDeliveryFailed({
                    target: options.target,
                    chatGuid,
                    sent,
                    attempts: n,
                    cause,
                    message: `could not deliver to ${options.target} after ${n} attempt${n === 1 ? "" : "s"} (${sent} chunk${sent === 1 ? "" : "s"} sent before): ${cause.message}`
                  })
                )
              )
            )
          )
        )
        if (guid !== undefined) messageGuids.push(guid)
        sent++
        yield* Ref.set(typingAfterSend, false)
      })

    const sendText = (text: string) =>
      Effect.gen(function*() {
        const prefix = prefixPending ? options.responsePrefix! : undefined
        const chunks = chunkText(text, { limit, mode, ...(prefix !== undefined ? { prefix } : {}) })
        if (chunks.length > 0) prefixPending = false
        for (const chunk of chunks) yield* sendChunk(chunk)
      })

    const blocks: Stream.Stream<string, E> = Array.isArray(options.blocks)
      ? Stream.fromIterable(options.blocks as ReadonlyArray<string>)
      : (options.blocks as Stream.Stream<string, E>)

    if (typingOn) yield* typeOnce
    const keepAlive = typingOn
      ? yield* Effect.fork(Effect.forever(Effect.sleep(interval).pipe(Effect.zipRight(typeOnce))))
      : undefined
    const stopKeepAlive = keepAlive === undefined ? Effect.void : Fiber.interrupt(keepAlive)

    const run = options.blockStreaming === true
      ? Stream.runForEach(blocks, sendText)
      : Effect.gen(function*() {
        const all: Array<string> = []
        yield* Stream.runForEach(blocks, (b) => Effect.sync(() => void all.push(b)))
        yield* stopKeepAlive
        yield* sendText(all.filter((b) => b.trim() !== "").join("\n\n"))
      })

    yield* run.pipe(
      Effect.ensuring(
        Effect.gen(function*() {
          yield* stopKeepAlive
          // A typing re-send after the last message (or with nothing sent) would leave the indicator on.
          if (typingOn && (yield* Ref.get(typingAfterSend))) yield* client.stopTyping(typingChat)
        })
      )
    )
    return { chatGuid, messageGuids, sent } satisfies DeliverResult
  })

/** Send a read receipt for a chat when sendReadReceipts is on (default true). */
export const markRead = (
  chatGuid: string,
  options: { readonly sendReadReceipts?: boolean } = {}
): Effect.Effect<void, BridgeError, BridgeClient> =>
  options.sendReadReceipts === false ? Effect.void : Effect.flatMap(BridgeClient, (client) => client.markRead(chatGuid))
