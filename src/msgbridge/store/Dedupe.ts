import { Clock, Data, Effect, Exit, Runtime, type Scope } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { readFileIfExists, writeFileAtomicSync } from "./durable.js"

// Exactly-once intake. One append-only journal per account (JSON lines), replayed at start-up:
//   {"t":"seen","g":guid,"at":ms}          a guid processed (markIfNew)
//   {"t":"acc","g":guid,"at":ms,"e":event} an event accepted into the inbox (also marks the guid seen)
//   {"t":"out","g":guid,"at":ms}           its reply is about to be sent (written before the first send)
//   {"t":"done","g":guid,"at":ms}          an inbox event finished
//   {"t":"cur","v":ms}                     the catch-up cursor moved forward
// Every call that reports success has its record written and fdatasync'ed first (persist before ack).
// Concurrent callers are group-committed: while one append+sync is in flight, new records queue and go out
// together in the next one, so throughput grows with load instead of paying a sync per message.
// The seen set keeps the newest `capacity` guids (inbox entries are kept until done, whatever their age);
// the journal is compacted (atomic rewrite) once it holds about twice what the state needs.
// A torn last line (crash mid-append) is dropped at start-up; damage anywhere else is reported.
// A reply is sent only once its "out" mark is durable, so a message whose "done" could not be written (a full
// disk) or whose reply was cut by a stop is never answered twice: recovery skips what was marked "out".
// Every failed write is kept in `health` for `svc status`.
// One process owns a journal: the gateway. (The CLI never writes it.)

export const DEDUPE_CAPACITY = 10_000

export class DedupeStoreError extends Data.TaggedError("DedupeStoreError")<{
  readonly path: string
  readonly message: string
}> {}

type JournalRecord =
  | { readonly t: "seen"; readonly g: string; readonly at: number }
  | { readonly t: "acc"; readonly g: string; readonly at: number; readonly e: unknown }
  | { readonly t: "out"; readonly g: string; readonly at: number }
  | { readonly t: "done"; readonly g: string; readonly at: number }
  | { readonly t: "cur"; readonly v: number }

export interface InboxEntry {
  readonly guid: string
  readonly acceptedAt: number
  readonly event: unknown
  /** Its reply was started (the "out" mark): it must not be answered again. */
  readonly replying: boolean
}

/** Whether the journal could be written lately. */
export interface JournalHealth {
  readonly file: string
  /** The last write succeeded (or none failed yet). */
  readonly ok: boolean
  /** Writes that failed since start. */
  readonly failedWrites: number
  readonly lastError?: string
  readonly lastErrorAt?: string
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
  /**
   * Before the first message of a reply goes out: its mark, durable on return. Fails when it cannot be
   * written; then the reply must not be sent (a restart could not know it was).
   */
  readonly replying: (guid: string) => Effect.Effect<void, DedupeStoreError>
  readonly done: (guid: string) => Effect.Effect<void, DedupeStoreError>
  readonly health: () => JournalHealth
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
  readonly line: string
  readonly resume: (exit: Exit.Exit<void, DedupeStoreError>) => void
}

