import type { HttpClient } from "@effect/platform"
import { Clock, Console, Duration, Effect, Either, Schedule, Stream } from "effect"
import { Agent, AgentError, type AgentTools, type InboundContext } from "../../agent/Agent.js"
import type { StatePaths } from "../../config/StatePaths.js"
import type { SvcConfig } from "../../config/SvcConfig.js"
import { compilePolicy, decide, policyFromConfig } from "./Access.js"
import { type AccountSettings, ChannelConfigError, DEFAULT_ACCOUNT } from "./Accounts.js"
import { BridgeClient, makeBridgeClient } from "../bridge/BridgeClient.js"
import { osMajor, privateApiUsable } from "../bridge/serverInfo.js"
import { catchUp } from "./CatchUp.js"
import { dedupeJournalPath, makeDedupe } from "../store/Dedupe.js"
import { attachmentKey, type InboundMessage, journalKey, parseWebhook, toInboundMessage } from "./Inbound.js"
import { lateAttachments, lateFromJournal, withChat } from "./LateAttachments.js"
import { deliver, markRead } from "./Outbound.js"
import { makeMessageActions } from "./Actions.js"
import { historyFilePath, makeChatHistory } from "../store/History.js"
import { pruneDir } from "../../platform/pruneDir.js"
import { logText } from "../../platform/logText.js"
import { redactSecrets } from "../../domain/redact.js"
import { fetchInboundMedia, mediaMaxBytes, mediaNote, msgbridgeMediaDir, msgbridgeMediaRoot } from "../media/Media.js"
import { expandTemplates, expandTemplatesDeep, type TemplateValues } from "./Templates.js"
import { makePairingStore } from "../store/PairingStore.js"
import { makeShortIds, shortIdsFilePath } from "../store/ShortIds.js"
import { makeWorkQueue } from "./WorkQueue.js"

// The msgbridge channel of one account: webhook event → dedupe (persisted before the 200) → access decision
// (pairing, allowlists, gating) → short id → the agent → outbound delivery. At start-up: finish what was
// accepted but not done, then catch up through the bridge's message query from the persisted cursor.

export interface WebhookAnswer {
  readonly status: number
  readonly body: Record<string, unknown>
}

export { ChannelConfigError }

/** How often the catch-up cursor is persisted while webhooks arrive (a crash loses at most this much, and the catch-up overlap covers it). */
const CURSOR_PERSIST_MS = 1_000
/** Default of channels.msgbridge.sweepIntervalSec: how often a running channel asks the bridge for missed messages. */
const SWEEP_INTERVAL_SEC = 180

