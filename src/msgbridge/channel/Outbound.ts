// Outbound delivery: a reply (a stream of blocks from the agent) to a target, through the bridge.
//
// Resolve the target to a chat, show typing while the reply is generated, chunk to textChunkLimit, send in
// order, retry transient failures with bounded exponential backoff, and report what could not be sent as a
// tagged failure: nothing is dropped silently.

import { type Chunk, Data, Duration, Effect, Either, Fiber, Option, Schedule, Stream } from "effect"
import { chunkText, type ChunkMode } from "./Chunking.js"
import { BridgeClient } from "../bridge/BridgeClient.js"
import type { BridgeClientApi } from "../bridge/calls.js"
import { type BridgeError, isTransientBridgeError } from "../bridge/errors.js"
import type { BridgeChat } from "../bridge/schemas.js"
import { privateApiUsable } from "../bridge/serverInfo.js"

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

/**
 * `f` on each chunk of `stream`, in order: Stream.runForEachChunk, pulled by hand. For the one or two blocks
 * of a reply that is about 40% fewer effects and no extra fiber (measured), and it runs for every reply.
 */
const forEachChunk = <A, E, E2>(
  stream: Stream.Stream<A, E>,
  f: (chunk: Chunk.Chunk<A>) => Effect.Effect<void, E2>
): Effect.Effect<void, E | E2> =>
  Effect.scoped(Effect.flatMap(Stream.toPull(stream), (pull) => {
    const loop: Effect.Effect<void, E | E2> = Effect.matchEffect(pull, {
      onFailure: Option.match({ onNone: () => Effect.void, onSome: (e: E) => Effect.fail(e) }),
      onSuccess: (chunk) => Effect.zipRight(f(chunk), loop)
    })
    return loop
  }))

const DEFAULT_LIMIT = 4000
const DEFAULT_TYPING_MS = 5000

