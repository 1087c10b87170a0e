import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  freeCdpPort,
  type Gateway,
  isPng,
  makeStateDir,
  pidAlive,
  request,
  runSvc,
  baseEnv,
  freeGatewayPort,
  servePages,
  startGateway
} from "../support/gateway.js"

// The real path: bin/svc → gateway process → managed Chromium, driven through the CLI as a user would.

const longPage = `<!doctype html><title>Long</title><h1>Long page</h1>${"<p>line</p>".repeat(400)}`
const formPage = `<!doctype html><html><head><title>Form page</title></head><body>
<h1>Sign up</h1>
<form><label for="email">Email</label><input id="email" type="email">
<label><input type="checkbox" checked> Subscribe</label>
<button type="submit">Create account</button></form>
<a href="/long">Read more</a></body></html>`

describe("gateway, managed browser and CLI", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>
  let cdpPort: number

  beforeAll(async () => {
    pages = await servePages({ "/form": formPage, "/long": longPage })
    cdpPort = await freeCdpPort()
    gw = await startGateway({
      config: {
        browser: { defaultProfile: "svc", color: "#3366FF", profiles: { svc: { cdpPort } } }
      }
    })
  })

  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
  })

  it("generates a gateway token, saves it owner-only and keeps the other keys", () => {
    const file = path.join(gw.stateDir, "svc.json")
    const saved = JSON.parse(fs.readFileSync(file, "utf8"))
    expect(saved.gateway.auth.token).toMatch(/^[A-Za-z0-9_-]{24,}$/)
    expect(saved.browser).toEqual({ defaultProfile: "svc", color: "#3366FF", profiles: { svc: { cdpPort } } })
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    expect(gw.output()).not.toContain(saved.gateway.auth.token)
  })

  it("starts the managed browser, lists and drives tabs, snapshots and screenshots them", async () => {
    const before = JSON.parse((await gw.svc("browser", "status", "--json")).stdout)
    expect(before).toMatchObject({ profile: "svc", driver: "managed", running: false, pid: null, color: "#3366FF" })
    expect(before.automation.available).toBe(true)

    const started = await gw.svc("browser", "start", "--json")
    expect(started.code).toBe(0)
    const start = JSON.parse(started.stdout)
    expect(start.launched).toBe(true)
    expect(start.status).toMatchObject({ running: true, cdpPort, headless: true })
    expect(pidAlive(start.status.pid)).toBe(true)

    const opened = await gw.svc("browser", "open", pages.url("/form"), "--json")
    expect(opened.code).toBe(0)
    const tab = JSON.parse(opened.stdout)
    expect(tab).toMatchObject({ url: pages.url("/form"), current: true })

    const listed = JSON.parse((await gw.svc("browser", "tabs", "--json")).stdout)
    expect(listed.profile).toBe("svc")
    const mine = listed.tabs.find((t: { targetId: string }) => t.targetId === tab.targetId)
    expect(mine).toMatchObject({ title: "Form page", current: true })
    expect(listed.tabs.filter((t: { current: boolean }) => t.current)).toHaveLength(1)

    const human = await gw.svc("browser", "tabs")
    expect(human.stdout).toMatch(new RegExp(`^\\* \\d+\\s+${tab.targetId}\\s+Form page`, "m"))

    const snap = await gw.svc("browser", "snapshot", "--format", "aria")
    expect(snap.code).toBe(0)
    expect(snap.stdout).toContain('heading "Sign up"')
    expect(snap.stdout).toContain('button "Create account"')
    expect(snap.stdout).toMatch(/textbox "Email"/)

    const shot = await gw.svc("browser", "screenshot")
    expect(shot.code).toBe(0)
    const media = /^MEDIA:(.+\.png)$/m.exec(shot.stdout)
    expect(media).not.toBeNull()
    expect(isPng(media![1]!)).toBeDefined()
  })

  it("takes a full-page screenshot of a long page taller than the viewport", async () => {
    const tab = JSON.parse((await gw.svc("browser", "open", pages.url("/long"), "--json")).stdout)
    const viewport = JSON.parse((await gw.svc("browser", "screenshot", "--json")).stdout)
    const full = JSON.parse((await gw.svc("browser", "screenshot", "--full-page", "--json")).stdout)
    expect(full.targetId).toBe(tab.targetId)
    const v = isPng(viewport.path)!
    const f = isPng(full.path)!
    expect(f.height).toBeGreaterThan(v.height * 2)
    expect(full.height).toBe(f.height)
  })

  it("focuses and closes tabs by targetId and by index", async () => {
    const a = JSON.parse((await gw.svc("browser", "open", pages.url("/form"), "--json")).stdout)
    const b = JSON.parse((await gw.svc("browser", "tab", "new", "--json")).stdout)
    expect(b.url).toBe("about:blank")
    const focused = JSON.parse((await gw.svc("browser", "focus", a.targetId, "--json")).stdout)
    expect(focused).toMatchObject({ targetId: a.targetId, current: true })
    // A request without a targetId now means tab a.
    const snap = JSON.parse((await gw.svc("browser", "snapshot", "--format", "aria", "--json")).stdout)
    expect(snap.targetId).toBe(a.targetId)

    const list = JSON.parse((await gw.svc("browser", "tab", "--json")).stdout).tabs as Array<{ index: number; targetId: string }>
    const indexOfB = list.find((t) => t.targetId === b.targetId)!.index
    expect(indexOfB).toBe(b.index)
    const selected = await gw.svc("browser", "tab", "select", String(indexOfB))
    expect(selected.stdout).toContain(`focused tab ${indexOfB}  ${b.targetId}`)
    const closed = await gw.svc("browser", "tab", "close", String(indexOfB))
    expect(closed.stdout).toContain(`closed ${b.targetId}`)
    const after = JSON.parse((await gw.svc("browser", "tabs", "--json")).stdout).tabs as Array<{ targetId: string }>
    expect(after.map((t) => t.targetId)).not.toContain(b.targetId)

    // The current tab was closed: a request without a targetId says so instead of picking another tab.
    const orphan = await gw.svc("browser", "screenshot")
    expect(orphan.code).not.toBe(0)
    expect(orphan.stderr.trim().split("\n")).toHaveLength(1)
    expect(orphan.stderr).toContain("current tab")

    const bad = await gw.svc("browser", "tab", "select", "99")
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toContain("no tab at index 99")

    const closeA = await gw.svc("browser", "close", a.targetId)
    expect(closeA.code).toBe(0)
    const missing = await gw.svc("browser", "focus", a.targetId)
    expect(missing.code).not.toBe(0)
    expect(missing.stderr).toContain("svc browser tabs")
  })

  it("notices a crashed browser and launches it again on the next start", async () => {
    const status = JSON.parse((await gw.svc("browser", "status", "--json")).stdout)
    expect(status.running).toBe(true)
    process.kill(status.pid, "SIGKILL")
    let after = status
    for (let i = 0; i < 50 && after.running; i++) {
      await new Promise((r) => setTimeout(r, 100))
      after = JSON.parse((await gw.svc("browser", "status", "--json")).stdout)
    }
    expect(after.running).toBe(false)
    expect(after.lastExit).toMatchObject({ signal: "SIGKILL" })
    const human = await gw.svc("browser", "status")
    expect(human.stdout).toContain("stopped")
    expect(human.stdout).toContain("signal SIGKILL")

    const again = JSON.parse((await gw.svc("browser", "start", "--json")).stdout)
    expect(again.launched).toBe(true)
    expect(again.status.pid).not.toBe(status.pid)
    expect(pidAlive(again.status.pid)).toBe(true)
  })

  it("answers an unknown profile with a 404 naming the known ones", async () => {
    const r = await gw.svc("browser", "tabs", "--browser-profile", "nope")
    expect(r.code).not.toBe(0)
    expect(r.stderr.trim()).toBe('svc: unknown browser profile "nope"; known profiles: svc, relay, sandbox')
  })

  it("stops the browser on `svc browser stop`", async () => {
    const status = JSON.parse((await gw.svc("browser", "status", "--json")).stdout)
    const stopped = await gw.svc("browser", "stop")
    expect(stopped.stdout.trim()).toBe("stopped svc")
    expect(pidAlive(status.pid)).toBe(false)
    const again = await gw.svc("browser", "stop")
    expect(again.stdout.trim()).toBe("svc was not running")
  })
})

