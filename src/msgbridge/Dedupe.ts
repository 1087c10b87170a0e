import { Clock, Context, Data, Deferred, Effect, Layer, Queue, type Scope } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { readFileIfExists, writeFileAtomicSync } from "./durable.js"

// Exactly-once intake. One append-only journal per account (JSON lines), replayed at start-up:
//   {"t":"seen","g":guid,"at":ms}          a guid processed (markIfNew)
//   {"t":"acc","g":guid,"at":ms,"e":event} an event accepted into the inbox (also marks the guid seen)
//   {"t":"done","g":guid,"at":ms}          an inbox event finished
//   {"t":"cur","v":ms}                     the catch-up cursor moved forward
// Every call that reports success has its record written and fdatasync'ed first (persist before ack).
// Concurrent callers are group-committed: one writer fiber appends whatever is queued in one write and one
// sync, so throughput grows with load instead of paying a sync per message.
// The seen set keeps the newest `capacity` guids (inbox entries are kept until done, whatever their age);
// the journal is compacted (atomic rewrite) once it holds about twice what the state needs.
// A torn last line (crash mid-append) is dropped at start-up; damage anywhere else is reported.
// One process owns a journal: the gateway. (The CLI never writes it.)

export const DEDUPE_CAPACITY = 10_000

export class DedupeStoreError extends Data.TaggedError("DedupeStoreError")<{
  readonly path: string
  readonly message: string
}> {}

type JournalRecord =
  | { readonly t: "seen"; readonly g: string; readonly at: number }
  | { readonly t: "acc"; readonly g: string; readonly at: number; readonly e: unknown }
  | { readonly t: "done"; readonly g: string; readonly at: number }
  | { readonly t: "cur"; readonly v: number }

export interface InboxEntry {
  readonly guid: string
  readonly acceptedAt: number
  readonly event: unknown
}

export interface DedupeApi {
  /** true exactly once per guid (and only after the mark is durable); false for a repeat. */
  readonly markIfNew: (guid: string) => Effect.Effect<boolean, DedupeStoreError>
  /**
   * Persist a raw inbound event before acknowledging its webhook. true: new and now durable (ack, then
   * process, then `done`); false: a repeat of a guid already seen or accepted (ack and drop).
   */
  readonly accept: (guid: string, event: unknown) => Effect.Effect<boolean, DedupeStoreError>
  /** Accepted but not yet done, oldest first: what start-up recovery must process. */
  readonly pending: () => Effect.Effect<ReadonlyArray<InboxEntry>>
  readonly done: (guid: string) => Effect.Effect<void, DedupeStoreError>
  readonly isSeen: (guid: string) => boolean
  /** The catch-up cursor (epoch ms) or undefined before the first advance. */
  readonly cursor: () => Effect.Effect<number | undefined>
  /** Move the cursor forward (never backwards); durable on return. */
  readonly advance: (epochMs: number) => Effect.Effect<void, DedupeStoreError>
}

export interface DedupeOptions {
  /** Suggested: `<msgbridgeDir>/<accountId>/journal.jsonl`. */
  readonly file: string
  readonly capacity?: number
  /** fdatasync each commit (default true). */
  readonly sync?: boolean
}

export const dedupeJournalPath = (msgbridgeDir: string, accountId = "default"): string =>
  path.join(msgbridgeDir, accountId.replace(/[^A-Za-z0-9_-]/g, "_"), "journal.jsonl")

interface Job {
  readonly record: JournalRecord
  readonly deferred: Deferred.Deferred<void, DedupeStoreError>
}

const isRecord = (v: unknown): v is JournalRecord => {
  if (typeof v !== "object" || v === null) return false
  const r = v as Record<string, unknown>
  switch (r.t) {
    case "seen":
    case "done":
      return typeof r.g === "string" && typeof r.at === "number"
    case "acc":
      return typeof r.g === "string" && typeof r.at === "number" && "e" in r
    case "cur":
      return typeof r.v === "number"
    default:
      return false
  }
}

