import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { WebSocket } from "ws"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launchTestChromium } from "../support/chromium.js"
import {
  type Gateway,
  killIfStillThere,
  pidAlive,
  type SeenProcess,
  seenProcess,
  servePages,
  startGateway,
  waitUntil
} from "../support/gateway.js"

// The managed browser's DevTools answer any local process that knows the port, without auth (Chromium's
// own behaviour). So a profile without a configured port gets one Chromium chooses at each launch, found
// in its owner-only user-data dir (DevToolsActivePort) and written nowhere else; a web page cannot use it
// (Chromium refuses a websocket upgrade with an Origin and /json with a Host that is not an IP or localhost);
// and a gateway that was killed finds the browser again from that file.

const PAGE = "<!doctype html><title>Port</title><h1>Chosen port</h1>"

/** A GET with the Host header the test chooses (fetch would not let it). */
const rawGet = (port: number, host: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path: "/json/version", headers: { host } }, (res) => {
      let body = ""
      res.on("data", (d) => (body += d))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on("error", reject)
    req.end()
  })

/** How a websocket handshake with `url` ended: "open", or the HTTP status the server refused it with. */
const tryWebSocket = (url: string, headers: Record<string, string>) =>
  new Promise<string>((resolve) => {
    const ws = new WebSocket(url, { headers })
    ws.once("open", () => {
      ws.close()
      resolve("open")
    })
    ws.once("unexpected-response", (_req, res) => {
      resolve(`HTTP ${res.statusCode}`)
      ws.terminate()
    })
    ws.once("error", (e) => resolve(`error ${e.message}`))
  })

const mode = (p: string) => (fs.statSync(p).mode & 0o777).toString(8)

