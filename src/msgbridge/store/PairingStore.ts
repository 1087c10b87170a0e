import { Clock, Data, Effect, Either, Schema } from "effect"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { type LockOptions, readFileIfExists, withFileLockSync, writeFileAtomicSync } from "./durable.js"
import { normalizeHandle } from "../channel/Handles.js"

// Pairing: an unknown DM sender gets a short code; the operator approves it with
// `svc pairing approve msgbridge <CODE>`, which moves the sender to a persisted allowlist.
//
// One JSON file per account, `<credentialsDir>/msgbridge-<account>-pairing.json`, holding both the pending
// requests and the approved senders, so approval is a single atomic rename. Every read-modify-write runs
// under `<file>.lock` (O_EXCL, stale by dead pid or age) and re-reads the file inside the lock, so the CLI
// and the gateway writing at once lose nothing. A file that does not parse is reported, never replaced.
// Times come from Effect's Clock (TestClock drives expiry).

export const PAIRING_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789" // no 0 O 1 I L
export const PAIRING_CODE_LENGTH = 8
export const PAIRING_TTL_MS = 60 * 60 * 1000
export const PAIRING_MAX_PENDING = 20

const LIST_HINT = "run `svc pairing list msgbridge` to see the current codes"

export class PairingStoreCorrupt extends Data.TaggedError("PairingStoreCorrupt")<{
  readonly path: string
  readonly message: string
}> {}

export class PairingStoreIoError extends Data.TaggedError("PairingStoreIoError")<{
  readonly path: string
  readonly message: string
}> {}

export class PairingLimitReached extends Data.TaggedError("PairingLimitReached")<{
  readonly max: number
  readonly message: string
}> {}

export class PairingCodeUnknown extends Data.TaggedError("PairingCodeUnknown")<{
  readonly code: string
  readonly message: string
}> {}

export type PairingError = PairingStoreCorrupt | PairingStoreIoError | PairingLimitReached | PairingCodeUnknown

const PendingRecord = Schema.Struct({
  code: Schema.String,
  sender: Schema.String,
  chatGuid: Schema.String,
  createdAt: Schema.Number
})
const ApprovedRecord = Schema.Struct({
  sender: Schema.String,
  approvedAt: Schema.Number,
  chatGuid: Schema.optional(Schema.String)
})
const PairingFile = Schema.Struct({
  version: Schema.Literal(1),
  pending: Schema.Array(PendingRecord),
  approved: Schema.Array(ApprovedRecord)
})
type PairingFile = typeof PairingFile.Type
export type PendingRecord = typeof PendingRecord.Type
export type ApprovedRecord = typeof ApprovedRecord.Type

const decodeFile = Schema.decodeUnknownEither(PairingFile)
const EMPTY: PairingFile = { version: 1, pending: [], approved: [] }

export interface PendingPairing extends PendingRecord {
  readonly ageMs: number
  readonly expiresAt: number
}

export interface PairingRequestResult {
  readonly code: string
  /** false when the sender already had a live code: do not send it again with every message. */
  readonly created: boolean
  readonly expiresAt: number
}

export interface PairingStoreApi {
  readonly file: string
  /** A code for `sender` (existing live one, or a new one). */
  readonly request: (sender: string, chatGuid: string) => Effect.Effect<PairingRequestResult, PairingError>
  /** Approve a live code (any case, spaces and dashes ignored): the sender joins the approved list. */
  readonly approve: (code: string) => Effect.Effect<{ readonly sender: string; readonly chatGuid: string }, PairingError>
  /** Live pending requests, oldest first, with their age. */
  readonly list: () => Effect.Effect<ReadonlyArray<PendingPairing>, PairingError>
  readonly approved: () => Effect.Effect<ReadonlyArray<ApprovedRecord>, PairingError>
  readonly isApproved: (sender: string) => Effect.Effect<boolean, PairingError>
  /** Remove a sender from the approved list; true when it was there. */
  readonly revoke: (sender: string) => Effect.Effect<boolean, PairingError>
}

export interface PairingStoreOptions {
  readonly credentialsDir: string
  readonly accountId?: string
  readonly maxPending?: number
  readonly ttlMs?: number
  readonly lock?: LockOptions
}

export const pairingFilePath = (credentialsDir: string, accountId = "default"): string =>
  path.join(credentialsDir, `msgbridge-${accountId.replace(/[^A-Za-z0-9_-]/g, "_")}-pairing.json`)

export const generatePairingCode = (): string => {
  let code = ""
  for (let i = 0; i < PAIRING_CODE_LENGTH; i++) code += PAIRING_CODE_ALPHABET[crypto.randomInt(PAIRING_CODE_ALPHABET.length)]
  return code
}

/** How a typed code is compared: upper case, without spaces or dashes. */
export const normalizePairingCode = (code: string): string => code.toUpperCase().replace(/[\s-]/g, "")