describe("gateway process lifecycle", () => {
  it("stops every browser it launched on SIGTERM and exits 0", async () => {
    const cdpPort = await freeCdpPort()
    const gw = await startGateway({
      config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort } } } },
      args: ["--start-browser"]
    })
    let status = JSON.parse((await gw.svc("browser", "status", "--json")).stdout)
    for (let i = 0; i < 50 && !status.running; i++) {
      await new Promise((r) => setTimeout(r, 100))
      status = JSON.parse((await gw.svc("browser", "status", "--json")).stdout)
    }
    expect(status.running).toBe(true)
    expect(await gw.stop()).toBe(0)
    expect(pidAlive(status.pid)).toBe(false)
  })

  it("stops at once on SIGTERM although connections that never sent a request are open on both ports", async () => {
    const gw = await startGateway()
    // What a browser's speculative preconnect (or a port scanner) leaves: a socket with no request on it.
    const sockets = [gw.port, gw.controlPort].map((port) => net.connect(port, "127.0.0.1").on("error", () => undefined))
    try {
      await Promise.all(sockets.map((s) => new Promise((resolve) => s.once("connect", resolve))))
      const t0 = performance.now()
      expect(await gw.stop()).toBe(0)
      // Node's own close waits for them until its request timeout (about 100 s).
      expect(performance.now() - t0).toBeLessThan(10_000)
    } finally {
      for (const s of sockets) s.destroy()
    }
  }, 60_000)

  it("a browser that fails to launch says why, with the tail of its own stderr", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-badchrome-"))
    const fake = path.join(dir, "chrome")
    fs.writeFileSync(fake, "#!/bin/sh\necho 'error while loading shared libraries: libfoo.so.1' >&2\nexit 127\n", { mode: 0o755 })
    const gw = await startGateway({
      config: { browser: { defaultProfile: "svc", executablePath: fake, profiles: { svc: { cdpPort: await freeCdpPort() } } } }
    })
    try {
      const r = await gw.svc("browser", "start")
      expect(r.code).not.toBe(0)
      expect(r.stderr.trim().split("\n")).toHaveLength(1)
      expect(r.stderr).toContain("libfoo.so.1")
      expect(r.stderr).toContain("127")
      const missing = await runSvc(["config", "set", "browser.executablePath", "/nonexistent/chrome"], gw.env)
      expect(missing.code).toBe(0)
    } finally {
      expect(await gw.stop()).toBe(0)
    }
    // Restarted with the new config: the configured path is named, and auto-detection is not tried instead.
    const again = await startGateway({ stateDir: gw.stateDir })
    try {
      const r = await again.svc("browser", "start")
      expect(r.code).not.toBe(0)
      expect(r.stderr).toContain("/nonexistent/chrome")
    } finally {
      await again.stop()
    }
  })

  it("refuses an invalid config with one message naming the key path", async () => {
    const stateDir = makeStateDir({ gateway: { port: "abc" } })
    const r = await runSvc(["gateway", "run"], { ...baseEnv(stateDir, await freeGatewayPort()) })
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain("gateway.port")
    expect(r.stderr).toContain("Expected number")
  })

  it("the CLI says in one line when the gateway is not running", async () => {
    const stateDir = makeStateDir({ gateway: { auth: { token: "abcdefghijklmnopqrstuvwxyz012345" } } })
    const r = await runSvc(["browser", "tabs"], baseEnv(stateDir, await freeGatewayPort()))
    expect(r.code).not.toBe(0)
    expect(r.stderr.trim().split("\n")).toHaveLength(1)
    expect(r.stderr).toContain("the gateway is not running")
    expect(r.stderr).toContain("svc gateway run")
  })
})

