import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freeCdpPort, type Gateway, startGateway } from "../support/gateway.js"
import { refOf } from "../support/refs.js"

// A page must not steer the agent anywhere: the navigation policy through the real path (bin/svc → gateway →
// playwright → Chromium). Two loopback servers stand for two sites: `good.localhost` and `evil.localhost`
// (Chromium resolves *.localhost to loopback itself). The evil one counts every request it gets, so a test
// can say the browser never went there.

interface Site {
  readonly port: number
  readonly origin: (host: string) => string
  readonly hits: Array<string>
  readonly close: () => Promise<void>
}

const serve = async (handler: (req: http.IncomingMessage, res: http.ServerResponse, port: number) => void): Promise<Site> => {
  const hits: Array<string> = []
  let port = 0
  const server = http.createServer((req, res) => {
    hits.push(`${req.headers.host ?? ""}${req.url ?? ""}`)
    handler(req, res, port)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as AddressInfo).port
  return {
    port,
    origin: (host) => `http://${host}:${port}`,
    hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

const html = (res: http.ServerResponse, body: string) =>
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(body)

/** A 1x1 PNG. */
const PIXEL = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
  "base64"
)

interface Failure {
  readonly code: number | null
  readonly line: string
  readonly error: { readonly _tag: string; readonly message: string; readonly status: number | null }
}

describe("the navigation policy", () => {
  let evil: Site
  let good: Site
  /** Where good's pages send the browser: evil's server, or (set per gateway) svc's own control port. */
  let badTarget = ""

  beforeAll(async () => {
    evil = await serve((_req, res) => html(res, "<!doctype html><title>Evil</title><h1>gotcha</h1>"))
    good = await serve((req, res, port) => {
      const p = (req.url ?? "/").split("?")[0]
      const self = `http://good.localhost:${port}`
      if (p === "/redirect") {
        res.writeHead(302, { location: badTarget }).end()
        return
      }
      if (p === "/hop") {
        // An allowed hop first, then the refused one: each hop is checked, not only the first.
        res.writeHead(302, { location: `${self}/redirect` }).end()
        return
      }
      if (p === "/cached") {
        return html(res, `<!doctype html><title>Cached</title><img src="/cached.png" alt="cached">`)
      }
      if (p === "/cached.png") {
        res.writeHead(200, { "content-type": "image/png", "cache-control": "public, max-age=3600" }).end(PIXEL)
        return
      }
      if (p === "/resources") {
        return html(
          res,
          `<!doctype html><title>Resources</title>
<img src="${evil.origin("evil.localhost")}/pixel.png" onerror="document.getElementById('img').textContent = 'img failed'">
<p id="img">img pending</p><p id="fetch">fetch pending</p>
<script>
fetch("${evil.origin("www.evil.localhost")}/data").then(
  () => { document.getElementById("fetch").textContent = "fetch answered" },
  () => { document.getElementById("fetch").textContent = "fetch failed" })
</script>`
        )
      }
      return html(
        res,
        `<!doctype html><title>Good</title><h1>Good</h1>
<a href="${self}/redirect">Redirected away</a>
<a href="${badTarget}">Straight away</a>
<a href="${badTarget}" target="_blank">Away in a new tab</a>
<button onclick="window.open('${badTarget}')">Pop up away</button>
<a href="${self}/resources" target="_blank">Fine new tab</a>`
      )
    })
  })
  afterAll(async () => {
    await good?.close()
    await evil?.close()
  })

  const withGateway = (config: object) => {
    const state: { gw?: Gateway } = {}
    beforeAll(async () => {
      state.gw = await startGateway({
        config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } }, ...config } }
      })
    }, 60_000)
    afterAll(async () => {
      await state.gw?.stop()
    })
    const gw = () => state.gw!
    const ok = async (...args: Array<string>) => {
      const r = await gw().svc(...args, "--json")
      expect(r.code, r.stderr + r.stdout).toBe(0)
      return JSON.parse(r.stdout)
    }
    /** A command that must fail: its one stderr line and its --json error. */
    const refused = async (...args: Array<string>): Promise<Failure> => {
      const human = await gw().svc(...args)
      expect(human.code, human.stdout).toBe(1)
      const lines = human.stderr.trim().split("\n")
      expect(lines, human.stderr).toHaveLength(1)
      const json = await gw().svc(...args, "--json")
      expect(json.code).toBe(1)
      return { code: human.code, line: lines[0]!, error: JSON.parse(json.stdout).error }
    }
    const tabUrls = async () => (await ok("browser", "tabs")).tabs.map((t: { url: string }) => t.url) as Array<string>
    return { gw, ok, refused, tabUrls }
  }

  describe("with browser.blockedDomains and browser.allowFileUrls set", () => {
    const { ok, refused, tabUrls } = withGateway({ blockedDomains: ["*.evil.localhost"], allowFileUrls: true })
    beforeAll(() => {
      badTarget = `${evil.origin("evil.localhost")}/landing`
    })

    it("navigate and open to a blocked host: 403 naming the rule and the pattern, nothing sent", async () => {
      expect((await ok("browser", "open", `${good.origin("good.localhost")}/`)).url).toContain("good.localhost")
      evil.hits.length = 0
      for (const args of [
        ["browser", "navigate", `${evil.origin("evil.localhost")}/`],
        ["browser", "navigate", `${evil.origin("WWW.Evil.LocalHost.")}/x`],
        ["browser", "open", `${evil.origin("evil.localhost")}/`]
      ]) {
        const r = await refused(...args)
        expect(r.line).toMatch(/^svc: /)
        expect(r.line).toContain("blocked by browser.blockedDomains pattern *.evil.localhost; remove it from svc.json")
        expect(r.error).toMatchObject({ _tag: "NavigationBlocked", status: 403 })
        expect(r.error.message).toContain("rule blockedDomains")
      }
      expect(evil.hits).toEqual([])
      expect((await tabUrls()).some((u) => u.includes("evil"))).toBe(false)
    }, 60_000)

    it("a redirect from an allowed page to a blocked one is refused and reported, for navigate, open and a click", async () => {
      evil.hits.length = 0
      for (const path of ["/redirect", "/hop"]) {
        const nav = await refused("browser", "navigate", `${good.origin("good.localhost")}${path}`)
        expect(nav.error).toMatchObject({ _tag: "NavigationBlocked", status: 403 })
        expect(nav.error.message).toContain(`${evil.origin("evil.localhost")}/landing`)
        expect(nav.error.message).toContain("pattern *.evil.localhost")
      }
      const opened = await refused("browser", "open", `${good.origin("good.localhost")}/redirect`)
      expect(opened.error.message).toContain("the tab was closed")
      expect(opened.error.message).toContain("pattern *.evil.localhost")

      await ok("browser", "navigate", `${good.origin("good.localhost")}/`)
      const snap = (await ok("browser", "snapshot")).snapshot as string
      for (const pattern of [/link "Redirected away"/, /link "Straight away"/]) {
        const clicked = await refused("browser", "click", refOf(snap, pattern))
        expect(clicked.error._tag).toBe("NavigationBlocked")
        expect(clicked.error.message).toContain("click was done, but")
        expect(clicked.error.message).toContain("pattern *.evil.localhost")
        // The tab stays on its page (no error page), so its refs still hold.
        expect((await ok("browser", "tabs")).tabs.find((t: { current: boolean }) => t.current).url).toBe(
          `${good.origin("good.localhost")}/`
        )
      }
      expect(evil.hits).toEqual([])
      expect((await tabUrls()).some((u) => u.includes("evil"))).toBe(false)
    }, 90_000)

    it("a link with target=_blank and window.open to a blocked host: refused, reported, no tab left on it", async () => {
      await ok("browser", "navigate", `${good.origin("good.localhost")}/`)
      const snap = (await ok("browser", "snapshot")).snapshot as string
      evil.hits.length = 0
      const before = (await tabUrls()).length
      for (const pattern of [/link "Away in a new tab"/, /button "Pop up away"/]) {
        const r = await refused("browser", "click", refOf(snap, pattern))
        expect(r.error).toMatchObject({ _tag: "NavigationBlocked", status: 403 })
        expect(r.error.message).toContain("the new tab was closed")
        expect(r.error.message).toContain("pattern *.evil.localhost")
      }
      expect(evil.hits).toEqual([])
      const after = await tabUrls()
      expect(after.some((u) => u.includes("evil"))).toBe(false)
      expect(after.length).toBe(before)
      // A new tab to an allowed page still opens and is reported as before.
      const fine = await ok("browser", "click", refOf(snap, /link "Fine new tab"/))
      expect(fine.newTabs).toHaveLength(1)
      const listed = (await ok("browser", "tabs")).tabs.find((t: { targetId: string }) => t.targetId === fine.newTabs[0].targetId)
      expect(listed.url).toBe(`${good.origin("good.localhost")}/resources`)
    }, 60_000)

    it("a page's own requests (an image, a fetch) to a blocked host are aborted: the server sees none", async () => {
      evil.hits.length = 0
      await ok("browser", "navigate", `${good.origin("good.localhost")}/resources`)
      let text = ""
      const deadline = Date.now() + 10_000
      while (Date.now() < deadline) {
        text = (await ok("browser", "evaluate", "() => document.body.innerText")).result
        if (text.includes("img failed") && text.includes("fetch failed")) break
        await new Promise((r) => setTimeout(r, 100))
      }
      expect(text).toContain("img failed")
      expect(text).toContain("fetch failed")
      expect(evil.hits).toEqual([])
    }, 60_000)

    it("file: URLs open when browser.allowFileUrls is true", async () => {
      const r = await ok("browser", "navigate", "file:///etc/passwd")
      expect(r.url).toBe("file:///etc/passwd")
      expect((await ok("browser", "evaluate", "() => document.body.innerText")).result).toContain("root:")
    }, 60_000)
  })

  describe("with no lists set", () => {
    const { gw, ok, refused, tabUrls } = withGateway({})
    let control = ""
    beforeAll(() => {
      control = `http://127.0.0.1:${gw().controlPort}`
      // Links and redirects go to the relay port: a link to a port the gateway listens on gets a preconnect
      // from Chromium (no request), which keeps the gateway's shutdown waiting on that idle socket.
      badTarget = `http://127.0.0.1:${gw().port + 3}/`
    })

    it("navigate and open to svc's own ports are refused, however the address is written", async () => {
      await ok("browser", "open", `${good.origin("good.localhost")}/`)
      const own = [
        `${control}/`,
        `http://localhost:${gw().controlPort}/tabs`,
        `http://2130706433:${gw().controlPort}/`,
        `http://[::ffff:127.0.0.1]:${gw().port}/`,
        `http://0x7f.1:${gw().port + 3}/`
      ]
      for (const url of own) {
        const r = await refused("browser", "navigate", url)
        expect(r.error, url).toMatchObject({ _tag: "NavigationBlocked", status: 403 })
        expect(r.line, url).toContain("rule ownPort")
        expect(r.line, url).toContain("svc's own")
      }
      expect((await refused("browser", "open", `${control}/`)).error._tag).toBe("NavigationBlocked")
      // Other ports of this machine stay open (the test servers are there).
      expect((await ok("browser", "navigate", `${good.origin("127.0.0.1")}/`)).title).toBe("Good")
    }, 60_000)

    it("pages of this machine keep the browser's HTTP cache: a cacheable image is fetched once over two visits", async () => {
      const fetched = () => good.hits.filter((h) => h.endsWith("/cached.png")).length
      const before = fetched()
      for (const path of ["/cached", "/", "/cached"]) {
        await ok("browser", "navigate", `${good.origin("127.0.0.1")}${path}`)
      }
      const loaded = await ok("browser", "evaluate", "() => document.querySelector('img').naturalWidth")
      expect(loaded.result).toBe(1)
      expect(fetched() - before).toBe(1)
    }, 60_000)

    it("a redirect or a link to the control port is refused too, with no list set", async () => {
      const nav = await refused("browser", "navigate", `${good.origin("good.localhost")}/redirect`)
      expect(nav.error.message).toContain("rule ownPort")
      await ok("browser", "navigate", `${good.origin("good.localhost")}/`)
      const snap = (await ok("browser", "snapshot")).snapshot as string
      for (const pattern of [/link "Straight away"/, /link "Away in a new tab"/]) {
        const r = await refused("browser", "click", refOf(snap, pattern))
        expect(r.error.message).toContain("rule ownPort")
      }
      expect((await tabUrls()).some((u) => u.startsWith(badTarget))).toBe(false)
    }, 60_000)

    it("a redirect or a link to a cloud metadata service, written as IPv6, is refused with no list set", async () => {
      const before = badTarget
      badTarget = "http://[::ffff:169.254.169.254]/latest/meta-data/"
      try {
        const nav = await refused("browser", "navigate", `${good.origin("good.localhost")}/hop`)
        expect(nav.error).toMatchObject({ _tag: "NavigationBlocked", status: 403 })
        expect(nav.error.message).toContain("rule cloudMetadata")
        await ok("browser", "navigate", `${good.origin("good.localhost")}/`)
        const snap = (await ok("browser", "snapshot")).snapshot as string
        const click = await refused("browser", "click", refOf(snap, /link "Straight away"/))
        expect(click.error.message).toContain("rule cloudMetadata")
        expect((await tabUrls()).some((u) => u.includes("a9fe") || u.includes("169.254"))).toBe(false)
      } finally {
        badTarget = before
      }
    }, 60_000)

    it("file:, javascript: and chrome: URLs and cloud metadata are refused by default, each naming its rule", async () => {
      const file = await refused("browser", "navigate", "file:///etc/passwd")
      expect(file.error).toMatchObject({ _tag: "NavigationBlocked", status: 403 })
      expect(file.line).toContain("rule scheme")
      expect(file.line).toContain("browser.allowFileUrls")
      expect((await refused("browser", "open", "file:///etc/passwd")).line).toContain("browser.allowFileUrls")
      expect((await refused("browser", "navigate", "javascript:alert(1)")).line).toContain("rule scheme")
      expect((await refused("browser", "open", "chrome://settings")).line).toContain("rule scheme")
      const metadata = await refused("browser", "navigate", "http://169.254.169.254/latest/meta-data/")
      expect(metadata.line).toContain("rule cloudMetadata")
      expect(metadata.line).toContain("browser.allowedDomains")
    }, 60_000)

    it("svc config set and a restart put new lists and allowFileUrls in force", async () => {
      expect((await gw().svc("config", "set", "browser.allowFileUrls", "true")).code).toBe(0)
      expect((await gw().svc("config", "set", "browser.allowedDomains", '["*.good.localhost"]')).code).toBe(0)
      const bad = await gw().svc("config", "set", "browser.blockedDomains", '["https://evil.localhost/x"]')
      expect(bad.code).toBe(1)
      expect(bad.stderr).toContain("has a scheme")
      const stateDir = gw().stateDir
      await gw().stop()
      const again = await startGateway({ stateDir })
      try {
        const run = (...args: Array<string>) => again.svc(...args, "--json")
        expect((await run("browser", "open", "file:///etc/passwd")).code).toBe(0)
        expect((await run("browser", "navigate", `${good.origin("good.localhost")}/`)).code).toBe(0)
        const other = await again.svc("browser", "navigate", `${evil.origin("evil.localhost")}/`)
        expect(other.code).toBe(1)
        expect(other.stderr).toContain("rule allowedDomains")
        expect(other.stderr).toContain("*.good.localhost")
      } finally {
        await again.stop()
      }
    }, 90_000)
  })

  describe("with the managed browser's DevTools port left to the browser to choose (the default)", () => {
    const { ok, refused, tabUrls } = withGateway({ profiles: { svc: {} } })

    it("navigate, open, a redirect and links to that port are refused as svc's own", async () => {
      const status = await ok("browser", "start")
      const port = status.status.cdpPort as number
      expect(port).toBeGreaterThan(0)
      const devtools = `http://localhost:${port}/json/version`
      for (const args of [["navigate", devtools], ["open", `http://127.0.0.1:${port}/json/list`]]) {
        const r = await refused("browser", ...args)
        expect(r.error, args.join(" ")).toMatchObject({ _tag: "NavigationBlocked", status: 403 })
        expect(r.line).toContain(`port ${port} is svc's own DevTools (profile "svc") port`)
      }
      const before = badTarget
      badTarget = devtools
      try {
        expect((await refused("browser", "navigate", `${good.origin("good.localhost")}/hop`)).error.message).toContain("rule ownPort")
        await ok("browser", "navigate", `${good.origin("good.localhost")}/`)
        const snap = (await ok("browser", "snapshot")).snapshot as string
        for (const pattern of [/link "Straight away"/, /link "Away in a new tab"/]) {
          expect((await refused("browser", "click", refOf(snap, pattern))).error.message).toContain("rule ownPort")
        }
        expect((await tabUrls()).some((u) => u.includes(`:${port}/`))).toBe(false)
      } finally {
        badTarget = before
      }
    }, 60_000)
  })
})
