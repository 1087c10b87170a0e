import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { claimFreePort } from "./portClaims.js"

// A bare headless Chromium for suites that test one layer directly (CDP, the automation library,
// observers, files): its own port in 19000-19999, its own temp profile, and its whole process group
// killed at the end.

/** Ends a browser started detached (its own process group), all its processes at once; waits up to 3 s. */
export const killGroup = async (child: ChildProcess): Promise<void> => {
  const pid = child.pid
  if (pid !== undefined && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child.once("exit", r))
    try {
      process.kill(-pid, "SIGKILL")
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3_000))])
    } catch {
      // already gone
    }
  }
}

export const CHROMIUM = process.env.SVC_TEST_CHROMIUM ?? "/usr/bin/chromium"

export interface TestChromium {
  readonly process: ChildProcess
  readonly port: number
  readonly userDataDir: string
  readonly cdpUrl: string
  /** SIGKILL the browser's process group and wait for it (at most 3 s); removes the temp profile. */
  readonly kill: () => Promise<void>
}

export const freeTestPort = async (): Promise<number> => {
  for (let i = 0; i < 100; i++) {
    const port = 19000 + Math.floor(Math.random() * 1000)
    if (await claimFreePort(port)) return port
  }
  throw new Error("no free port in 19000-19999")
}

export const waitForCdp = async (port: number, timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/json/version`)).ok) return
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`Chromium did not answer CDP on ${port} within ${timeoutMs} ms`)
}

export const launchTestChromium = async (options: { readonly port?: number; readonly userDataDir?: string } = {}): Promise<TestChromium> => {
  const port = options.port ?? (await freeTestPort())
  const userDataDir = options.userDataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "svc-test-chrome-"))
  const child = spawn(
    CHROMIUM,
    [
      "--headless=new",
      "--no-sandbox",
      `--remote-debugging-port=${port}`,
      `--user-data-dir=${userDataDir}`,
      "--no-first-run",
      "--no-default-browser-check",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "about:blank"
    ],
    { detached: true, stdio: "ignore" }
  )
  const kill = async () => {
    await killGroup(child)
    if (options.userDataDir === undefined) fs.rmSync(userDataDir, { recursive: true, force: true })
  }
  try {
    await waitForCdp(port)
  } catch (e) {
    await kill()
    throw e
  }
  return { process: child, port, userDataDir, cdpUrl: `http://127.0.0.1:${port}`, kill }
}
