import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { type Duration, Effect, type Scope } from "effect"

// Small synchronous file primitives shared by the msgbridge stores. Synchronous on purpose: the critical
// sections are a few small reads and writes, and a synchronous read-modify-write cannot interleave with
// another fiber of the same process, so the lock file only has to arbitrate between processes.

const errnoCode = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | undefined)?.code

export { tempPathFor, writeFileAtomicSync } from "../../platform/atomicWrite.js"

/** The file's text, or undefined when it does not exist. */
export const readFileIfExists = (file: string): string | undefined => {
  try {
    return fs.readFileSync(file, "utf8")
  } catch (e) {
    if (errnoCode(e) === "ENOENT") return undefined
    throw e
  }
}

export interface LockOptions {
  /** Give up after this long (ms). */
  readonly timeoutMs?: number
  /** A lock older than this is stale whatever its owner (ms); a crashed owner is detected sooner by pid. */
  readonly staleMs?: number
}

interface LockInfo {
  readonly pid: number
  readonly host: string
  readonly nonce: string
  readonly at: number
}

export class LockTimeout extends Error {
  constructor(readonly lockPath: string, readonly holder: string) {
    super(`timed out waiting for the lock ${lockPath} (held by ${holder}); if no svc process is running, delete it`)
  }
}

const sleepSync = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

const pidAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return errnoCode(e) === "EPERM"
  }
}

const readLock = (lockPath: string): { info: LockInfo | undefined; mtimeMs: number } | undefined => {
  try {
    const st = fs.statSync(lockPath)
    let info: LockInfo | undefined
    try {
      info = JSON.parse(fs.readFileSync(lockPath, "utf8")) as LockInfo
    } catch {
      info = undefined // being written, or garbage: judged by age alone
    }
    return { info, mtimeMs: st.mtimeMs }
  } catch (e) {
    if (errnoCode(e) === "ENOENT") return undefined
    throw e
  }
}

const isStale = (lock: { info: LockInfo | undefined; mtimeMs: number }, staleMs: number): boolean => {
  if (Date.now() - lock.mtimeMs > staleMs) return true
  const info = lock.info
  return info !== undefined && info.host === os.hostname() && info.pid !== process.pid && !pidAlive(info.pid)
}

/**
 * Break a stale lock without ever removing a fresh one: move it aside, check it is the one judged stale,
 * and if another process had replaced it meanwhile, put that one back (link fails if a third took over).
 */
const breakStaleLock = (lockPath: string, judged: { info: LockInfo | undefined; mtimeMs: number }): void => {
  const aside = `${lockPath}.${process.pid}.${crypto.randomBytes(4).toString("hex")}.stale`
  try {
    fs.renameSync(lockPath, aside)
  } catch (e) {
    if (errnoCode(e) === "ENOENT") return
    throw e
  }
  const moved = readLock(aside)
  const same = moved !== undefined &&
    (judged.info === undefined ? moved.info === undefined && moved.mtimeMs === judged.mtimeMs : moved.info?.nonce === judged.info.nonce)
  if (!same) {
    try {
      fs.linkSync(aside, lockPath)
    } catch {
      // Someone else holds a new lock now; the one we moved belonged to a holder that will find it gone.
    }
  }
  fs.rmSync(aside, { force: true })
}

/** Run `f` holding `lockPath` (created with O_EXCL), waiting for other processes as needed. */
export const withFileLockSync = <A>(lockPath: string, f: () => A, options: LockOptions = {}): A => {
  const timeoutMs = options.timeoutMs ?? 10_000
  const staleMs = options.staleMs ?? 30_000
  fs.mkdirSync(path.dirname(lockPath), { recursive: true, mode: 0o700 })
  const info: LockInfo = { pid: process.pid, host: os.hostname(), nonce: crypto.randomBytes(8).toString("hex"), at: Date.now() }
  const deadline = Date.now() + timeoutMs
  let delay = 1
  for (;;) {
    try {
      const fd = fs.openSync(lockPath, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY, 0o600)
      try {
        fs.writeSync(fd, JSON.stringify(info))
      } finally {
        fs.closeSync(fd)
      }
      break
    } catch (e) {
      if (errnoCode(e) !== "EEXIST") throw e
    }
    const held = readLock(lockPath)
    if (held !== undefined && isStale(held, staleMs)) {
      breakStaleLock(lockPath, held)
      continue
    }
    if (Date.now() > deadline) {
      throw new LockTimeout(lockPath, held?.info === undefined ? "an unknown process" : `pid ${held.info.pid} on ${held.info.host}`)
    }
    sleepSync(delay + Math.random() * delay)
    delay = Math.min(delay * 2, 25)
  }
  try {
    return f()
  } finally {
    // Only remove the lock if it is still ours (it may have been broken as stale after a very long hold).
    const current = readLock(lockPath)
    if (current?.info?.nonce === info.nonce) fs.rmSync(lockPath, { force: true })
  }
}

/**
 * Keep a write-behind store on disk: run `flush` every `interval` and once more when the scope closes.
 * A failed flush is logged and tried again at the next tick; it never ends the store.
 */
export const keepFlushed = <E extends { readonly message: string }>(
  flush: Effect.Effect<void, E>,
  interval: Duration.DurationInput
): Effect.Effect<void, never, Scope.Scope> => {
  const logged = flush.pipe(Effect.catchAll((e) => Effect.logWarning(e.message)))
  return Effect.zipRight(
    logged.pipe(Effect.delay(interval), Effect.forever, Effect.forkScoped),
    Effect.addFinalizer(() => logged)
  )
}
