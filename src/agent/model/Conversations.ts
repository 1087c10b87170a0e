import type { Prompt } from "@effect/ai"
import { Effect } from "effect"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { readFileIfExists, writeFileAtomicSync } from "../../msgbridge/store/durable.js"

// What the agent remembers of each chat: whole turns (a person's message, the model's tool calls and their
// results, its answer), oldest first, bounded by turns and characters, one small file per chat under
// <state dir>/agent/conversations/, written atomically once a turn is over. A turn is dropped whole, so a
// tool call never loses its result. A file that cannot be read is a conversation that starts afresh.

export type Turn = ReadonlyArray<Prompt.MessageEncoded>

export interface ConversationBounds {
  readonly maxTurns: number
  readonly maxChars: number
}

/** How many chats keep a conversation on disk; the least recently used go first. */
export const MAX_CHATS = 1_000

export interface Conversations {
  /** The chat's turns, oldest first. */
  readonly load: (chat: string) => Effect.Effect<ReadonlyArray<Turn>>
  /** Add a finished turn (and drop the oldest past the bounds). */
  readonly append: (chat: string, turn: Turn) => Effect.Effect<void, ConversationStoreError>
  /** `/new`: forget the chat's conversation. */
  readonly reset: (chat: string) => Effect.Effect<void, ConversationStoreError>
}

export class ConversationStoreError {
  readonly _tag = "ConversationStoreError"
  constructor(readonly message: string) {}
}

export const conversationsDir = (stateDir: string) => path.join(stateDir, "agent", "conversations")

/** Keep the newest turns that fit the bounds (always the newest one, even when it alone is longer). */
export const boundTurns = (turns: ReadonlyArray<Turn>, bounds: ConversationBounds): ReadonlyArray<Turn> => {
  const kept: Array<Turn> = []
  let chars = 0
  for (let i = turns.length - 1; i >= 0; i--) {
    const size = JSON.stringify(turns[i]).length
    if (kept.length > 0 && (kept.length >= bounds.maxTurns || chars + size > bounds.maxChars)) break
    kept.unshift(turns[i]!)
    chars += size
  }
  return kept
}

const fileOf = (dir: string, chat: string) => path.join(dir, `${crypto.createHash("sha256").update(chat).digest("hex").slice(0, 32)}.json`)

export const makeConversations = (dir: string, bounds: ConversationBounds): Conversations => {
  const read = (chat: string): ReadonlyArray<Turn> => {
    try {
      const text = readFileIfExists(fileOf(dir, chat))
      if (text === undefined) return []
      const parsed = JSON.parse(text) as { chat?: string; turns?: Array<Turn> }
      return parsed.chat === chat && Array.isArray(parsed.turns) ? parsed.turns : []
    } catch {
      return []
    }
  }
  /** Past MAX_CHATS files, remove the least recently written. */
  const prune = () => {
    const files = fs.readdirSync(dir).filter((f) => f.endsWith(".json"))
    if (files.length <= MAX_CHATS) return
    const byAge = files
      .map((f) => ({ f, at: fs.statSync(path.join(dir, f)).mtimeMs }))
      .sort((a, b) => a.at - b.at)
    for (const { f } of byAge.slice(0, files.length - MAX_CHATS)) fs.rmSync(path.join(dir, f), { force: true })
  }
  const write = (chat: string, turns: ReadonlyArray<Turn>) =>
    Effect.try({
      try: () => {
        const existed = fs.existsSync(fileOf(dir, chat))
        writeFileAtomicSync(fileOf(dir, chat), JSON.stringify({ chat, turns }))
        if (!existed) prune()
      },
      catch: (e) => new ConversationStoreError(`the conversation could not be saved: ${(e as Error).message}`)
    })
  return {
    load: (chat) => Effect.sync(() => read(chat)),
    append: (chat, turn) => Effect.suspend(() => write(chat, boundTurns([...read(chat), turn], bounds))),
    reset: (chat) =>
      Effect.try({
        try: () => fs.rmSync(fileOf(dir, chat), { force: true }),
        catch: (e) => new ConversationStoreError(`the conversation could not be reset: ${(e as Error).message}`)
      })
  }
}
