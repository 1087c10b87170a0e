import * as fs from "node:fs/promises"
import * as path from "node:path"
import { Effect } from "effect"
import { makeDirsSync } from "../../platform/dirs.js"

// A managed profile without a configured port lets Chromium choose one (`--remote-debugging-port=0`).
// Chromium writes the port and its browser websocket's path to `<user-data dir>/DevToolsActivePort`; that
// dir is owner-only, so the port is known to this OS user only, and it is found again from there after a
// gateway restart. (Chromium's DevTools answer any local process that knows the port, without auth.)

/** The `--remote-debugging-port` value that asks Chromium to choose a free port. */
export const CHOSEN_BY_BROWSER = 0

const FILE = "DevToolsActivePort"

export interface ActivePort {
  readonly port: number
  /** `/devtools/browser/<id>`: unique to one run of the browser. */
  readonly browserPath: string
}

/** What Chromium wrote in the profile's DevToolsActivePort, if it holds a port and a path. */
export const readActivePort = (userDataDir: string): Effect.Effect<ActivePort | undefined> =>
  Effect.promise(async () => {
    const text = await fs.readFile(path.join(userDataDir, FILE), "utf8").catch(() => undefined)
    if (text === undefined) return undefined
    const [first, second] = text.split("\n")
    const port = Number(first?.trim())
    const browserPath = second?.trim() ?? ""
    if (!Number.isInteger(port) || port <= 0 || port > 65_535 || !browserPath.startsWith("/devtools/browser/")) {
      return undefined
    }
    return { port, browserPath }
  })

/** Whether the websocket a DevTools endpoint advertises is the one of the run that wrote `active`. */
export const isSameRun = (active: ActivePort, webSocketDebuggerUrl: string): boolean => {
  try {
    return new URL(webSocketDebuggerUrl).pathname === active.browserPath
  } catch {
    return false
  }
}

/** Before a launch: a file left by an earlier run would name a port that is no longer this browser's. */
export const removeActivePort = (userDataDir: string): Effect.Effect<void> =>
  Effect.promise(() => fs.rm(path.join(userDataDir, FILE), { force: true }).catch(() => undefined))

/** Chromium writes the file world-readable (0644); the dir already hides it, the file is tightened too. */
export const tightenActivePort = (userDataDir: string): Effect.Effect<void> =>
  Effect.promise(() => fs.chmod(path.join(userDataDir, FILE), 0o600).catch(() => undefined))

/**
 * The user-data dir owner-only: created so (missing parents too), or tightened when it is ours and looser.
 * Throws with the reason when it cannot be made.
 */
export const ownerOnlyDir = async (dir: string): Promise<void> => {
  makeDirsSync(dir, 0o700)
  const st = await fs.stat(dir)
  const uid = process.getuid?.()
  if ((st.mode & 0o077) !== 0 && (uid === undefined || st.uid === uid)) await fs.chmod(dir, 0o700)
}