export const makePairingStore = (options: PairingStoreOptions): PairingStoreApi => {
  const file = pairingFilePath(options.credentialsDir, options.accountId)
  const lockPath = `${file}.lock`
  const maxPending = options.maxPending ?? PAIRING_MAX_PENDING
  const ttlMs = options.ttlMs ?? PAIRING_TTL_MS

  const parse = (text: string): PairingFile => {
    let raw: unknown
    try {
      raw = JSON.parse(text)
    } catch (e) {
      throw new PairingStoreCorrupt({
        path: file,
        message: `the pairing store ${file} is not valid JSON (${(e as Error).message}); it was left untouched: repair or move it aside`
      })
    }
    const decoded = decodeFile(raw)
    if (Either.isLeft(decoded)) {
      throw new PairingStoreCorrupt({
        path: file,
        message: `the pairing store ${file} has an unexpected shape; it was left untouched: repair or move it aside`
      })
    }
    return decoded.right
  }

  // Reads are cached by the file's identity; every write renames a new inode into place.
  let cache: { key: string; state: PairingFile } | undefined
  const readState = (): PairingFile => {
    let st: fs.Stats
    try {
      st = fs.statSync(file)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return EMPTY
      throw e
    }
    const key = `${st.ino}:${st.size}:${st.mtimeMs}`
    if (cache?.key === key) return cache.state
    const text = readFileIfExists(file)
    if (text === undefined) return EMPTY
    const state = parse(text)
    cache = { key, state }
    return state
  }

  const toError = (e: unknown): PairingError =>
    e instanceof PairingStoreCorrupt || e instanceof PairingLimitReached || e instanceof PairingCodeUnknown ||
      e instanceof PairingStoreIoError
      ? e
      : new PairingStoreIoError({ path: file, message: `pairing store ${file}: ${(e as Error).message}` })

  const live = (state: PairingFile, now: number) => state.pending.filter((p) => now - p.createdAt < ttlMs)

  /** Read-modify-write under the lock; `f` returns the result and the new state (undefined: no write). */
  const mutate = <A>(f: (state: PairingFile, now: number) => readonly [A, PairingFile | undefined]) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.try({
        try: () =>
          withFileLockSync(lockPath, () => {
            const state = readState()
            const [result, next] = f(state, now)
            if (next !== undefined) writeFileAtomicSync(file, JSON.stringify(next, null, 2) + "\n")
            return result
          }, options.lock),
        catch: toError
      }))

  const read = <A>(f: (state: PairingFile, now: number) => A) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.try({ try: () => f(readState(), now), catch: toError }))

  const request: PairingStoreApi["request"] = (rawSender, chatGuid) =>
    mutate((state, now) => {
      const sender = normalizeHandle(rawSender)
      const pending = live(state, now)
      const pruned = pending.length !== state.pending.length
      const existing = pending.find((p) => p.sender === sender)
      if (existing !== undefined) {
        const result = { code: existing.code, created: false, expiresAt: existing.createdAt + ttlMs }
        return [result, pruned ? { ...state, pending } : undefined] as const
      }
      if (pending.length >= maxPending) {
        throw new PairingLimitReached({
          max: maxPending,
          message: `${pending.length} pairing requests are already pending (the limit is ${maxPending}); ` +
            `approve some (${LIST_HINT}) or wait for codes to expire`
        })
      }
      const taken = new Set(pending.map((p) => p.code))
      let code = generatePairingCode()
      while (taken.has(code)) code = generatePairingCode()
      const record: PendingRecord = { code, sender, chatGuid, createdAt: now }
      return [{ code, created: true, expiresAt: now + ttlMs }, { ...state, pending: [...pending, record] }] as const
    })

  const approve: PairingStoreApi["approve"] = (rawCode) =>
    mutate((state, now) => {
      const code = normalizePairingCode(rawCode)
      const pending = live(state, now)
      const hit = pending.find((p) => p.code === code)
      if (hit === undefined) {
        const expired = state.pending.some((p) => p.code === code)
        throw new PairingCodeUnknown({
          code,
          message: `pairing code ${code} is ${expired ? "expired" : "unknown"}; ${LIST_HINT} and approve a live one`
        })
      }
      const approved = state.approved.filter((a) => a.sender !== hit.sender)
      const next: PairingFile = {
        version: 1,
        pending: pending.filter((p) => p.code !== code),
        approved: [...approved, { sender: hit.sender, approvedAt: now, chatGuid: hit.chatGuid }]
      }
      return [{ sender: hit.sender, chatGuid: hit.chatGuid }, next] as const
    })

  const revoke: PairingStoreApi["revoke"] = (rawSender) =>
    mutate((state) => {
      const sender = normalizeHandle(rawSender)
      const approved = state.approved.filter((a) => a.sender !== sender)
      return approved.length === state.approved.length
        ? [false, undefined] as const
        : [true, { ...state, approved }] as const
    })

  return {
    file,
    request,
    approve,
    revoke,
    list: () =>
      read((state, now) =>
        live(state, now)
          .map((p) => ({ ...p, ageMs: now - p.createdAt, expiresAt: p.createdAt + ttlMs }))
          .sort((a, b) => a.createdAt - b.createdAt)
      ),
    approved: () => read((state) => state.approved),
    isApproved: (rawSender) => {
      const sender = normalizeHandle(rawSender)
      return read((state) => state.approved.some((a) => a.sender === sender))
    }
  }
}
