import { HttpClient } from "@effect/platform"
import { Console, Effect, Either, Option, Stream } from "effect"
import { Agent } from "../agent/Agent.js"
import type { StatePaths } from "../config/StatePaths.js"
import type { SvcConfig } from "../config/SvcConfig.js"
import { compilePolicy, decide, policyFromConfig } from "./Access.js"
import { BridgeClient, makeBridgeClient } from "./BridgeClient.js"
import { dedupeJournalPath, makeDedupe } from "./Dedupe.js"
import { type InboundMessage, parseWebhook } from "./Inbound.js"
import { deliver, markRead } from "./Outbound.js"
import { makePairingStore } from "./PairingStore.js"
import { makeShortIds, shortIdsFilePath } from "./ShortIds.js"

// The msgbridge channel of the default account: webhook event → dedupe (persisted before the 200) →
// access decision (pairing, allowlists, gating) → short id → the agent → outbound delivery.

export interface ChannelSettings {
  readonly webhookPath: string
  readonly password: string
}

export class ChannelConfigError {
  readonly _tag = "ChannelConfigError"
  constructor(readonly message: string) {}
}

export interface WebhookAnswer {
  readonly status: number
  readonly body: Record<string, unknown>
}

/** The channel's settings, or undefined when it is not configured / disabled. */
export const channelSettings = (config: SvcConfig): Either.Either<ChannelSettings | undefined, ChannelConfigError> => {
  const channel = config.channels?.msgbridge
  if (channel === undefined || channel.enabled === false) return Either.right(undefined)
  if (channel.serverUrl === undefined) {
    return Either.left(new ChannelConfigError("channels.msgbridge.serverUrl is required (the bridge server's URL)"))
  }
  if (channel.password === undefined) {
    return Either.left(
      new ChannelConfigError("channels.msgbridge.password is required: the webhook is refused without one")
    )
  }
  return Either.right({ webhookPath: channel.webhookPath ?? "/msgbridge-webhook", password: channel.password })
}