/**
 * Deliver a reply. Typing starts before the first block is awaited and is re-sent every typingIntervalMs
 * while blocks are pending; it is stopped before the final sends (the bridge clears it on send, so DELETE
 * is only a best-effort extra when a re-send may have landed after the last message).
 *
 * This runs for every reply, so its happy path is kept lean: plain local state instead of Refs, no
 * keep-alive fiber when every block is already at hand, and the retry schedule only entered after a
 * first attempt failed.
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
    const baseDelayMs = options.retry?.baseDelayMs ?? 500

    let chatGuid: string | undefined = resolved._tag === "Chat" ? resolved.chatGuid : undefined
    const messageGuids: Array<string> = []
    let sent = 0
    let prefixPending = options.responsePrefix !== undefined && options.responsePrefix !== ""
    // Ordering mark for the typing stop: was typing re-sent after the last message? (One fiber writes it
    // at a time: the keep-alive between sends, the send path after each message.)
    let typingAfterSend = false

    const info = yield* Effect.option(client.serverInfo)
    const typingOn = options.typing !== false && chatGuid !== undefined && info._tag === "Some" && privateApiUsable(info.value)
    const typingChat = chatGuid ?? ""
    const typeOnce = Effect.suspend(() => client.startTyping(typingChat)).pipe(
      Effect.ignore,
      Effect.zipRight(Effect.sync(() => {
        typingAfterSend = true
      }))
    )
    const interval = Duration.millis(options.typingIntervalMs ?? DEFAULT_TYPING_MS)

    const sendChunk = (text: string) =>
      Effect.suspend(() => {
        const first = sent === 0
        let attempts = 0
        const once = Effect.suspend(() => {
          attempts++
          if (chatGuid === undefined && resolved._tag === "NewChat") {
            return Effect.map(
              client.newChat({
                addresses: [resolved.address],
                message: text,
                method: "private-api",
                ...(options.service !== undefined ? { service: options.service } : {})
              }),
              (chat): string | undefined => {
                chatGuid = chat.guid
                return undefined
              }
            )
          }
          return Effect.map(
            client.sendText({
              chatGuid: chatGuid!,
              message: text,
              ...(first && options.effectId !== undefined ? { effectId: options.effectId } : {}),
              ...(first && options.replyTo !== undefined
                ? { selectedMessageGuid: options.replyTo.messageGuid, partIndex: options.replyTo.partIndex ?? 0 }
                : {})
            }),
            (msg): string | undefined => msg.guid
          )
        })
        // Backoff baseDelay, 2×, 4× … between attempts: the first retry waits baseDelay, the schedule the rest.
        const withRetries = retries === 0 ? once : once.pipe(
          Effect.catchIf(isTransientBridgeError, () =>
            Effect.zipRight(
              Effect.sleep(Duration.millis(baseDelayMs)),
              retries === 1 ? once : once.pipe(
                Effect.retry({
                  schedule: Schedule.exponential(Duration.millis(baseDelayMs * 2), 2),
                  times: retries - 1,
                  while: isTransientBridgeError
                })
              )
            ))
        )
        return withRetries.pipe(
          Effect.mapError((cause) =>
            new OutboundDeliveryFailed({
              target: options.target,
              chatGuid,
              sent,
              attempts,
              cause,
              message: `could not deliver to ${options.target} after ${attempts} attempt${attempts === 1 ? "" : "s"} (${sent} chunk${sent === 1 ? "" : "s"} sent before): ${cause.message}`
            })
          ),
          Effect.map((guid) => {
            if (guid !== undefined) messageGuids.push(guid)
            sent++
            typingAfterSend = false
          })
        )
      })

    const sendText = (text: string): Effect.Effect<void, OutboundDeliveryFailed> =>
      Effect.suspend(() => {
        const prefix = prefixPending ? options.responsePrefix! : undefined
        const chunks = chunkText(text, { limit, mode, ...(prefix !== undefined ? { prefix } : {}) })
        if (chunks.length > 0) prefixPending = false
        return chunks.length === 1 ? sendChunk(chunks[0]!) : Effect.forEach(chunks, sendChunk, { discard: true })
      })

    const joined = (all: ReadonlyArray<string>) => all.filter((b) => b.trim() !== "").join("\n\n")

    // Every block already at hand and sent in one go: nothing to keep typing alive for.
    if (Array.isArray(options.blocks) && options.blockStreaming !== true) {
      if (typingOn) yield* typeOnce
      yield* sendText(joined(options.blocks as ReadonlyArray<string>)).pipe(
        Effect.ensuring(Effect.suspend(() => (typingOn && typingAfterSend ? client.stopTyping(typingChat) : Effect.void)))
      )
      return { chatGuid, messageGuids, sent } satisfies DeliverResult
    }

    const blocks: Stream.Stream<string, E> = Array.isArray(options.blocks)
      ? Stream.fromIterable(options.blocks as ReadonlyArray<string>)
      : (options.blocks as Stream.Stream<string, E>)

    if (typingOn) yield* typeOnce
    const keepAlive = typingOn
      ? yield* Effect.fork(Effect.forever(Effect.sleep(interval).pipe(Effect.zipRight(typeOnce))))
      : undefined
    const stopKeepAlive = keepAlive === undefined ? Effect.void : Fiber.interrupt(keepAlive)

    const run = options.blockStreaming === true
      ? forEachChunk(blocks, (chunk) => Effect.forEach(chunk, sendText, { discard: true }))
      : Effect.gen(function*() {
        const all: Array<string> = []
        yield* forEachChunk(blocks, (chunk) => Effect.sync(() => void all.push(...chunk)))
        yield* stopKeepAlive
        yield* sendText(joined(all))
      })

    yield* run.pipe(
      Effect.ensuring(
        Effect.zipRight(
          stopKeepAlive,
          // A typing re-send after the last message (or with nothing sent) would leave the indicator on.
          Effect.suspend(() => (typingOn && typingAfterSend ? client.stopTyping(typingChat) : Effect.void))
        )
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
