import { Data, Duration, Effect, Either, Schema, type Scope } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { keepFlushed, readFileIfExists, writeFileAtomicSync } from "./durable.js"

// Chat history for historyLimit / dmHistoryLimit: the last messages of a chat travel with the agent's
// context. The bridge API we rely on has no per-chat history call, so the gateway keeps its own: every
// inbound message of a chat (including group messages left unanswered by mention gating) and every reply it
// sent, in arrival order.
//
// Bounded three ways: `perChat` entries per chat (oldest dropped), `maxChats` chats (least recently active
// evicted), and each text truncated to HISTORY_TEXT_MAX characters; a total-size cap evicts whole chats
// beyond that, so the file stays small enough to rewrite. Persisted write-behind like ShortIds (at most one
// atomic write per flush interval, and at scope close). History is not precious: a damaged file is moved
// aside to `<file>.corrupt` and the history starts empty, with a warning.

export const HISTORY_MAX_CHATS = 500
export const HISTORY_TEXT_MAX = 2000
export const HISTORY_TRUNCATED_MARKER = " …[truncated]"
/** Total characters kept over all chats (a file of a few MB at most): beyond it, the least recently active chats go. */
export const HISTORY_MAX_TOTAL_CHARS = 4_000_000
export const HISTORY_FLUSH_INTERVAL = Duration.seconds(5)

export interface HistoryEntry {
  readonly sender: string
  readonly text: string
  /** Epoch ms. */
  readonly at: number
  readonly fromMe: boolean
  readonly messageGuid?: string
}

export class HistoryStoreError extends Data.TaggedError("HistoryStoreError")<{
  readonly path: string
  readonly message: string
}> {}

export interface ChatHistoryApi {
  /**
   * Append an entry to a chat (the chat becomes the most recently active). An entry whose messageGuid is
   * already in the chat replaces it in place (a redelivered or edited message is not doubled).
   */
  readonly record: (chatGuid: string, entry: HistoryEntry) => Effect.Effect<void>
  /** The last `limit` entries before the current message (the current message itself excluded by guid), oldest first; limit 0 → []. */
  readonly recent: (chatGuid: string, limit: number, excludeGuid?: string) => Effect.Effect<ReadonlyArray<HistoryEntry>>
  /** Persist now if anything changed (the background flusher and the scope's end call it too). */
  readonly flush: Effect.Effect<void, HistoryStoreError>
}

export interface ChatHistoryOptions {
  /** Suggested: historyFilePath(msgbridgeDir, accountId). */
  readonly file: string
  /** Entries kept per chat: max(historyLimit, dmHistoryLimit). 0 keeps nothing. */
  readonly perChat: number
  readonly maxChats?: number
  readonly maxTotalChars?: number
  readonly flushInterval?: Duration.DurationInput
}

export const historyFilePath = (msgbridgeDir: string, accountId = "default"): string =>
  path.join(msgbridgeDir, accountId.replace(/[^A-Za-z0-9_-]/g, "_"), "history.json")

const Entry = Schema.Struct({
  sender: Schema.String,
  text: Schema.String,
  at: Schema.Number,
  fromMe: Schema.Boolean,
  messageGuid: Schema.optionalWith(Schema.String, { exact: true })
})

const HistoryFile = Schema.Struct({
  version: Schema.Literal(1),
  /** [chatGuid, entries oldest first], least recently active chat first. */
  chats: Schema.Array(Schema.Tuple(Schema.String, Schema.Array(Entry)))
})
const decodeFile = Schema.decodeUnknownEither(Schema.parseJson(HistoryFile))

const truncate = (text: string): string =>
  text.length <= HISTORY_TEXT_MAX ? text : `${text.slice(0, HISTORY_TEXT_MAX - HISTORY_TRUNCATED_MARKER.length)}${HISTORY_TRUNCATED_MARKER}`

const normalise = (e: HistoryEntry): HistoryEntry => {
  const base = { sender: truncate(e.sender), text: truncate(e.text), at: e.at, fromMe: e.fromMe }
  return e.messageGuid === undefined ? base : { ...base, messageGuid: e.messageGuid }
}

const weight = (e: HistoryEntry) => e.text.length + e.sender.length