const isRecord = (v: unknown): v is JournalRecord => {
  if (typeof v !== "object" || v === null) return false
  const r = v as Record<string, unknown>
  switch (r.t) {
    case "seen":
    case "out":
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
          if (r.t === "acc") inbox.set(r.g, { guid: r.g, acceptedAt: r.at, event: r.e, replying: false })
          while (seen.size > capacity) seen.delete(seen.keys().next().value as string)
          return
        case "out": {
          const entry = inbox.get(r.g)
          if (entry !== undefined) inbox.set(r.g, { ...entry, replying: true })
          return
        }
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

    const openAppend = () => fs.openSync(file, "a", 0o600)
    let fd = yield* Effect.try({ try: openAppend, catch: ioError("open") })
    goodSize = yield* Effect.try({ try: () => fs.fstatSync(fd).size, catch: ioError("stat") })

    const snapshot = (): string => {
      const out: Array<string> = []
      for (const [g, at] of seen) if (!inbox.has(g)) out.push(JSON.stringify({ t: "seen", g, at }))
      for (const e of inbox.values()) {
        out.push(JSON.stringify({ t: "acc", g: e.guid, at: e.acceptedAt, e: e.event }))
        if (e.replying) out.push(JSON.stringify({ t: "out", g: e.guid, at: e.acceptedAt }))
      }
      if (cursor !== undefined) out.push(JSON.stringify({ t: "cur", v: cursor }))
      return out.length === 0 ? "" : out.join("\n") + "\n"
    }

    /** Between commits only (nothing in flight): rewrite the journal as the state it holds. */
    const compactIfLarge = (): void => {
      if (records <= 2 * (seen.size + inbox.size) + 100) return
      fs.closeSync(fd)
      const body = snapshot()
      try {
        writeFileAtomicSync(file, body)
        records = seen.size + [...inbox.values()].filter((e) => e.replying).length + (cursor === undefined ? 0 : 1)
      } finally {
        fd = openAppend()
        goodSize = fs.fstatSync(fd).size
      }
    }

    // ---- the group-commit writer ----
    // Plain callbacks rather than a writer fiber with a queue and a deferred per record: this is on every
    // webhook's path, and the callbacks cost a fraction of the fibers. One commit is in flight at a time;
    // whatever is queued meanwhile goes out together in the next one (one write, one fdatasync).
    const runtime = yield* Effect.runtime<never>()
    const warn = (message: string) => Runtime.runFork(runtime)(Effect.logWarning(message))
    let queued: Array<Job> = []
    let committing = false
    let closed: DedupeStoreError | undefined
    const idle: Array<() => void> = []

    let health: JournalHealth = { file, ok: true, failedWrites: 0 }
    const settle = (jobs: ReadonlyArray<Job>, bytes: number, error: unknown) => {
      if (error !== undefined) {
        const failure = ioError("append to")(error)
        health = {
          file,
          ok: false,
          failedWrites: health.failedWrites + 1,
          lastError: failure.message,
          lastErrorAt: new Date().toISOString()
        }
        Runtime.runFork(runtime)(Effect.logError(`msgbridge journal: ${failure.message} (what it records is not durable)`))
        // Drop a partial append so later records do not follow a torn line.
        try {
          fs.ftruncateSync(fd, goodSize)
        } catch {
          // the next append reports the file's state
        }
        const failed = ioError("append to")(error)
        for (const j of jobs) j.resume(Exit.fail(failed))
      } else {
        if (!health.ok) health = { ...health, ok: true }
        goodSize += bytes
        for (const j of jobs) apply(j.record)
        for (const j of jobs) j.resume(Exit.void)
        try {
          compactIfLarge()
        } catch (e) {
          warn(ioError("compact")(e).message)
        }
      }
      committing = false
      if (closed === undefined) commitQueued()
      if (!committing) for (const wake of idle.splice(0)) wake()
    }

    const commitQueued = (): void => {
      if (committing || queued.length === 0) return
      committing = true
      const jobs = queued
      queued = []
      const data = Buffer.from(jobs.length === 1 ? jobs[0]!.line : jobs.map((j) => j.line).join(""), "utf8")
      const writeFrom = (offset: number): void =>
        fs.write(fd, data, offset, data.length - offset, null, (error, written) => {
          if (error !== null) return settle(jobs, data.length, error)
          if (offset + written < data.length) return writeFrom(offset + written)
          if (!sync) return settle(jobs, data.length, undefined)
          fs.fdatasync(fd, (syncError) => settle(jobs, data.length, syncError ?? undefined))
        })
      writeFrom(0)
    }

    // Scope end: let the commit in flight finish (its callers were promised durability), fail the rest.
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        closed = new DedupeStoreError({ path: file, message: `the message journal ${file} is closed` })
        if (committing) yield* Effect.async<void>((resume) => void idle.push(() => resume(Effect.void)))
        const left = queued
        queued = []
        for (const j of left) j.resume(Exit.fail(closed))
        yield* Effect.sync(() => {
          try {
            fs.closeSync(fd)
          } catch {
            // already closed
          }
        })
      })
    )

    /** Resolves once the record is written and synced (or fails with what went wrong). */
    const write = (record: JournalRecord) =>
      Effect.async<void, DedupeStoreError>((resume) => {
        if (closed !== undefined) return resume(Exit.fail(closed))
        queued.push({ record, line: JSON.stringify(record) + "\n", resume })
        commitQueued()
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
      replying: (guid) =>
        Effect.flatMap(Clock.currentTimeMillis, (at) =>
          Effect.suspend(() => {
            const entry = inbox.get(guid)
            return entry !== undefined && !entry.replying ? write({ t: "out", g: guid, at }) : Effect.void
          })),
      done: (guid) =>
        Effect.flatMap(Clock.currentTimeMillis, (at) =>
          Effect.suspend(() => (inbox.has(guid) ? write({ t: "done", g: guid, at }) : Effect.void))),
      health: () => health,
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
