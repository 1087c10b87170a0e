import { Data, Duration, Effect, Either, Schema, type Scope } from "effect"
import * as path from "node:path"
import { keepFlushed, readFileIfExists, writeFileAtomicSync } from "./durable.js"

// Short message ids ("1", "2", …) stand for bridge message guids in what the agent sees (MessageSid,
// ReplyToId) to save tokens. A bounded cache, oldest entry evicted, persisted write-behind (at most one
// write per flush interval, atomic) so the numbers survive a restart.
//
// Numbers are never reused: the counter only grows, so a stale short id from an old transcript either
// resolves to its own message or fails, never to a different message. Assigning a known guid again returns
// its number and counts as a use (it moves to the young end of the eviction order).

export const SHORT_IDS_CAPACITY = 2000
export const SHORT_IDS_FLUSH_INTERVAL = Duration.seconds(1)

export class ShortIdUnknown extends Data.TaggedError("ShortIdUnknown")<{
  readonly shortId: string
  readonly message: string
}> {}

export class ShortIdsStoreError extends Data.TaggedError("ShortIdsStoreError")<{
  readonly path: string
  readonly message: string
}> {}

const ShortIdsFile = Schema.Struct({
  version: Schema.Literal(1),
  next: Schema.Int,
  /** [short, guid], oldest first. */
  entries: Schema.Array(Schema.Tuple(Schema.String, Schema.String))
})
const decodeFile = Schema.decodeUnknownEither(Schema.parseJson(ShortIdsFile))

export interface ShortIdsApi {
  /** The short id of `guid`, assigning the next number when it has none. */
  readonly assign: (guid: string) => Effect.Effect<string>
  /** A short id → its guid; anything not all digits is taken as a full guid and returned as is. */
  readonly resolve: (shortOrFull: string) => Effect.Effect<string, ShortIdUnknown>
  /** The short id of a guid, if it has one (no assignment). */
  readonly shortOf: (guid: string) => string | undefined
  /** Persist now if anything changed (the background flusher and the scope's end call it too). */
  readonly flush: Effect.Effect<void, ShortIdsStoreError>
  readonly size: () => number
}

export interface ShortIdsOptions {
  /** Suggested: `<msgbridgeDir>/<accountId>/short-ids.json`. */
  readonly file: string
  readonly capacity?: number
  readonly flushInterval?: Duration.DurationInput
}

export const shortIdsFilePath = (msgbridgeDir: string, accountId = "default"): string =>
  path.join(msgbridgeDir, accountId.replace(/[^A-Za-z0-9_-]/g, "_"), "short-ids.json")

export const isShortId = (s: string): boolean => /^\d{1,15}$/.test(s.trim())

export const makeShortIds = (
  options: ShortIdsOptions
): Effect.Effect<ShortIdsApi, ShortIdsStoreError, Scope.Scope> =>
  Effect.gen(function*() {
    const file = options.file
    const capacity = Math.max(1, options.capacity ?? SHORT_IDS_CAPACITY)
    const byGuid = new Map<string, string>() // insertion order = eviction order
    const byShort = new Map<string, string>()
    let next = 1
    let dirty = false

    const text = yield* Effect.try({
      try: () => readFileIfExists(file),
      catch: (e) => new ShortIdsStoreError({ path: file, message: `cannot read ${file}: ${(e as Error).message}` })
    })
    if (text !== undefined) {
      const decoded = decodeFile(text)
      if (Either.isLeft(decoded)) {
        // Refuse rather than restart numbering: a reset counter would make old short ids point at new messages.
        return yield* new ShortIdsStoreError({
          path: file,
          message: `the short id cache ${file} is corrupt; delete it to start over (old short ids will stop resolving)`
        })
      }
      next = decoded.right.next
      for (const [short, guid] of decoded.right.entries.slice(-capacity)) {
        byGuid.set(guid, short)
        byShort.set(short, guid)
      }
    }

    const evict = () => {
      while (byGuid.size > capacity) {
        const [guid, short] = byGuid.entries().next().value as [string, string]
        byGuid.delete(guid)
        byShort.delete(short)
      }
    }

    const flush = Effect.suspend(() => {
      if (!dirty) return Effect.void
      dirty = false
      const body = JSON.stringify({ version: 1, next, entries: [...byGuid].map(([guid, short]) => [short, guid]) })
      return Effect.try({
        try: () => writeFileAtomicSync(file, body + "\n"),
        catch: (e) => {
          dirty = true
          return new ShortIdsStoreError({ path: file, message: `cannot write ${file}: ${(e as Error).message}` })
        }
      })
    })

    yield* keepFlushed(flush, options.flushInterval ?? SHORT_IDS_FLUSH_INTERVAL)

    const api: ShortIdsApi = {
      assign: (guid) =>
        Effect.sync(() => {
          const known = byGuid.get(guid)
          if (known !== undefined) {
            byGuid.delete(guid)
            byGuid.set(guid, known)
            dirty = true
            return known
          }
          const short = String(next++)
          byGuid.set(guid, short)
          byShort.set(short, guid)
          evict()
          dirty = true
          return short
        }),
      resolve: (shortOrFull) =>
        Effect.suspend(() => {
          const s = shortOrFull.trim()
          if (!isShortId(s)) return Effect.succeed(s)
          const guid = byShort.get(String(Number(s)))
          return guid !== undefined
            ? Effect.succeed(guid)
            : Effect.fail(
              new ShortIdUnknown({
                shortId: s,
                message: `short id ${s} is no longer known; use the full message id (MessageSidFull)`
              })
            )
        }),
      shortOf: (guid) => byGuid.get(guid),
      flush,
      size: () => byGuid.size
    }
    return api
  })
