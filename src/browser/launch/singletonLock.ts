import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import { isAlive } from "./processes.js"

// Chromium refuses a profile whose SingletonLock names another live browser. A crashed run leaves its lock
// behind; such a lock is cleared, a live one is reported.

export type LockState =
  | { readonly _tag: "none" }
  | { readonly _tag: "removed"; readonly pid: number }
  | { readonly _tag: "in-use"; readonly pid: number }
  | { readonly _tag: "other-host"; readonly host: string; readonly pid: number }

const SINGLETONS = ["SingletonLock", "SingletonSocket", "SingletonCookie"] as const

/** Whether a live pid is plausibly the browser holding this profile (pids are reused after a crash). */
const holdsProfile = async (pid: number, userDataDir: string): Promise<boolean> => {
  if (process.platform !== "linux") return true
  const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => undefined)
  if (cmdline === undefined) return true
  if (cmdline.includes(userDataDir)) return true
  const exe = await fs.readlink(`/proc/${pid}/exe`).catch(() => "")
  return /chrom|brave|edge|vivaldi|opera/i.test(path.basename(exe))
}

/** The live process of this computer that the profile's SingletonLock names, if any. */
export const lockHolder = async (userDataDir: string): Promise<number | undefined> => {
  const target = await fs.readlink(path.join(userDataDir, "SingletonLock")).catch(() => undefined)
  const m = target === undefined ? null : /^(.*)-(\d+)$/.exec(target)
  if (m === null || m[1] !== os.hostname()) return undefined
  const pid = Number(m[2])
  return isAlive(pid) ? pid : undefined
}

/**
 * Chromium's SingletonLock is a symlink to "<host>-<pid>". When that process is gone (a crashed earlier
 * run), or its pid now belongs to something that is not a browser, the three Singleton files are removed
 * so the next launch is not refused. A lock from another host cannot be checked and is reported.
 */
export const clearStaleSingleton = (userDataDir: string): Effect.Effect<LockState> =>
  Effect.promise(async (): Promise<LockState> => {
    let target: string
    try {
      target = await fs.readlink(path.join(userDataDir, "SingletonLock"))
    } catch {
      return { _tag: "none" }
    }
    const m = /^(.*)-(\d+)$/.exec(target)
    if (m === null) return { _tag: "none" }
    const host = m[1]!
    const pid = Number(m[2])
    if (host !== os.hostname()) return { _tag: "other-host", host, pid }
    if (isAlive(pid) && (await holdsProfile(pid, userDataDir))) return { _tag: "in-use", pid }
    await Promise.all(SINGLETONS.map((f) => fs.rm(path.join(userDataDir, f), { force: true }).catch(() => undefined)))
    return { _tag: "removed", pid }
  })
