import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launchTestChromium } from "../support/chromium.js"
import {
  freeCdpPort,
  type Gateway,
  killIfStillThere,
  makeStateDir,
  pidAlive,
  type SeenProcess,
  seenProcess,
  servePages,
  startGateway,
  waitUntil
} from "../support/gateway.js"

// A gateway killed with SIGKILL cannot stop its Chromium. The next gateway on the same state dir takes that
// browser over (its tabs survive) and can still stop it; a browser of another user-data dir on the
// profile's port is refused and left running.

describe("taking over the browser an earlier gateway left running", () => {
  let pages: Awaited<ReturnType<typeof servePages>>
  const gateways: Array<Gateway> = []
  const browsers: Array<SeenProcess> = []

  beforeAll(async () => {
    pages = await servePages({ "/kept": "<!doctype html><title>Kept</title><h1>Kept across gateways</h1>" })
  })

  afterAll(async () => {
    for (const gw of gateways) await gw.stop()
    // Each should be gone already; a failed test must not leave one behind.
    for (const b of browsers) killIfStillThere(b)
    await pages?.close()
  })

  const start = async (stateDir: string) => {
    const gw = await startGateway({ stateDir })
    gateways.push(gw)
    return gw
  }
  const json = async (gw: Gateway, ...args: Array<string>) => {
    const r = await gw.svc(...args, "--json")
    expect(r.code, r.stderr).toBe(0)
    return JSON.parse(r.stdout)
  }
  /** SIGKILL the gateway process only: its detached Chromium stays. */
  const killGateway = async (gw: Gateway) => {
    const exited = new Promise((resolve) => gw.process.once("exit", resolve))
    gw.process.kill("SIGKILL")
    await exited
  }

  it("takes over its own profile's browser with its tabs; stop and gateway shutdown still end it", async () => {
    const cdpPort = await freeCdpPort()
    const stateDir = makeStateDir({ browser: { defaultProfile: "svc", profiles: { svc: { cdpPort } } } })
    const first = await start(stateDir)
    const tab = await json(first, "browser", "open", pages.url("/kept"))
    const { pid } = (await json(first, "browser", "status"))
    browsers.push(seenProcess(pid))
    await killGateway(first)
    expect(pidAlive(pid)).toBe(true)

    const second = await start(stateDir)
    const tabs = await json(second, "browser", "tabs")
    expect(tabs.tabs.map((t: { targetId: string }) => t.targetId)).toContain(tab.targetId)
    const status = await json(second, "browser", "status")
    expect(status).toMatchObject({ running: true, pid, cdpPort })
    expect(second.output()).toContain(`took over the browser of profile "svc" (pid ${pid}`)
    const again = await json(second, "browser", "start")
    expect(again.launched).toBe(false)
    // Which of its two tabs the killed gateway meant is not known: no tab is current until one is chosen.
    expect(tabs.tabs).toHaveLength(2)
    const guess = await second.svc("browser", "snapshot", "--format", "aria")
    expect(guess.code).not.toBe(0)
    expect(guess.stderr).toContain('profile "svc" has no current tab')
    // The tab is driven as before: focus it, snapshot it.
    await json(second, "browser", "focus", tab.targetId)
    const snap = await second.svc("browser", "snapshot", "--format", "aria")
    expect(snap.code, snap.stderr).toBe(0)
    expect(snap.stdout).toContain('heading "Kept across gateways"')

    // Shutting the gateway down ends the browser it took over.
    await second.stop()
    await waitUntil(() => !pidAlive(pid), 10_000)

    // Once more, ended this time by `svc browser stop`.
    const third = await start(stateDir)
    const launched = await json(third, "browser", "start")
    expect(launched.launched).toBe(true)
    const pid3 = launched.status.pid as number
    browsers.push(seenProcess(pid3))
    await killGateway(third)
    const fourth = await start(stateDir)
    expect((await json(fourth, "browser", "status")).running).toBe(false) // nothing taken over before it is used
    const took = await json(fourth, "browser", "start")
    expect(took).toMatchObject({ launched: false, status: { pid: pid3, running: true } })
    const stopped = await fourth.svc("browser", "stop")
    expect(stopped.stdout.trim()).toBe("stopped svc")
    await waitUntil(() => !pidAlive(pid3), 10_000)
    const fresh = await json(fourth, "browser", "start")
    expect(fresh.launched).toBe(true)
    console.log(`start by takeover ${Math.round(took.elapsedMs)} ms, by a fresh launch ${Math.round(fresh.elapsedMs)} ms`)
    expect(fresh.status.pid).not.toBe(pid3)
    browsers.push(seenProcess(fresh.status.pid))
  })

  it("ends its own profile's browser that holds the port but does not answer, and launches afresh", async () => {
    const cdpPort = await freeCdpPort()
    const stateDir = makeStateDir({ browser: { defaultProfile: "svc", profiles: { svc: { cdpPort } } } })
    // As a killed gateway would leave it: the profile's dir and port; then hung (stopped, so silent).
    const left = await launchTestChromium({ port: cdpPort, userDataDir: path.join(stateDir, "browser/svc/user-data") })
    try {
      const pid = left.process.pid!
      process.kill(pid, "SIGSTOP")
      const gw = await start(stateDir)
      const started = await json(gw, "browser", "start")
      expect(started.launched).toBe(true)
      expect(started.status.pid).not.toBe(pid)
      browsers.push(seenProcess(started.status.pid))
      expect(pidAlive(pid) && left.process.exitCode === null && left.process.signalCode === null).toBe(false)
      expect(gw.output()).toContain(`ending the unresponsive browser of profile "svc" (pid ${pid})`)
      expect((await gw.svc("browser", "tabs")).code).toBe(0)
    } finally {
      await left.kill()
    }
  })

  it("ends its own profile's browser that holds the profile but never opened its port, and launches afresh", async () => {
    const cdpPort = await freeCdpPort()
    const stateDir = makeStateDir({ browser: { defaultProfile: "svc", profiles: { svc: { cdpPort } } } })
    const userDataDir = path.join(stateDir, "browser/svc/user-data")
    fs.mkdirSync(userDataDir, { recursive: true })
    // Stands in for a browser killed with its gateway while starting: the profile's switches, its lock.
    const half = spawn("sh", ["-c", "sleep 60; :", `--user-data-dir=${userDataDir}`, `--remote-debugging-port=${cdpPort}`], {
      detached: true,
      stdio: "ignore"
    })
    const exited = new Promise((resolve) => half.once("exit", resolve))
    try {
      fs.symlinkSync(`${os.hostname()}-${half.pid}`, path.join(userDataDir, "SingletonLock"))
      const gw = await start(stateDir)
      const started = await json(gw, "browser", "start")
      expect(started.launched).toBe(true)
      browsers.push(seenProcess(started.status.pid))
      await exited
      expect(gw.output()).toContain(`ending the half-started browser of profile "svc" (pid ${half.pid})`)
    } finally {
      if (half.exitCode === null && half.signalCode === null) half.kill("SIGKILL")
    }
  })

  it("refuses a browser of another user-data dir on the profile's port and leaves it running", async () => {
    const cdpPort = await freeCdpPort()
    const foreign = await launchTestChromium({ port: cdpPort })
    try {
      const gw = await start(makeStateDir({ browser: { defaultProfile: "svc", profiles: { svc: { cdpPort } } } }))
      const r = await gw.svc("browser", "start")
      expect(r.code).not.toBe(0)
      expect(r.stderr).toContain(`Port ${cdpPort} already answers the DevTools protocol`)
      expect(r.stderr).toContain("another browser is using it")
      expect(foreign.process.exitCode).toBeNull()
      expect((await fetch(`${foreign.cdpUrl}/json/version`)).ok).toBe(true)
    } finally {
      await foreign.kill()
    }
  })
})