export const makeDedupe = (options: DedupeOptions): Effect.Effect<DedupeApi, DedupeStoreError, Scope.Scope> =>
  Effect.gen(function*() {
    const file = options.file
    const capacity = Math.max(1, options.capacity ?? DEDUPE_CAPACITY)
    const sync = options.sync ?? true
    const ioError = (what: string) => (e: unknown) =>
      new DedupeStoreError({ path: file, message: `cannot ${what} ${file}: ${(e as Error).message}` })

    // Committed state: only what is durable in the journal.
    const seen = new Map<string, number>() // insertion order = eviction order
    const inbox = new Map<string, InboxEntry>()
    let cursor: number | undefined
    let records = 0
    // Claimed in memory, record not yet durable: makes markIfNew/accept atomic between fibers.
    const claimed = new Set<string>()

    const apply = (r: JournalRecord): void => {
      records++
      switch (r.t) {
        case "seen":
        case "acc":
          seen.delete(r.g)
          seen.set(r.g, r.at)
          if (r.t === "acc") inbox.set(r.g, { guid: r.g, acceptedAt: r.at, event: r.e })
          while (seen.size > capacity) seen.delete(seen.keys().next().value as string)
          return
        case "done":
          inbox.delete(r.g)
          return
        case "cur":
          if (cursor === undefined || r.v > cursor) cursor = r.v
      }
    }

    // ---- replay ----
    const text = yield* Effect.try({ try: () => readFileIfExists(file), catch: ioError("read") })
    let goodSize = 0
    if (text !== undefined) {
      const lines = text.split("\n")
      let offset = 0
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i]!
        const complete = i < lines.length - 1
        const lineBytes = Buffer.byteLength(line) + (complete ? 1 : 0)
        if (line === "") {
          offset += lineBytes
          continue
        }
        let parsed: unknown
        try {
          parsed = JSON.parse(line)
        } catch {
          parsed = undefined
        }
        if (!complete || !isRecord(parsed)) {
          const isTail = lines.slice(i + 1).every((l) => l === "")
          if (isTail) break // torn last record: it was never acknowledged
          return yield* new DedupeStoreError({
            path: file,
            message: `the message journal ${file} is damaged at line ${i + 1}; it was left untouched: repair or move it aside`
          })
        }
        apply(parsed)
        offset += lineBytes
      }
      goodSize = offset
    }
    yield* Effect.try({
      try: () => {
        fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
        if (text !== undefined && goodSize < Buffer.byteLength(text)) fs.truncateSync(file, goodSize)
      },
      catch: ioError("repair")
    })

    const openAppend = () =>
      Effect.tryPromise({ try: () => fs.promises.open(file, "a", 0o600), catch: ioError("open") })
    let fh = yield* openAppend()
    goodSize = (yield* Effect.tryPromise({ try: () => fh.stat(), catch: ioError("stat") })).size

    const snapshot = (): string => {
      const out: Array<string> = []
      for (const [g, at] of seen) if (!inbox.has(g)) out.push(JSON.stringify({ t: "seen", g, at }))
      for (const e of inbox.values()) out.push(JSON.stringify({ t: "acc", g: e.guid, at: e.acceptedAt, e: e.event }))
      if (cursor !== undefined) out.push(JSON.stringify({ t: "cur", v: cursor }))
      return out.length === 0 ? "" : out.join("\n") + "\n"
    }

    const compactIfLarge = Effect.suspend(() => {
      if (records <= 2 * (seen.size + inbox.size) + 100) return Effect.void
      return Effect.gen(function*() {
        yield* Effect.tryPromise({ try: () => fh.close(), catch: ioError("close") })
        const body = snapshot()
        yield* Effect.try({ try: () => writeFileAtomicSync(file, body), catch: ioError("compact") })
        records = seen.size + (cursor === undefined ? 0 : 1)
        fh = yield* openAppend()
        goodSize = Buffer.byteLength(body)
      })
    })

    const queue = yield* Queue.unbounded<Job>()

    const commit = (jobs: ReadonlyArray<Job>) =>
      Effect.gen(function*() {
        const body = jobs.map((j) => JSON.stringify(j.record) + "\n").join("")
        const written = yield* Effect.either(Effect.tryPromise({
          try: async () => {
            await fh.write(body)
            if (sync) await fh.datasync()
          },
          catch: ioError("append to")
        }))
        if (written._tag === "Left") {
          // Drop a partial append so later records do not follow a torn line.
          yield* Effect.promise(() => fh.truncate(goodSize).catch(() => undefined))
          for (const j of jobs) yield* Deferred.fail(j.deferred, written.left)
          return
        }
        goodSize += Buffer.byteLength(body)
        for (const j of jobs) apply(j.record)
        for (const j of jobs) yield* Deferred.succeed(j.deferred, undefined)
        yield* compactIfLarge.pipe(Effect.catchAll((e) => Effect.logWarning(e.message)))
      })

    // Runs after the writer is interrupted (finalizers run in reverse order): nobody waits forever.
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        const left = yield* Queue.takeAll(queue)
        const closed = new DedupeStoreError({ path: file, message: `the message journal ${file} is closed` })
        for (const j of left) yield* Deferred.fail(j.deferred, closed)
        yield* Effect.promise(() => fh.close().catch(() => undefined))
      })
    )
    yield* Effect.gen(function*() {
      const first = yield* Queue.take(queue)
      const rest = yield* Queue.takeAll(queue)
      yield* commit([first, ...rest])
    }).pipe(Effect.forever, Effect.forkScoped)

    const write = (record: JournalRecord) =>
      Effect.gen(function*() {
        const deferred = yield* Deferred.make<void, DedupeStoreError>()
        yield* Queue.offer(queue, { record, deferred })
        yield* Deferred.await(deferred)
      })

    const isSeen = (guid: string) => seen.has(guid) || inbox.has(guid) || claimed.has(guid)

    const claimThen = (guid: string, record: (at: number) => JournalRecord) =>
      Effect.flatMap(Clock.currentTimeMillis, (at) =>
        Effect.suspend(() => {
          if (isSeen(guid)) return Effect.succeed(false)
          claimed.add(guid)
          return write(record(at)).pipe(Effect.as(true), Effect.ensuring(Effect.sync(() => claimed.delete(guid))))
        }))

    let cursorAsked: number | undefined
    const api: DedupeApi = {
      markIfNew: (guid) => claimThen(guid, (at) => ({ t: "seen", g: guid, at })),
      accept: (guid, event) => claimThen(guid, (at) => ({ t: "acc", g: guid, at, e: event })),
      pending: () => Effect.sync(() => [...inbox.values()].sort((a, b) => a.acceptedAt - b.acceptedAt)),
      done: (guid) =>
        Effect.flatMap(Clock.currentTimeMillis, (at) =>
          Effect.suspend(() => (inbox.has(guid) ? write({ t: "done", g: guid, at }) : Effect.void))),
      isSeen,
      cursor: () => Effect.sync(() => cursor),
      advance: (epochMs) =>
        Effect.suspend(() => {
          const highest = Math.max(cursor ?? -Infinity, cursorAsked ?? -Infinity)
          if (epochMs <= highest) return Effect.void
          const before = cursorAsked
          cursorAsked = epochMs
          return write({ t: "cur", v: epochMs }).pipe(Effect.tapError(() => Effect.sync(() => (cursorAsked = before))))
        })
    }
    return api
  })

/** The exactly-once journal of the channel's account. */
export class Dedupe extends Context.Tag("svc/msgbridge/Dedupe")<Dedupe, DedupeApi>() {
  static readonly layer = (options: DedupeOptions): Layer.Layer<Dedupe, DedupeStoreError> =>
    Layer.scoped(Dedupe, makeDedupe(options))
}