describe("the managed browser's DevTools port", () => {
  let pages: Awaited<ReturnType<typeof servePages>>
  const gateways: Array<Gateway> = []
  const browsers: Array<SeenProcess> = []
  let root: string
  let stateDir: string

  beforeAll(async () => {
    pages = await servePages({ "/": PAGE })
    root = fs.mkdtempSync(path.join(os.tmpdir(), "svc-cdpport-"))
    // Not there yet: the gateway makes it, and everything under it that holds the port.
    stateDir = path.join(root, "state")
  })

  afterAll(async () => {
    for (const gw of gateways) await gw.stop()
    for (const b of browsers) killIfStillThere(b)
    await pages?.close()
    fs.rmSync(root, { recursive: true, force: true })
  })

  const start = async () => {
    const gw = await startGateway({ stateDir })
    gateways.push(gw)
    return gw
  }
  const json = async (gw: Gateway, ...args: Array<string>) => {
    const r = await gw.svc(...args, "--browser-profile", "svc", "--json")
    expect(r.code, `svc ${args.join(" ")}: ${r.stderr}${r.stdout}`).toBe(0)
    return JSON.parse(r.stdout)
  }
  const userDataDir = () => path.join(stateDir, "browser/svc/user-data")

  let port: number
  let pid: number
  let targetId: string

  it("is chosen by Chromium, shown truly by status and profiles, and written nowhere but the user-data dir", async () => {
    const gw = await start()
    const started = await json(gw, "browser", "start")
    pid = started.status.pid
    browsers.push(seenProcess(pid))
    port = started.status.cdpPort
    expect(started).toMatchObject({ launched: true, status: { running: true, cdpUrl: `http://127.0.0.1:${port}` } })
    expect(Number.isInteger(port) && port > 0).toBe(true)
    // Status and profiles name the port the browser really listens on.
    expect(JSON.parse((await (await fetch(`http://127.0.0.1:${port}/json/version`)).text())).webSocketDebuggerUrl).toContain(
      `ws://127.0.0.1:${port}/devtools/browser/`
    )
    expect(await json(gw, "browser", "status")).toMatchObject({ running: true, pid, cdpPort: port })
    const listed = (await json(gw, "browser", "profiles")).profiles.find((p: { name: string }) => p.name === "svc")
    expect(listed).toMatchObject({ running: true, cdpPort: port, cdpUrl: `http://127.0.0.1:${port}` })
    expect((await gw.svc("browser", "status", "--browser-profile", "svc")).stdout).toContain(`http://127.0.0.1:${port}`)

    // Chromium was asked to choose, and never told to accept other origins.
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")
    expect(cmdline).toContain("--remote-debugging-port=0")
    expect(cmdline.some((a) => a.startsWith("--remote-allow-origins"))).toBe(false)

    // svc.json does not remember it; the only file that names it is in the owner-only user-data dir.
    const saved = JSON.parse(fs.readFileSync(path.join(stateDir, "svc.json"), "utf8"))
    expect(saved.browser?.profiles?.svc?.cdpPort).toBeUndefined()
    expect(fs.readFileSync(path.join(userDataDir(), "DevToolsActivePort"), "utf8").split("\n")[0]).toBe(String(port))
    expect({
      stateDir: mode(stateDir),
      browser: mode(path.join(stateDir, "browser")),
      profile: mode(path.join(stateDir, "browser/svc")),
      userData: mode(userDataDir()),
      activePort: mode(path.join(userDataDir(), "DevToolsActivePort")),
      config: mode(path.join(stateDir, "svc.json"))
    }).toEqual({ stateDir: "700", browser: "700", profile: "700", userData: "700", activePort: "600", config: "600" })

    targetId = (await json(gw, "browser", "open", pages.url("/"))).targetId
  })

  it("cannot be used by a web page: a websocket with an Origin is refused, /json wants an IP or localhost Host", async () => {
    const version = JSON.parse((await (await fetch(`http://127.0.0.1:${port}/json/version`)).text()))
    const ws: string = version.webSocketDebuggerUrl
    // What a page would send, and the same handshake without an Origin (as the gateway's own client does).
    expect(await tryWebSocket(ws, { origin: pages.url("").replace(/\/$/, "") })).toBe("HTTP 403")
    expect(await tryWebSocket(ws, { origin: "https://evil.example" })).toBe("HTTP 403")
    expect(await tryWebSocket(ws, {})).toBe("open")
    // DNS rebinding: a page's own name pointed at 127.0.0.1 gets no answer.
    const rebound = await rawGet(port, `evil.example:${port}`)
    expect(rebound.body).not.toContain("webSocketDebuggerUrl")
    expect(rebound.body).toContain("Host header")
    expect((await rawGet(port, `localhost:${port}`)).body).toContain("webSocketDebuggerUrl")

    // A real page in the managed browser, knowing the websocket's URL, can neither open it nor read /json.
    const gw = gateways.at(-1)!
    const fn = `() => Promise.all([
      new Promise((resolve) => {
        const ws = new WebSocket(${JSON.stringify(ws)})
        ws.onopen = () => { ws.close(); resolve("open") }
        ws.onerror = () => resolve("refused")
        setTimeout(() => resolve("no answer"), 5000)
      }),
      fetch("http://127.0.0.1:${port}/json/version").then((r) => r.text()).then(() => "read", () => "blocked")
    ])`
    const r = await gw.svc("browser", "evaluate", "--fn", fn, "--target-id", targetId, "--browser-profile", "svc", "--json")
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout).result).toEqual(["refused", "blocked"])
  })

  it("is found again by the next gateway after a SIGKILL: same browser, port and tabs; stop still ends it", async () => {
    const first = gateways.at(-1)!
    const exited = new Promise((resolve) => first.process.once("exit", resolve))
    first.process.kill("SIGKILL")
    await exited
    expect(pidAlive(pid)).toBe(true)

    const second = await start()
    const tabs = (await json(second, "browser", "tabs")).tabs.map((t: { targetId: string }) => t.targetId)
    expect(tabs).toContain(targetId)
    expect(await json(second, "browser", "status")).toMatchObject({ running: true, pid, cdpPort: port })
    expect(second.output()).toContain(`took over the browser of profile "svc" (pid ${pid}, port ${port}`)
    const listed = (await json(second, "browser", "profiles")).profiles.find((p: { name: string }) => p.name === "svc")
    expect(listed).toMatchObject({ running: true, cdpPort: port })

    expect((await second.svc("browser", "stop", "--browser-profile", "svc")).stdout.trim()).toBe("stopped svc")
    await waitUntil(() => !pidAlive(pid), 10_000)
    expect(await json(second, "browser", "status")).toMatchObject({ running: false, cdpPort: null, cdpUrl: null })
  })

  it("a stale DevToolsActivePort naming another browser's port is not believed: that browser is left alone", async () => {
    const foreign = await launchTestChromium()
    try {
      // As a crashed run may leave it, the port since taken by a browser of another user-data dir.
      fs.writeFileSync(path.join(userDataDir(), "DevToolsActivePort"), `${foreign.port}\n/devtools/browser/stale-run\n`)
      const gw = gateways.at(-1)!
      const started = await json(gw, "browser", "start")
      browsers.push(seenProcess(started.status.pid))
      expect(started.launched).toBe(true)
      expect(started.status.cdpPort).not.toBe(foreign.port)
      expect(started.status.pid).not.toBe(foreign.process.pid)
      expect(foreign.process.exitCode).toBeNull()
      expect((await fetch(`${foreign.cdpUrl}/json/version`)).ok).toBe(true)
    } finally {
      await foreign.kill()
    }
  })
  it("after a crash the browser started again is found on the port it chose this time, by CDP and the automation library", async () => {
    const gw = gateways.at(-1)!
    const before = await json(gw, "browser", "status")
    expect(before.running).toBe(true)
    process.kill(before.pid, "SIGKILL")
    await waitUntil(() => !pidAlive(before.pid), 10_000)
    const tab = await json(gw, "browser", "open", pages.url("/"))
    const after = await json(gw, "browser", "status")
    browsers.push(seenProcess(after.pid))
    expect(after).toMatchObject({ running: true, cdpUrl: `http://127.0.0.1:${after.cdpPort}` })
    expect(after.pid).not.toBe(before.pid)
    expect(fs.readFileSync(path.join(userDataDir(), "DevToolsActivePort"), "utf8").split("\n")[0]).toBe(String(after.cdpPort))
    const snap = await gw.svc("browser", "snapshot", "--target-id", tab.targetId, "--browser-profile", "svc")
    expect(snap.code, snap.stderr).toBe(0)
    expect(snap.stdout).toContain('heading "Chosen port"')
  })
})