export const makeChatHistory = (
  options: ChatHistoryOptions
): Effect.Effect<ChatHistoryApi, HistoryStoreError, Scope.Scope> =>
  Effect.gen(function*() {
    const file = options.file
    const perChat = Math.max(0, Math.floor(options.perChat))
    const maxChats = Math.max(1, options.maxChats ?? HISTORY_MAX_CHATS)
    const maxTotalChars = Math.max(1, options.maxTotalChars ?? HISTORY_MAX_TOTAL_CHARS)
    /** Map order = activity order: the first chat is the least recently active. */
    const chats = new Map<string, Array<HistoryEntry>>()
    const chars = new Map<string, number>()
    let total = 0
    let dirty = false

    const setChat = (chatGuid: string, entries: Array<HistoryEntry>) => {
      total -= chars.get(chatGuid) ?? 0
      chats.delete(chatGuid)
      chars.delete(chatGuid)
      if (entries.length === 0) return
      const w = entries.reduce((n, e) => n + weight(e), 0)
      chats.set(chatGuid, entries)
      chars.set(chatGuid, w)
      total += w
    }

    /** Evict the least recently active chats beyond maxChats / maxTotalChars; the newest one shrinks instead. */
    const evict = () => {
      while (chats.size > maxChats || (total > maxTotalChars && chats.size > 1)) {
        setChat(chats.keys().next().value as string, [])
      }
      if (total > maxTotalChars) {
        const [guid, entries] = chats.entries().next().value as [string, Array<HistoryEntry>]
        const kept = [...entries]
        let w = chars.get(guid) ?? 0
        while (kept.length > 1 && w > maxTotalChars) w -= weight(kept.shift()!)
        setChat(guid, kept)
      }
    }

    const text = yield* Effect.try({
      try: () => readFileIfExists(file),
      catch: (e) => new HistoryStoreError({ path: file, message: `cannot read the chat history ${file}: ${(e as Error).message}` })
    })
    if (text !== undefined) {
      const decoded = decodeFile(text)
      if (Either.isLeft(decoded)) {
        const aside = `${file}.corrupt`
        const moved = yield* Effect.sync(() => {
          try {
            fs.renameSync(file, aside)
            return true
          } catch {
            return false
          }
        })
        yield* Effect.logWarning(
          `the chat history ${file} is damaged; starting with an empty history${moved ? ` (the damaged file is kept as ${aside})` : ""}`
        )
      } else {
        let loaded = 0
        for (const [chatGuid, entries] of decoded.right.chats) {
          loaded += entries.length
          setChat(chatGuid, perChat === 0 ? [] : entries.slice(-perChat).map(normalise))
        }
        evict()
        // smaller bounds than last time: write the trimmed history back at the next flush
        let kept = 0
        for (const entries of chats.values()) kept += entries.length
        dirty = kept !== loaded
      }
    }

    const flush = Effect.suspend(() => {
      if (!dirty) return Effect.void
      dirty = false
      const body = JSON.stringify({ version: 1, chats: [...chats] })
      return Effect.try({
        try: () => writeFileAtomicSync(file, body + "\n"),
        catch: (e) => {
          dirty = true
          return new HistoryStoreError({ path: file, message: `cannot write the chat history ${file}: ${(e as Error).message}` })
        }
      })
    })

    yield* keepFlushed(flush, options.flushInterval ?? HISTORY_FLUSH_INTERVAL)

    const api: ChatHistoryApi = {
      record: (chatGuid, entry) =>
        Effect.sync(() => {
          if (perChat === 0) return
          const e = normalise(entry)
          const entries = [...(chats.get(chatGuid) ?? [])]
          const same = e.messageGuid === undefined ? -1 : entries.findIndex((x) => x.messageGuid === e.messageGuid)
          if (same >= 0) entries[same] = e
          else entries.push(e)
          setChat(chatGuid, entries.length > perChat ? entries.slice(-perChat) : entries) // now the most recent
          evict()
          dirty = true
        }),
      recent: (chatGuid, limit, excludeGuid) =>
        Effect.sync(() => {
          const n = Math.floor(limit)
          if (!(n > 0)) return []
          const entries = chats.get(chatGuid) ?? []
          const candidates = excludeGuid === undefined ? entries : entries.filter((e) => e.messageGuid !== excludeGuid)
          return candidates.slice(-n)
        }),
      flush
    }
    return api
  })
