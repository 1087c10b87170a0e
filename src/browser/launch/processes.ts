import { execFile } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { Effect } from "effect"

// The managed browser as the operating system sees it: is a pid alive, signals to its process group, is
// anything of the group left, which process of the group is the browser, and a last-resort kill at exit.

/** The fields of a /proc/<pid>/stat line after the parenthesised command name: state, ppid, pgrp, ... */
const statFields = (stat: string): Array<string> => stat.slice(stat.lastIndexOf(")") + 2).split(" ")

/** Whether a pid is running (a zombie only waits to be reaped, so it is not). */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
  // A zombie has exited; it only waits for its parent (maybe not us) to reap it.
  if (process.platform !== "linux") return true
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    if (statFields(stat)[0] !== "Z") return true
  } catch {
    return true
  }
  // A zombie leader whose other threads are still exiting still holds its files (its listening socket too).
  try {
    return readdirSync(`/proc/${pid}/task`).length > 1
  } catch {
    return false
  }
}

// Never fall back from the group to the bare pid: once reaped, that pid may belong to someone else.
export const signalGroup = (pgid: number, signal: NodeJS.Signals): void => {
  try {
    // Windows has no process groups; there the browser's own pid is the best we can do.
    process.kill(process.platform === "win32" ? pgid : -pgid, signal)
  } catch {
    // already gone
  }
}

export const signalPid = (pid: number, signal: NodeJS.Signals): void => {
  try {
    process.kill(pid, signal)
  } catch {
    // already gone
  }
}

/** Whether any live (non-zombie) process is left in a process group. */
export const groupAlive = (pgid: number): boolean => {
  if (process.platform !== "linux") {
    try {
      process.kill(-pgid, 0)
      return true
    } catch {
      return false
    }
  }
  return !liveMembers(pgid).next().done
}

/** The live (non-zombie) processes of a process group, found one at a time in /proc (Linux). */
function* liveMembers(pgid: number): Generator<number> {
  let entries: Array<string>
  try {
    entries = readdirSync("/proc")
  } catch {
    return
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue
    let fields: Array<string>
    try {
      fields = statFields(readFileSync(`/proc/${e}/stat`, "utf8"))
    } catch {
      continue // gone meanwhile
    }
    if (Number(fields[2]) === pgid && fields[0] !== "Z") yield Number(e)
  }
}

// Last line of defence: if the gateway exits without closing its scopes (process.exit, a fatal error),
// the detached browsers must not outlive it.
const liveGroups = new Set<number>()
let exitHookInstalled = false

export const trackGroup = (pgid: number): void => {
  liveGroups.add(pgid)
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.once("exit", () => {
    for (const g of liveGroups) signalGroup(g, "SIGKILL")
  })
}

export const untrackGroup = (pgid: number): void => {
  liveGroups.delete(pgid)
}

const SHELLS = new Set(["sh", "dash", "bash", "zsh", "ksh", "busybox", "env"])

const procRead = (pid: number, file: string) => fs.readFile(`/proc/${pid}/${file}`, "utf8").catch(() => undefined)
const procExe = (pid: number) => fs.readlink(`/proc/${pid}/exe`).catch(() => undefined)

const looksLikeBrowser = async (pid: number, port: number): Promise<boolean> => {
  const cmdline = await procRead(pid, "cmdline")
  if (cmdline === undefined) return false
  const args = cmdline.split("\0")
  if (!args.includes(`--remote-debugging-port=${port}`) || args.some((a) => a.startsWith("--type="))) return false
  const exe = await procExe(pid)
  return exe === undefined || !SHELLS.has(path.basename(exe))
}

/**
 * The spawned pid, unless it is a wrapper that did not exec (Debian's /usr/bin/chromium does exec): then
 * the process of its group that carries our DevTools port and is not a helper (--type=...).
 */
export const resolveBrowserPid = (spawnedPid: number, port: number): Effect.Effect<number> =>
  Effect.promise(async () => {
    if (process.platform !== "linux") return spawnedPid
    if (await looksLikeBrowser(spawnedPid, port)) return spawnedPid
    const entries = await fs.readdir("/proc").catch(() => [] as Array<string>)
    const pids = entries.filter((e) => /^\d+$/.test(e)).map(Number).sort((a, b) => a - b)
    for (const pid of pids) {
      if (pid === spawnedPid) continue
      const stat = await procRead(pid, "stat")
      if (stat === undefined) continue
      // Fields after the parenthesised command name: state ppid pgrp ...
      const pgrp = Number(statFields(stat)[2])
      if (pgrp !== spawnedPid) continue
      if (await looksLikeBrowser(pid, port)) return pid
    }
    return spawnedPid
  })

const psField = (pid: number, field: "args" | "pgid") =>
  new Promise<string | undefined>((resolve) => {
    execFile("ps", ["-o", `${field}=`, "-p", String(pid)], { timeout: 2_000 }, (err, out) =>
      resolve(err !== null || out.trim() === "" ? undefined : out.trim())
    )
  })

/**
 * A process's command line: its arguments (from /proc on Linux), or one string where only `ps` can tell
 * (macOS; arguments with spaces cannot be told apart there). Undefined when neither can.
 */
export const commandLine = async (pid: number): Promise<ReadonlyArray<string> | string | undefined> => {
  const cmdline = await procRead(pid, "cmdline")
  if (cmdline !== undefined) return cmdline.split("\0").filter((a) => a !== "")
  return process.platform === "win32" ? undefined : psField(pid, "args")
}

/** Whether a command line carries exactly this switch (`--name=value`). */
export const hasSwitch = (line: ReadonlyArray<string> | string, sw: string): boolean =>
  typeof line === "string" ? ` ${line} `.includes(` ${sw} `) : line.includes(sw)

/** A process's group, or undefined when it cannot be read. */
export const processGroup = async (pid: number): Promise<number | undefined> => {
  const stat = await procRead(pid, "stat")
  const pgid = stat !== undefined
    ? Number(statFields(stat)[2])
    : process.platform === "win32"
    ? undefined
    : Number(await psField(pid, "pgid"))
  return pgid !== undefined && Number.isInteger(pgid) && pgid > 1 ? pgid : undefined
}

/** The live browser processes (not helpers) started with both switches; Linux only, empty elsewhere. */
export const browsersWith = async (switches: ReadonlyArray<string>): Promise<Array<number>> => {
  if (process.platform !== "linux") return []
  const entries = await fs.readdir("/proc").catch(() => [] as Array<string>)
  const found: Array<number> = []
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue
    const args = (await procRead(Number(e), "cmdline"))?.split("\0")
    if (args === undefined || args.some((a) => a.startsWith("--type="))) continue
    if (!switches.every((s) => args.includes(s)) || !isAlive(Number(e))) continue
    const exe = await procExe(Number(e))
    if (exe === undefined || !SHELLS.has(path.basename(exe))) found.push(Number(e))
  }
  return found
}

/**
 * Whether a live process of the group carries this switch on its command line (Linux). A group number is
 * free again once all its processes are gone, and may then be another program's group: what is signalled
 * long after it was seen must first be shown to be still ours. Elsewhere: whether the group has a live process.
 */
export const groupCarries = (pgid: number, sw: string): boolean => {
  if (process.platform !== "linux") return groupAlive(pgid)
  for (const pid of liveMembers(pgid)) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes(sw)) return true
    } catch {
      // gone meanwhile
    }
  }
  return false
}