export const makeChannel = (config: SvcConfig, paths: StatePaths) =>
  Effect.gen(function*() {
    const channel = config.channels!.msgbridge!
    const client = yield* makeBridgeClient({ serverUrl: channel.serverUrl!, password: channel.password! })
    const agent = yield* Agent
    const pairing = makePairingStore({ credentialsDir: paths.credentialsDir })
    const dedupe = yield* makeDedupe({ file: dedupeJournalPath(paths.msgbridgeDir) })
    const shortIds = yield* makeShortIds({ file: shortIdsFilePath(paths.msgbridgeDir) })
    const policy = compilePolicy(policyFromConfig(config))
    const responsePrefix = config.messages?.responsePrefix
    const events = { typing: 0, read: 0, other: 0 }
    const failures: Array<{ readonly at: string; readonly guid: string; readonly message: string }> = []

    const report = (guid: string, message: string) =>
      Effect.zipRight(
        Effect.sync(() => {
          failures.push({ at: new Date().toISOString(), guid, message })
          if (failures.length > 50) failures.shift()
        }),
        Console.error(`msgbridge: message ${guid}: ${message}`)
      )

    const send = (chatGuid: string, blocks: Stream.Stream<string, unknown> | ReadonlyArray<string>) =>
      deliver({
        target: `chat_guid:${chatGuid}`,
        blocks,
        ...(channel.textChunkLimit !== undefined ? { textChunkLimit: channel.textChunkLimit } : {}),
        ...(channel.chunkMode !== undefined ? { chunkMode: channel.chunkMode } : {}),
        ...(responsePrefix !== undefined ? { responsePrefix } : {}),
        ...(channel.blockStreaming !== undefined ? { blockStreaming: channel.blockStreaming } : {})
      }).pipe(Effect.provideService(BridgeClient, client))

    const process = (m: InboundMessage) =>
      Effect.gen(function*() {
        if (m.chatGuid === undefined || m.sender === undefined) return
        const paired = yield* pairing.approved().pipe(
          Effect.map((list) => list.map((a) => a.sender)),
          Effect.orElseSucceed(() => [] as Array<string>)
        )
        const decision = decide(
          {
            sender: m.sender,
            chatGuid: m.chatGuid,
            chatIdentifier: m.chatIdentifier,
            isGroup: m.isGroup,
            text: m.text,
            isFromMe: m.isFromMe,
            paired
          },
          policy
        )
        if (decision.kind === "ignore") return
        if (decision.kind === "pairing") {
          const request = yield* pairing.request(m.sender, m.chatGuid)
          if (!request.created) return
          yield* send(m.chatGuid, [
            `Hi! This agent answers only people its owner approved. Your pairing code is ${request.code}; ` +
            `ask the owner to run: svc pairing approve msgbridge ${request.code}`
          ])
          return
        }
        const short = yield* shortIds.assign(m.guid)
        if (channel.sendReadReceipts !== false) {
          yield* markRead(m.chatGuid, { sendReadReceipts: true }).pipe(Effect.provideService(BridgeClient, client), Effect.ignore)
        }
        const replyShort = m.replyToGuid !== undefined ? yield* shortIds.assign(m.replyToGuid) : undefined
        const tapbackTarget = m.tapback !== undefined ? yield* shortIds.assign(m.tapback.targetGuid) : undefined
        const context = {
          channel: "msgbridge",
          accountId: "default",
          text: m.text,
          sender: m.sender,
          chatGuid: m.chatGuid,
          isGroup: m.isGroup,
          messageSid: short,
          messageSidFull: m.guid,
          ...(m.replyToGuid !== undefined ? { replyToId: replyShort, replyToIdFull: m.replyToGuid } : {}),
          ...(m.tapback !== undefined
            ? { system: `${m.sender} reacted with ${m.tapback.reaction} to message ${tapbackTarget}` }
            : {})
        }
        yield* send(m.chatGuid, agent.reply(context))
      }).pipe(
        Effect.catchAll((e) => report(m.guid, (e as { message?: string }).message ?? String(e))),
        Effect.ensuring(Effect.ignore(dedupe.done(m.guid)))
      )

    /** Decode an authenticated webhook body; accepted messages are persisted before the answer. */
    const handleWebhook = (body: unknown) =>
      Effect.gen(function*() {
        const parsed = parseWebhook(body)
        if (Either.isLeft(parsed)) return { status: 400, body: { error: parsed.left } } satisfies WebhookAnswer
        const event = parsed.right
        if (event.kind === "typing") events.typing++
        else if (event.kind === "read") events.read++
        if (event.kind !== "message") {
          if (event.kind === "other") events.other++
          return { status: 200, body: { ok: true, ignored: event.kind === "other" } } satisfies WebhookAnswer
        }
        const m = event.message
        if (m.isFromMe) return { status: 200, body: { ok: true, fromMe: true } } satisfies WebhookAnswer
        const fresh = yield* dedupe.accept(m.guid, body)
        if (!fresh) return { status: 200, body: { ok: true, duplicate: true } } satisfies WebhookAnswer
        yield* Effect.forkDaemon(process(m))
        return { status: 200, body: { ok: true } } satisfies WebhookAnswer
      }).pipe(
        Effect.catchAll((e) =>
          Effect.succeed({ status: 500, body: { error: `could not record the message: ${e.message}` } } satisfies WebhookAnswer)
        )
      )

    // Accepted before a stop but not finished: finish them now (the bridge never retries a webhook).
    const pending = yield* dedupe.pending()
    for (const p of pending) {
      const parsed = parseWebhook(p.event)
      if (Either.isRight(parsed) && parsed.right.kind === "message") yield* Effect.forkDaemon(process(parsed.right.message))
      else yield* Effect.ignore(dedupe.done(p.guid))
    }

    return {
      handleWebhook,
      status: Effect.sync(() => ({ events: { ...events }, failures: [...failures], recovered: pending.length })),
      client: Option.some(client)
    } as const
  })

export type Channel = Effect.Effect.Success<ReturnType<typeof makeChannel>>
export type ChannelRequirements = HttpClient.HttpClient | Agent