describe("auth against the real server", () => {
  const token = "tok-0123456789abcdefghijklmnop"
  const password = "pass-word-0123456789"
  let gw: Gateway

  beforeAll(async () => {
    gw = await startGateway({ config: { gateway: { auth: { token, password } } } })
  })
  afterAll(async () => {
    await gw?.stop()
  })

  const host = () => ({ host: `127.0.0.1:${gw.controlPort}` })

  it("refuses a request without credentials or with a wrong token, with a JSON 401", async () => {
    const none = await request(gw.controlPort, "GET", "/", host())
    expect(none.status).toBe(401)
    expect(none.json()).toMatchObject({ _tag: "Unauthorized", message: expect.stringContaining("Bearer") })
    const wrong = await request(gw.controlPort, "GET", "/", { ...host(), authorization: "Bearer nope" })
    expect(wrong.status).toBe(401)
    const unknownRoute = await request(gw.controlPort, "GET", "/definitely-not-a-route", host())
    expect(unknownRoute.status).toBe(401)
  })

  it("accepts the token, the password header and HTTP Basic", async () => {
    const bearer = await request(gw.controlPort, "GET", "/?profile=svc", { ...host(), authorization: `Bearer ${token}` })
    expect(bearer.status).toBe(200)
    expect(bearer.json()).toMatchObject({ profile: "svc" })
    const pw = await request(gw.controlPort, "GET", "/?profile=svc", { ...host(), "x-svc-password": password })
    expect(pw.status).toBe(200)
    const basic = Buffer.from(`anyone:${password}`).toString("base64")
    const b = await request(gw.controlPort, "GET", "/?profile=svc", { ...host(), authorization: `Basic ${basic}` })
    expect(b.status).toBe(200)
  })

  it("refuses a foreign Host even with the token (DNS rebinding)", async () => {
    const r = await request(gw.controlPort, "GET", "/", { host: "attacker.example", authorization: `Bearer ${token}` })
    expect(r.status).toBe(403)
    expect(r.json().message).toContain("not a loopback name")
  })

  it("refuses a mutating request with a cross-site Origin, and sends no CORS headers", async () => {
    const r = await request(gw.controlPort, "POST", "/start", {
      ...host(),
      authorization: `Bearer ${token}`,
      origin: "https://attacker.example"
    })
    expect(r.status).toBe(403)
    expect(r.json().message).toContain("cross-site")
    const ok = await request(gw.controlPort, "GET", "/profiles", {
      ...host(),
      authorization: `Bearer ${token}`,
      origin: "https://attacker.example"
    })
    expect(ok.status).toBe(200)
    expect(ok.headers["access-control-allow-origin"]).toBeUndefined()
    const preflight = await request(gw.controlPort, "OPTIONS", "/start", {
      ...host(),
      origin: "https://attacker.example",
      "access-control-request-method": "POST"
    })
    expect(preflight.headers["access-control-allow-origin"]).toBeUndefined()
  })

  it("answers bad input and unknown profiles with JSON errors", async () => {
    const auth = { ...host(), authorization: `Bearer ${token}` }
    const unknown = await request(gw.controlPort, "GET", "/tabs?profile=ghost", auth)
    expect(unknown.status).toBe(404)
    expect(unknown.json().message).toBe('unknown browser profile "ghost"; known profiles: svc, relay, sandbox')
    const bad = await request(gw.controlPort, "POST", "/tabs/focus", auth, { targetId: "" })
    expect(bad.status).toBe(400)
    expect(typeof bad.json().message).toBe("string")
  })

  it("guards the gateway port too", async () => {
    const none = await request(gw.port, "GET", "/health", { host: `127.0.0.1:${gw.port}` })
    expect(none.status).toBe(401)
    const ok = await request(gw.port, "GET", "/health", { host: `127.0.0.1:${gw.port}`, authorization: `Bearer ${token}` })
    expect(ok.status).toBe(200)
    expect(ok.json()).toMatchObject({ ok: true })
  })
})
