import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeDirsSync } from "../platform/dirs.js"
import { GatewayRunError } from "./GatewayRunner.js"

// One gateway per state dir. Two gateways on one state dir would both answer the same webhook, both launch
// the same profiles and both write svc.json and the delivery marks. The lock is a file created exclusively
// (`gateway.lock`, owner-only) holding the holder's pid and ports; it is removed when the gateway stops. A
// lock left by a gateway that died (SIGKILL, a crash) names a pid that is gone, or that another program now
// has: it is taken over.

export const LOCK_FILE = "gateway.lock"

export interface LockHolder {
  readonly pid: number
  readonly gatewayPort?: number
  readonly controlPort?: number
  readonly startedAt?: string
}

const readHolder = (file: string): LockHolder | undefined => {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<LockHolder>
    return typeof parsed.pid === "number" && Number.isInteger(parsed.pid) && parsed.pid > 0 ? (parsed as LockHolder) : undefined
  } catch {
    return undefined
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    // EPERM: alive, another user's.
    return (e as { code?: string }).code === "EPERM"
  }
}

/** Whether the pid is a node process (a gateway); true when the system cannot tell. */
const looksLikeGateway = (pid: number): boolean => {
  try {
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8")
    return /node|svc/i.test(cmdline)
  } catch {
    return true
  }
}

/** The live gateway holding the lock, or undefined when the lock is free or left by one that is gone. */
const liveHolder = (file: string): LockHolder | undefined => {
  const holder = readHolder(file)
  if (holder === undefined) {
    // Being written this instant by a starting gateway, or junk: junk older than a few seconds is stale.
    try {
      return Date.now() - fs.statSync(file).mtimeMs < 5_000 ? { pid: 0 } : undefined
    } catch {
      return undefined
    }
  }
  if (holder.pid === process.pid) return undefined
  return alive(holder.pid) && looksLikeGateway(holder.pid) ? holder : undefined
}

/** The pid of the live gateway holding the state dir, if one does. */
export const runningGatewayPid = (stateDir: string): number | undefined => {
  const holder = liveHolder(path.join(stateDir, LOCK_FILE))
  return holder !== undefined && holder.pid > 0 ? holder.pid : undefined
}

const describe = (dir: string, holder: LockHolder) =>
  holder.pid === 0
    ? `the state dir ${dir} is being taken by another gateway starting right now; wait and retry, or use another SVC_STATE_DIR`
    : `the state dir ${dir} is in use by another gateway (pid ${holder.pid}${
      holder.gatewayPort !== undefined ? `, port ${holder.gatewayPort}` : ""
    }); stop it first (kill ${holder.pid}), or give this one its own state dir with SVC_STATE_DIR`

/** Takes the state dir's lock for the scope; fails naming the pid of the gateway that holds it. */
export const lockStateDir = (stateDir: string, ports: { readonly gateway: number; readonly control: number }) =>
  Effect.acquireRelease(
    Effect.try({
      try: () => {
        makeDirsSync(stateDir)
        const file = path.join(stateDir, LOCK_FILE)
        const mine: LockHolder = {
          pid: process.pid,
          gatewayPort: ports.gateway,
          controlPort: ports.control,
          startedAt: new Date().toISOString()
        }
        for (let attempt = 0; attempt < 3; attempt++) {
          try {
            fs.writeFileSync(file, JSON.stringify(mine), { flag: "wx", mode: 0o600 })
            return file
          } catch (e) {
            if ((e as { code?: string }).code !== "EEXIST") throw e
          }
          const holder = liveHolder(file)
          if (holder !== undefined) throw new GatewayRunError(describe(stateDir, holder), true)
          // Left by a gateway that is gone: take it over (the exclusive create decides between two takers).
          fs.rmSync(file, { force: true })
        }
        throw new GatewayRunError(`cannot take the lock ${file}: it keeps coming back; is another gateway starting?`, true)
      },
      catch: (e) =>
        e instanceof GatewayRunError
          ? e
          : new GatewayRunError(`cannot lock the state dir ${stateDir}: ${e instanceof Error ? e.message : String(e)}`)
    }),
    (file) =>
      Effect.sync(() => {
        // Only our own lock is removed (never one a later gateway took after ours was judged stale).
        if (readHolder(file)?.pid === process.pid) fs.rmSync(file, { force: true })
      })
  )