describe("a hung browser on a port it chose", () => {
  it("is ended by the next gateway, which launches afresh", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "svc-cdpport-hung-"))
    const stateDir = path.join(root, "state")
    const first = await startGateway({ stateDir })
    let second: Gateway | undefined
    const pids: Array<SeenProcess> = []
    try {
      const r1 = await first.svc("browser", "start", "--browser-profile", "svc", "--json")
      expect(r1.code, r1.stderr).toBe(0)
      const pid = JSON.parse(r1.stdout).status.pid as number
      pids.push(seenProcess(pid))
      const exited = new Promise((resolve) => first.process.once("exit", resolve))
      first.process.kill("SIGKILL")
      await exited
      // Stopped: it holds its port and profile and answers nothing.
      process.kill(pid, "SIGSTOP")
      second = await startGateway({ stateDir })
      const r2 = await second.svc("browser", "start", "--browser-profile", "svc", "--json")
      expect(r2.code, r2.stderr).toBe(0)
      const started = JSON.parse(r2.stdout)
      pids.push(seenProcess(started.status.pid))
      expect(started).toMatchObject({ launched: true, status: { running: true } })
      expect(started.status.pid).not.toBe(pid)
      await waitUntil(() => !pidAlive(pid), 10_000)
      expect(second.output()).toContain(`ending the browser of profile "svc" (pid ${pid}) that holds its profile but does not answer`)
      expect((await second.svc("browser", "tabs", "--browser-profile", "svc")).code).toBe(0)
    } finally {
      await second?.stop()
      for (const p of pids) killIfStillThere(p)
      fs.rmSync(root, { recursive: true, force: true })
    }
  })
})
