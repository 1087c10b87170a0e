import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { browserCli } from "../support/browserCli.js"
import { freeCdpPort, type Gateway, servePages, startGateway } from "../support/gateway.js"

// `svc browser state save|load` through the real path (bin/svc → gateway → playwright-core → Chromium): a
// profile's cookies and local storage go to an owner-only file of the states root and come back, replacing
// what the profile had since; a taken name, a name outside the root and a file that is no state are refused.

const page = `<!doctype html><title>Signed in</title><p>hello</p>`

describe("svc browser state", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>
  const { evaluate, ok } = browserCli(() => gw)
  const name = `state-test-${process.pid}-${Date.now()}.json`
  let saved: string | undefined
  const readLocal = () => evaluate("() => JSON.stringify(Object.entries(localStorage).sort())").then((s: string) => JSON.parse(s))

  beforeAll(async () => {
    pages = await servePages({ "/app": page })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } } })
    await ok("open", pages.url("/app"))
  })
  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
    if (saved !== undefined) fs.rmSync(saved, { force: true })
  })

  it("saves cookies and local storage to an owner-only file, and loads them back over what came since", async () => {
    await ok("cookies", "set", "session", "s-123", "--url", pages.url("/"))
    await evaluate("() => { localStorage.setItem('token', 'abc'); localStorage.setItem('theme', 'dark') }")

    const out = await ok("state", "save", name)
    const match = /^saved 1 cookie\(s\) and the local storage of 1 origin\(s\) to (\/.+)$/.exec(out)
    expect(match, out).not.toBeNull()
    saved = match![1]!
    expect(path.basename(saved)).toBe(name)
    expect(path.basename(path.dirname(saved))).toBe("states")
    expect(fs.statSync(saved).mode & 0o777).toBe(0o600)
    const file = JSON.parse(fs.readFileSync(saved, "utf8"))
    expect(file.cookies).toEqual([expect.objectContaining({ name: "session", value: "s-123", domain: "127.0.0.1", path: "/" })])
    expect(file.origins).toEqual([{
      origin: new URL(pages.url("/")).origin,
      localStorage: expect.arrayContaining([{ name: "token", value: "abc" }, { name: "theme", value: "dark" }])
    }])

    // Never over a file: the one there is left as it was.
    const again = await gw.svc("browser", "state", "save", name)
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(`${saved} already exists and is never overwritten`)
    expect(JSON.parse(fs.readFileSync(saved, "utf8"))).toEqual(file)

    // What changes after the save is gone after the load: signed out, another key, another cookie.
    await ok("cookies", "clear")
    await ok("cookies", "set", "tracker", "t-9", "--url", pages.url("/"))
    await evaluate("() => { localStorage.clear(); localStorage.setItem('other', 'x') }")
    expect(await ok("state", "load", name)).toBe(
      `cleared the profile's cookies and local storage, then loaded 1 cookie(s) and the local storage of 1 origin(s) from ${saved}`
    )
    expect(await ok("cookies")).toBe(`session=s-123  127.0.0.1/`)
    expect(await readLocal()).toEqual([["theme", "dark"], ["token", "abc"]])
    await ok("navigate", pages.url("/app"))
    expect(await readLocal()).toEqual([["theme", "dark"], ["token", "abc"]])
    expect(await evaluate("() => document.cookie")).toBe("session=s-123")

    const json = JSON.parse(await ok("state", "load", saved, "--json"))
    expect(json).toMatchObject({ path: saved, cookies: 1, origins: 1 })
  })

  it("refuses names outside the states root, files that are not there, and files that are no state", async () => {
    const outside = await gw.svc("browser", "state", "save", "../escape.json")
    expect(outside.code).toBe(1)
    expect(outside.stderr).toMatch(/"\.\.\/escape\.json" leaves \/\S+\/states \(through "\.\."\)/)
    const missing = await gw.svc("browser", "state", "load", `missing-${process.pid}.json`)
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain(`"missing-${process.pid}.json" does not exist in`)
    const etc = await gw.svc("browser", "state", "load", "/etc/passwd")
    expect(etc.code).toBe(1)
    expect(etc.stderr).toMatch(/"\/etc\/passwd" resolves to a path outside \/\S+\/states; files are read only from there/)

    // The relay drives the user's own browser: a load, which clears its cookies first, is refused there.
    const relay = await gw.svc("browser", "state", "load", name, "--browser-profile", "relay", "--json")
    expect(relay.code).toBe(1)
    expect(JSON.parse(relay.stdout).error).toMatchObject({ _tag: "Forbidden", status: 403 })
    expect(JSON.parse(relay.stdout).error.message).toContain(`profile "relay" drives your own browser through the extension relay`)

    const states = path.dirname(saved ?? path.join("/tmp/svc/states", "x"))
    const bad = path.join(states, `bad-${process.pid}.json`)
    fs.writeFileSync(bad, JSON.stringify({ cookies: [{ name: 1 }], origins: [] }), { mode: 0o600 })
    try {
      const r = await gw.svc("browser", "state", "load", path.basename(bad), "--json")
      expect(r.code).toBe(1)
      const error = JSON.parse(r.stdout).error
      expect(error).toMatchObject({ _tag: "InvalidRequest", status: 400 })
      expect(error.message).toContain(`storage state ${bad}: not a storage state: cookies.0.name: Expected string, actual 1`)
      // Nothing was cleared by the refused load.
      expect(await ok("cookies")).toBe(`session=s-123  127.0.0.1/`)
    } finally {
      fs.rmSync(bad, { force: true })
    }
  })
})
