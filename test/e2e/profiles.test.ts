import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freeCdpPort, type Gateway, pidAlive, servePages, startGateway } from "../support/gateway.js"

// Profiles through the real gateway: a user-created managed profile with its own browser and data dir,
// a remote profile attached to a browser someone else runs, attach-only, and deletion to the trash.

describe("profiles", () => {
  let gw: Gateway
  let home: string
  let pages: Awaited<ReturnType<typeof servePages>>
  let svcPort: number
  let workPort: number

  beforeAll(async () => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), "svc-home-"))
    pages = await servePages({ "/": "<!doctype html><title>Hello</title><h1>Hello</h1>" })
    svcPort = await freeCdpPort()
    do workPort = await freeCdpPort(); while (workPort === svcPort)
    gw = await startGateway({
      config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: svcPort }, work: { cdpPort: workPort, color: "#00AA55" } } } },
      env: { HOME: home, XDG_DATA_HOME: path.join(home, ".local/share") }
    })
  })

  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
  })

  it("lists the built-in and configured profiles, the default marked", async () => {
    const r = JSON.parse((await gw.svc("browser", "profiles", "--json")).stdout)
    const byName = Object.fromEntries(r.profiles.map((p: { name: string }) => [p.name, p]))
    expect(byName.svc).toMatchObject({ driver: "managed", builtIn: true, isDefault: true, cdpPort: svcPort, color: "#FF6A00" })
    expect(byName.relay).toMatchObject({ driver: "relay", builtIn: true, isDefault: false, cdpPort: gw.port + 3 })
    expect(byName.work).toMatchObject({ driver: "managed", builtIn: false, color: "#00AA55" })
  })

  it("runs a separate browser with its own data dir per managed profile", async () => {
    const a = JSON.parse((await gw.svc("browser", "start", "--json")).stdout)
    const b = JSON.parse((await gw.svc("browser", "start", "--browser-profile", "work", "--json")).stdout)
    expect(a.status.pid).not.toBe(b.status.pid)
    expect(b.status).toMatchObject({ profile: "work", cdpPort: workPort, color: "#00AA55" })
    expect(fs.existsSync(path.join(gw.stateDir, "browser/work/user-data"))).toBe(true)
    // The accent colour was written into the profile before launch.
    const prefs = JSON.parse(fs.readFileSync(path.join(gw.stateDir, "browser/work/user-data/Default/Preferences"), "utf8"))
    expect(prefs.browser.theme.user_color).toBe(((0xff00aa55 | 0) >> 0))
  })

  it("attaches a remote profile to a browser it did not launch, and never stops it", async () => {
    const created = await gw.svc("browser", "create-profile", "far", "--cdp-url", `http://127.0.0.1:${svcPort}`, "--json")
    expect(created.code).toBe(0)
    expect(JSON.parse(created.stdout)).toMatchObject({ name: "far", driver: "remote", cdpPort: svcPort })
    const saved = JSON.parse(fs.readFileSync(path.join(gw.stateDir, "svc.json"), "utf8"))
    expect(saved.browser.profiles.far).toEqual({ cdpUrl: `http://127.0.0.1:${svcPort}` })

    const tab = JSON.parse((await gw.svc("browser", "open", pages.url("/"), "--browser-profile", "far", "--json")).stdout)
    const viaSvc = JSON.parse((await gw.svc("browser", "tabs", "--json")).stdout)
    expect(viaSvc.tabs.map((t: { targetId: string }) => t.targetId)).toContain(tab.targetId)
    const status = JSON.parse((await gw.svc("browser", "status", "--browser-profile", "far", "--json")).stdout)
    expect(status).toMatchObject({ driver: "remote", running: true, pid: null })
    const stop = await gw.svc("browser", "stop", "--browser-profile", "far")
    expect(stop.stdout.trim()).toBe("far was not running")
    const svc = JSON.parse((await gw.svc("browser", "status", "--json")).stdout)
    expect(pidAlive(svc.pid)).toBe(true)
  })

  it("says what to do when an attach-only or remote browser is not there", async () => {
    const port = await freeCdpPort()
    await gw.svc("browser", "create-profile", "mine", "--attach-only")
    const set = await gw.svc("browser", "profiles", "--json")
    const mine = JSON.parse(set.stdout).profiles.find((p: { name: string }) => p.name === "mine")
    expect(mine).toMatchObject({ attachOnly: true, driver: "managed" })
    const r = await gw.svc("browser", "tabs", "--browser-profile", "mine")
    expect(r.code).not.toBe(0)
    expect(r.stderr).toMatch(/attach-only/)

    await gw.svc("browser", "create-profile", "gone", "--cdp-url", `http://127.0.0.1:${port}`)
    const g = await gw.svc("browser", "tabs", "--browser-profile", "gone")
    expect(g.code).not.toBe(0)
    expect(g.stderr).toContain(`no browser answers CDP at http://127.0.0.1:${port}`)
  })

  it("refuses a duplicate or invalid profile name", async () => {
    const dup = await gw.svc("browser", "create-profile", "work")
    expect(dup.code).not.toBe(0)
    expect(dup.stderr).toContain('profile "work" already exists')
    const builtIn = await gw.svc("browser", "delete-profile", "svc")
    expect(builtIn.code).not.toBe(0)
    expect(builtIn.stderr).toContain("built-in")
  })

  it("deletes a profile: stops its browser and moves its data dir to the trash", async () => {
    const status = JSON.parse((await gw.svc("browser", "status", "--browser-profile", "work", "--json")).stdout)
    expect(status.running).toBe(true)
    const r = await gw.svc("browser", "delete-profile", "work", "--json")
    expect(r.code).toBe(0)
    const result = JSON.parse(r.stdout)
    expect(result).toMatchObject({ name: "work", deleted: true })
    expect(pidAlive(status.pid)).toBe(false)
    expect(fs.existsSync(path.join(gw.stateDir, "browser/work"))).toBe(false)
    expect(result.trashedTo).toEqual(expect.any(String))
    expect(fs.existsSync(path.join(result.trashedTo, "user-data/Default"))).toBe(true)
    const saved = JSON.parse(fs.readFileSync(path.join(gw.stateDir, "svc.json"), "utf8"))
    expect(saved.browser.profiles.work).toBeUndefined()
    const after = await gw.svc("browser", "status", "--browser-profile", "work")
    expect(after.code).not.toBe(0)
    expect(after.stderr).toContain('unknown browser profile "work"')
  })
})