export const makeChannel = (config: SvcConfig, paths: StatePaths, account: AccountSettings) =>
  Effect.gen(function*() {
    const channel = account.config
    const accountId = account.accountId
    const client = yield* makeBridgeClient({ serverUrl: account.serverUrl, password: account.password })
    const agent = yield* Agent
    const pairing = makePairingStore({ credentialsDir: paths.credentialsDir, accountId })
    const dedupe = yield* makeDedupe({ file: dedupeJournalPath(paths.msgbridgeDir, accountId) })
    const shortIds = yield* makeShortIds({ file: shortIdsFilePath(paths.msgbridgeDir, accountId) })
    // History: groups keep historyLimit (default 20) messages of context, DMs dmHistoryLimit (default 0:
    // a DM's context is the agent's own conversation); 0 disables.
    const groupHistoryLimit = channel.historyLimit ?? 20
    const dmHistoryLimit = channel.dmHistoryLimit ?? 0
    const historyKept = Math.max(groupHistoryLimit, dmHistoryLimit)
    const history = yield* makeChatHistory({ file: historyFilePath(paths.msgbridgeDir, accountId), perChat: historyKept })
    const actions = makeMessageActions({
      client,
      shortIds,
      ...(channel.actions !== undefined ? { switches: channel.actions } : {}),
      switchesKey: `${account.keyPath}.actions`,
      mediaLocalRoots: channel.mediaLocalRoots ?? [],
      mediaMaxBytes: mediaMaxBytes(channel.mediaMaxMb)
    })
    /** The actions as the agent sees them: placeholders expanded; the current chat is the default target. */
    const agentTools = (values: TemplateValues, chatGuid: string, beforeSend: Effect.Effect<void, { readonly message: string }>): AgentTools => ({
      actions: {
        available: actions.available,
        run: (name, params) => {
          const expanded = expandTemplatesDeep(params, values) as Record<string, unknown>
          const withChat = name === "sendWithEffect" || name === "sendAttachment" || name === "reply"
            ? { to: `chat_guid:${chatGuid}`, ...expanded }
            : expanded
          return beforeSend.pipe(
            Effect.zipRight(actions.run(name, withChat)),
            Effect.map((r): Record<string, unknown> => ({ ...r })),
            Effect.mapError((e) => new AgentError(e.message))
          )
        }
      }
    })
    const policy = compilePolicy(policyFromConfig(config, accountId === DEFAULT_ACCOUNT ? undefined : accountId))
    const responsePrefix = config.messages?.responsePrefix
    const events = { typing: 0, read: 0, other: 0, messages: 0, duplicates: 0, lastEventAt: undefined as string | undefined }
    const failures: Array<{ readonly at: string; readonly guid: string; readonly message: string }> = []
    const catchUpState: {
      status: "pending" | "running" | "done" | "failed"
      fetched: number
      handed: number
      error?: string
      at?: string
      lastSweepAt?: string
    } = {
      status: "pending",
      fetched: 0,
      handed: 0
    }
    // The newest dateCreated of an accepted message: persisted as the catch-up cursor once catch-up has
    // run (before that, moving it would skip the gap the catch-up is about to fetch).
    let newestAccepted: number | undefined
    let cursorLive = false

    const report = (guid: string, message: string) =>
      Effect.zipRight(
        Effect.sync(() => {
          failures.push({ at: new Date().toISOString(), guid: logText(guid, 200), message: logText(message) })
          if (failures.length > 50) failures.shift()
        }),
        // One line whatever the guid and the error hold (a newline in a guid would forge a log line).
        Console.error(`msgbridge: message ${logText(guid, 200)}: ${logText(message)}`)
      )

    /**
     * The reply's mark, durable before its first message goes out; when it cannot be written (a full disk),
     * nothing is sent: a restart could not tell the reply went out and would answer again.
     */
    const markReplying = (guid: string) =>
      dedupe.replying(guid).pipe(
        Effect.mapError((e) => ({
          message: `the reply was NOT sent: its delivery mark could not be written first (${e.message}); ` +
            "free space in the state dir"
        }))
      )

    const deliveryOptions = {
      ...(channel.textChunkLimit !== undefined ? { textChunkLimit: channel.textChunkLimit } : {}),
      ...(channel.chunkMode !== undefined ? { chunkMode: channel.chunkMode } : {}),
      ...(responsePrefix !== undefined ? { responsePrefix } : {}),
      ...(channel.blockStreaming !== undefined ? { blockStreaming: channel.blockStreaming } : {})
    }
    const send = (chatGuid: string, blocks: Stream.Stream<string, unknown> | ReadonlyArray<string>) =>
      deliver({ target: `chat_guid:${chatGuid}`, blocks, ...deliveryOptions }).pipe(Effect.provideService(BridgeClient, client))

    const process = (received: InboundMessage) =>
      Effect.gen(function*() {
        const m = received.late !== undefined ? yield* withChat(client, received) : received
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
        const chatGuid = m.chatGuid
        const sender = m.sender
        const historyLimit = m.isGroup ? groupHistoryLimit : dmHistoryLimit
        const remember = (text: string) =>
          historyKept === 0 ? Effect.void : history.record(chatGuid, { sender, text, at: m.dateCreated ?? Date.now(), fromMe: false, messageGuid: m.guid })
        if (decision.kind === "ignore") {
          // Group chatter the agent was not asked about is still context for when it is.
          if (decision.reason === "mention-required" || decision.reason === "mention-required-no-patterns") yield* remember(m.text)
          return
        }
        if (decision.kind === "pairing") {
          const request = yield* pairing.request(sender, chatGuid)
          if (!request.created) return
          yield* markReplying(journalKey(m))
          yield* send(chatGuid, [
            `Hi! This agent answers only people its owner approved. Your pairing code is ${request.code}; ` +
            `ask the owner to run: svc pairing approve msgbridge ${request.code}` +
            (accountId === DEFAULT_ACCOUNT ? "" : ` --account ${accountId}`)
          ])
          return
        }
        const short = yield* shortIds.assign(m.guid)
        if (channel.sendReadReceipts !== false) {
          yield* markRead(chatGuid, { sendReadReceipts: true }).pipe(Effect.provideService(BridgeClient, client), Effect.ignore)
        }
        const replyShort = m.replyToGuid !== undefined ? yield* shortIds.assign(m.replyToGuid) : undefined
        const tapbackTarget = m.tapback !== undefined ? yield* shortIds.assign(m.tapback.targetGuid) : undefined
        const recent = historyLimit > 0 ? yield* history.recent(chatGuid, historyLimit, m.guid) : []
        const fetched = m.attachments.length === 0 ? undefined : yield* fetchInboundMedia({
          client,
          dir: msgbridgeMediaDir(paths.mediaDir, accountId, yield* Clock.currentTimeMillis),
          attachments: m.attachments,
          maxBytes: mediaMaxBytes(channel.mediaMaxMb),
          isSticker: m.isSticker
        })
        const skippedNote = fetched === undefined ? undefined : mediaNote(fetched.skipped)
        const lateNote = m.late !== undefined ? `attachments of message ${short} that arrived after it` : undefined
        const notes = [lateNote, skippedNote].filter((n): n is string => n !== undefined)
        // Late attachments come without their text again: it was answered with the message.
        const text = m.late !== undefined ? "" : m.text.replace(/\ufffc/g, "").trim()
        yield* remember(text !== "" ? text : fetched !== undefined ? `(${m.isSticker ? "sticker" : "attachment"}${m.late !== undefined ? ", late" : ""})` : "")
        const context: InboundContext = {
          channel: "msgbridge",
          accountId,
          text,
          sender,
          chatGuid,
          isGroup: m.isGroup,
          messageSid: short,
          messageSidFull: m.guid,
          ...(m.replyToGuid !== undefined ? { replyToId: replyShort, replyToIdFull: m.replyToGuid } : {}),
          ...(m.tapback !== undefined
            ? { system: `${sender} reacted with ${m.tapback.reaction} to message ${tapbackTarget}` }
            : {}),
          ...(recent.length > 0 ? { history: recent.map((h) => ({ sender: h.sender, text: h.text, fromMe: h.fromMe })) } : {}),
          ...(fetched !== undefined && fetched.media.length > 0
            ? { media: fetched.media.map((x) => ({ path: x.path, mimeType: x.mimeType, name: x.name, size: x.size })) }
            : {}),
          ...(notes.length > 0 ? { notes } : {})
        }
        const values: TemplateValues = {
          MessageSid: short,
          MessageSidFull: m.guid,
          ReplyToId: replyShort,
          ReplyToIdFull: m.replyToGuid
        }
        // The delivery mark goes on before the first thing the agent sends (a reply block or a message
        // action), not before it starts: a gateway stopped while the agent still works (a model turn takes
        // seconds) answers the message after its restart, and one stopped after a send does not send again.
        const mark = markReplying(journalKey(m))
        const tools = agentTools(values, chatGuid, mark)
        const replied: Array<string> = []
        const blocks = agent.reply(context, tools).pipe(
          Stream.map((block) => expandTemplates(block, values)),
          Stream.tap((block) => Effect.zipRight(mark, Effect.sync(() => void replied.push(block))))
        )
        const result = yield* send(chatGuid, blocks)
        if (historyKept > 0 && result.sent > 0) {
          yield* history.record(chatGuid, { sender: "me", text: replied.join("\n\n"), at: yield* Clock.currentTimeMillis, fromMe: true })
        }
      }).pipe(
        Effect.catchAll((e) => report(received.guid, (e as { message?: string }).message ?? String(e))),
        Effect.ensuring(
          dedupe.done(journalKey(received)).pipe(
            Effect.catchAll((e) =>
              report(received.guid, `its "done" mark could not be written (${e.message}); it is not answered again after a restart`)
            )
          )
        )
      )

    // Accepted messages wait for processing on a bounded pool with one lane per chat, so a chat's messages
    // are answered in arrival order and a burst of webhooks does not start one fiber per message that would
    // compete with intake for the CPU (what is queued is already durable: recovery finishes it after a stop).
    const work = yield* makeWorkQueue({ concurrency: 16, run: process })
    /**
     * Persist an inbound message before it is acknowledged, and mark its attachments as handed over (a later
     * update repeating them is not news). true: new.
     */
    const acceptMessage = (m: InboundMessage, event: unknown) =>
      Effect.gen(function*() {
        const fresh = yield* dedupe.accept(journalKey(m), event)
        if (fresh) yield* Effect.forEach(m.attachments, (a) => dedupe.markIfNew(attachmentKey(a.guid)), { discard: true })
        return fresh
      })

    /** Queue an accepted message on its chat's lane (webhooks, start-up recovery and catch-up alike). */
    const submit = (m: InboundMessage) => work.submit(m.chatGuid ?? m.sender ?? m.guid, m)

    /** Decode an authenticated webhook body; accepted messages are persisted before the answer. */
    const handleWebhook = (body: unknown) =>
      Effect.gen(function*() {
        const parsed = parseWebhook(body)
        if (Either.isLeft(parsed)) return { status: 400, body: { error: parsed.left } } satisfies WebhookAnswer
        const event = parsed.right
        events.lastEventAt = new Date().toISOString()
        if (event.kind === "typing") events.typing++
        else if (event.kind === "read") events.read++
        if (event.kind === "update") {
          const late = lateAttachments(event.message, dedupe.isSeen)
          if (late === undefined) return { status: 200, body: { ok: true, ignored: true } } satisfies WebhookAnswer
          const fresh = yield* acceptMessage(late, body)
          if (fresh) yield* submit(late)
          else events.duplicates++
          return { status: 200, body: { ok: true, ...(fresh ? { lateAttachments: late.attachments.length } : { duplicate: true }) } } satisfies WebhookAnswer
        }
        if (event.kind !== "message") {
          if (event.kind === "other") events.other++
          return { status: 200, body: { ok: true, ignored: event.kind === "other" } } satisfies WebhookAnswer
        }
        const m = event.message
        if (m.isFromMe) return { status: 200, body: { ok: true, fromMe: true } } satisfies WebhookAnswer
        const fresh = yield* acceptMessage(m, body)
        if (!fresh) {
          events.duplicates++
          return { status: 200, body: { ok: true, duplicate: true } } satisfies WebhookAnswer
        }
        events.messages++
        if (m.dateCreated !== undefined && (newestAccepted === undefined || m.dateCreated > newestAccepted)) newestAccepted = m.dateCreated
        yield* submit(m)
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
      if (p.replying) {
        // Its reply had started: sending it again could answer twice. It may be incomplete; say so.
        yield* report(p.guid, "the gateway stopped while this message's reply was being sent (or its \"done\" mark was lost); it is not sent again")
        yield* Effect.ignore(dedupe.done(p.guid))
      } else if (Either.isRight(parsed) && parsed.right.kind === "message") yield* submit(parsed.right.message)
      else if (Either.isRight(parsed) && parsed.right.kind === "update") {
        // Late attachments accepted before the stop: the ones not handed over yet, under the same key.
        const late = lateFromJournal(p.guid, parsed.right.message)
        if (late !== undefined) yield* submit(late)
        else yield* Effect.ignore(dedupe.done(p.guid))
      } else yield* Effect.ignore(dedupe.done(p.guid))
    }

    // What arrived while the gateway was down. The first start of an account only sets the cursor: it
    // does not answer the whole history. A bridge that cannot be reached is retried (backoff up to 5
    // minutes) until one catch-up succeeds; only then do live messages move the cursor.
    // A sweep starts where the previous one (or the start-up catch-up) started, not at the cursor: live
    // messages move the cursor past a webhook that was lost before them.
    let sweepFrom: number | undefined
    const runCatchUp = (why: "start" | "sweep") => Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const persisted = yield* dedupe.cursor()
      const cursor = why === "sweep" ? sweepFrom ?? persisted : persisted
      sweepFrom = now
      if (cursor === undefined) {
        yield* dedupe.advance(now)
        return
      }
      if (why === "start") catchUpState.status = "running"
      const result = yield* catchUp({
        client,
        cursor,
        onMessage: (raw) =>
          Effect.gen(function*() {
            const m = toInboundMessage(raw)
            if (m.isFromMe || dedupe.isSeen(m.guid)) return false
            const fresh = yield* acceptMessage(m, { type: "new-message", data: raw })
            if (fresh) yield* submit(m)
            return fresh
          })
      })
      if (why === "start") {
        catchUpState.fetched = result.fetched
        catchUpState.handed = result.handed
      }
      if (result.newest !== undefined) yield* dedupe.advance(result.newest)
      if (result.handed > 0 || result.truncated) {
        yield* Console.log(
          `msgbridge[${accountId}]: caught up on ${result.handed} message${result.handed === 1 ? "" : "s"} ` +
            (why === "start" ? "that arrived while the gateway was down" : "that the bridge did not deliver by webhook") +
            (result.truncated ? " (stopped at the catch-up limit; older ones were not fetched)" : "")
        )
      }
    })
    // While running, the same from the cursor every few minutes: a webhook the bridge failed to deliver is
    // found then, not at the next restart (the journal keeps it exactly once).
    const sweepEvery = Duration.seconds(channel.sweepIntervalSec ?? SWEEP_INTERVAL_SEC)
    const sweeping = runCatchUp("sweep").pipe(
      Effect.tap(() => Effect.sync(() => void (catchUpState.lastSweepAt = new Date().toISOString()))),
      Effect.catchAll((e) => Console.error(`msgbridge[${accountId}]: sweep for undelivered messages failed, will retry: ${logText(e.message)}`)),
      Effect.delay(sweepEvery),
      Effect.forever
    )
    yield* runCatchUp("start").pipe(
      Effect.tapError((e) =>
        Effect.zipRight(
          Effect.sync(() => {
            catchUpState.status = "failed"
            catchUpState.error = e.message
          }),
          Console.error(`msgbridge[${accountId}]: catch-up failed, will retry: ${logText(e.message)}`)
        )
      ),
      Effect.retry(Schedule.exponential(Duration.seconds(2), 2).pipe(Schedule.union(Schedule.spaced(Duration.minutes(5))))),
      Effect.tap(() =>
        Effect.sync(() => {
          catchUpState.status = "done"
          catchUpState.at = new Date().toISOString()
          delete catchUpState.error
          cursorLive = true
        })
      ),
      Effect.zipRight(sweeping),
      Effect.forkScoped
    )
    yield* Effect.suspend(() =>
      cursorLive && newestAccepted !== undefined ? Effect.ignore(dedupe.advance(newestAccepted)) : Effect.void
    ).pipe(Effect.repeat(Schedule.spaced(Duration.millis(CURSOR_PERSIST_MS))), Effect.forkScoped)

    // Inbound media stay bounded on disk (platform/pruneDir's defaults: a week, 512 MiB per account).
    yield* pruneDir(msgbridgeMediaRoot(paths.mediaDir, accountId), "msgbridge media").pipe(
      Effect.repeat(Schedule.spaced(Duration.hours(6))),
      Effect.forkScoped
    )

    /** `svc message send`: text to any target, chunked like a reply; the sent messages get short ids. */
    const sendTo = (target: string, text: string) =>
      deliver({ target, blocks: [text], typing: false, ...deliveryOptions }).pipe(
        Effect.provideService(BridgeClient, client),
        Effect.flatMap((result) =>
          Effect.map(
            Effect.forEach(result.messageGuids, (guid) => Effect.map(shortIds.assign(guid), (id) => ({ messageId: id, messageGuid: guid }))),
            (messages) => ({ chatGuid: result.chatGuid, sent: result.sent, messages })
          )
        )
      )

    const status = Effect.map(pairing.list().pipe(Effect.map((l) => l.length), Effect.orElseSucceed(() => -1)), (pairingPending) => ({
      accountId,
      webhookPath: account.webhookPath,
      serverUrl: redactSecrets(client.baseUrl),
      dmPolicy: channel.dmPolicy ?? "pairing",
      groupPolicy: channel.groupPolicy ?? "allowlist",
      events: { ...events },
      recovered: pending.length,
      catchUp: { ...catchUpState },
      /** Pending pairing codes (-1: the store could not be read). */
      pairingPending,
      failures: [...failures],
      journal: dedupe.health()
    }))

    /** Ask the bridge server now: reachable, its host OS, the Private API. */
    const probe = Effect.gen(function*() {
      const t0 = yield* Clock.currentTimeMillis
      const ping = yield* Effect.either(client.ping)
      const pingMs = (yield* Clock.currentTimeMillis) - t0
      if (Either.isLeft(ping)) return { reachable: false as const, error: ping.left.message, pingMs }
      const info = yield* Effect.either(client.refreshServerInfo)
      if (Either.isLeft(info)) return { reachable: true as const, pingMs, error: info.left.message }
      return {
        reachable: true as const,
        pingMs,
        osVersion: info.right.os_version,
        osMajor: osMajor(info.right),
        serverVersion: info.right.server_version ?? undefined,
        privateApi: info.right.private_api,
        helperConnected: info.right.helper_connected,
        privateApiUsable: privateApiUsable(info.right)
      }
    })

    return {
      accountId,
      webhookPath: account.webhookPath,
      password: account.password,
      handleWebhook,
      sendTo,
      runAction: actions.run,
      actionsAvailable: actions.available,
      status,
      probe,
      client
    } as const
  })

export type Channel = Effect.Effect.Success<ReturnType<typeof makeChannel>>
export type ChannelRequirements = HttpClient.HttpClient | Agent
