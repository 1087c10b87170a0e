import { Effect } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { groupAlive, groupCarries, hasSwitch } from "../../../src/browser/launch/processes.js"
import { findOwnBrowser } from "../../../src/browser/launch/takeover.js"

// Which browser is the profile's own: the edges the end-to-end takeover test does not reach.

describe("the profile's own browser", () => {
  it("matches whole switches, in an argument list or in the one line ps prints", () => {
    expect(hasSwitch(["chromium", "--user-data-dir=/a/user-data"], "--user-data-dir=/a/user-data")).toBe(true)
    expect(hasSwitch(["chromium", "--user-data-dir=/a/user-data2"], "--user-data-dir=/a/user-data")).toBe(false)
    expect(hasSwitch("chromium --user-data-dir=/a/user-data --remote-debugging-port=18800", "--remote-debugging-port=18800")).toBe(true)
    expect(hasSwitch("chromium --remote-debugging-port=188000", "--remote-debugging-port=18800")).toBe(false)
  })

  it("a live process named by the lock that was not started with the profile's switches is not taken over", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-own-"))
    try {
      // This test's own process: alive, on this host, but no browser of that dir and port.
      fs.symlinkSync(`${os.hostname()}-${process.pid}`, path.join(dir, "SingletonLock"))
      expect(await Effect.runPromise(findOwnBrowser(dir, 18877))).toBeUndefined()
      // A lock of a process that is gone names nobody either.
      fs.rmSync(path.join(dir, "SingletonLock"))
      fs.symlinkSync(`${os.hostname()}-2147483646`, path.join(dir, "SingletonLock"))
      expect(await Effect.runPromise(findOwnBrowser(dir, 18877))).toBeUndefined()
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it.runIf(process.platform === "linux")(
    "a process group is the profile's only while one of its processes carries the profile's switch",
    async () => {
      // A detached shell (its own group) started with the switch as an argument, as a browser's helpers are.
      const own = "--user-data-dir=/tmp/svc-group-test"
      const child = spawn("sh", ["-c", "sleep 30", own], { detached: true, stdio: "ignore" })
      const pgid = child.pid!
      try {
        expect(groupCarries(pgid, own)).toBe(true)
        expect(groupCarries(pgid, "--user-data-dir=/tmp/another")).toBe(false)
      } finally {
        const gone = new Promise((r) => child.once("exit", r))
        process.kill(-pgid, "SIGKILL")
        await gone
        // The shell may have forked a copy of itself (its arguments too) that has not run since the kill: on a
        // loaded machine it takes a moment to die, and until then the group still carries the switch.
        for (let i = 0; i < 200 && groupAlive(pgid); i++) await new Promise((r) => setTimeout(r, 10))
      }
      // Its number, once the group is gone, names nothing of the profile's (it may be another program's).
      expect(groupAlive(pgid)).toBe(false)
      expect(groupCarries(pgid, own)).toBe(false)
    }
  )
})
