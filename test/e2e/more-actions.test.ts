import * as http from "node:http"
import type * as net from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freeCdpPort, type Gateway, servePages, startGateway } from "../support/gateway.js"
import { refOf } from "../support/refs.js"

// The commands agents expect besides ref actions: back, forward, reload; reading an element's text and a
// control's value; typing into the focused element; clicking at a point; evaluate with the script as an
// argument. Through the real path (bin/svc → gateway → playwright-core over CDP → the managed Chromium), on
// pages served here.

const first = `<!doctype html><html><head><title>First page</title></head><body>
<h1>First</h1><a href="/second">to second</a>
<script>window.loads = (Number(sessionStorage.getItem("loads") || 0) + 1); sessionStorage.setItem("loads", String(window.loads))</script>
</body></html>`

const second = `<!doctype html><html><head><title>Second page</title></head><body><h1>Second</h1></body></html>`

const long = "x".repeat(25_000)

const form = `<!doctype html><html><head><title>Form</title>
<style>body { margin: 0 } #spot { position: absolute; left: 100px; top: 200px; width: 80px; height: 40px }</style>
</head><body>
<p id="para">Hello <b>bold</b> world<span style="display:none"> hidden part</span></p>
<p id="long">${long}</p>
<label for="name">Name</label> <input id="name" value="Ada">
<label><input type="checkbox" id="agree" checked> I agree</label>
<label><input type="checkbox" id="news"> Newsletter</label>
<label for="colour">Colour</label>
<select id="colour"><option value="r">Red</option><option value="b" selected>Blue</option></select>
<label for="langs">Languages</label>
<select id="langs" multiple><option value="en" selected>English</option><option value="fr">French</option><option value="de" selected>German</option></select>
<label for="notes">Notes</label> <textarea id="notes">line one</textarea>
<button id="spot" onclick="this.textContent = 'hit ' + event.clientX + ',' + event.clientY">Spot</button>
<p id="out"></p>
</body></html>`

describe("back, forward, reload, text, value, type --focused, click --at, evaluate <fn>", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>

  const ok = async (...args: ReadonlyArray<string>) => {
    const r = await gw.svc("browser", ...args)
    expect(r.code, r.stderr).toBe(0)
    if (process.env.SVC_TIMING) console.log(args[0], r.ms.toFixed(0), r.stdout.trim().slice(0, 80))
    return r.stdout.trim()
  }
  const evaluate = async (fn: string) => JSON.parse(await ok("evaluate", "--json", "--fn", fn)).result
  const snapshot = () => ok("snapshot")

  beforeAll(async () => {
    pages = await servePages({ "/first": first, "/second": second, "/form": form })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } } })
    await gw.svc("browser", "open", "about:blank")
  })
  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
  })

  it("back and forward move through the tab's history and say where they landed; reload loads the page again", async () => {
    await ok("navigate", pages.url("/first"))
    await ok("navigate", pages.url("/second"))
    // A page restored from the back/forward cache has no new response, hence no status.
    expect(await ok("back")).toMatch(new RegExp(`^went back to ${pages.url("/first")}( \\(HTTP 200\\))?: First page$`))
    expect(await evaluate("() => location.pathname")).toBe("/first")
    expect(await ok("forward")).toMatch(new RegExp(`^went forward to ${pages.url("/second")}( \\(HTTP 200\\))?: Second page$`))
    expect(await evaluate("() => document.title")).toBe("Second page")
    const t0 = Date.now()
    const json = JSON.parse(await ok("back", "--json"))
    // Whether or not Chromium restored the page from its back/forward cache, back does not wait for a load.
    expect(Date.now() - t0).toBeLessThan(5_000)
    expect(json).toMatchObject({ kind: "back", url: pages.url("/first"), title: "First page" })

    const loadsBefore = await evaluate("() => window.loads")
    expect(await ok("reload")).toBe(`reloaded ${pages.url("/first")} (HTTP 200): First page`)
    expect(await evaluate("() => window.loads")).toBe(loadsBefore + 1)
  })

  it("back to a page that can no longer be loaded fails as a navigation there does, naming it", async () => {
    // A page of a server that goes away: not kept in any cache, so going back must load it again.
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html", "cache-control": "no-store" }).end("<title>Soon gone</title>")
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const gone = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/gone`
    await ok("navigate", gone)
    await new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
    await ok("navigate", pages.url("/second"))
    const r = await gw.svc("browser", "back")
    expect(r.code, r.stdout).not.toBe(0)
    expect(r.stderr.trim()).toMatch(
      new RegExp(`^svc: back to ${gone.replace(/[.]/g, "\\.")}: the page could not be loaded: net::ERR_CONNECTION_REFUSED`)
    )
    // The tab is there all the same (on the browser's error page), and forward leads on.
    expect(await ok("forward")).toMatch(/^went forward to .*\/second/)
  })

  it("back with no earlier page says so in one line and fails", async () => {
    await ok("open", pages.url("/second"))
    // A new tab may start at about:blank: back goes there first.
    let r = await gw.svc("browser", "back")
    for (let i = 0; i < 2 && r.code === 0; i++) r = await gw.svc("browser", "back")
    expect(r.code, r.stdout).not.toBe(0)
    expect(r.stderr.trim().split("\n")).toHaveLength(1)
    expect(r.stderr.trim()).toMatch(/^svc: back: this tab has no earlier page in its history \(it stays at \S+\)$/)
    // A navigation drops the pages ahead of it: nothing to go forward to.
    await ok("navigate", pages.url("/first"))
    const f = await gw.svc("browser", "forward")
    expect(f.code).not.toBe(0)
    expect(f.stderr).toContain("forward: this tab has no later page in its history")
  })

  it("text prints an element's visible text, long text cut with a marker", async () => {
    await ok("navigate", pages.url("/form"))
    const snap = await snapshot()
    const para = refOf(snap, /paragraph.*Hello/)
    expect(await ok("text", para)).toBe("Hello bold world")
    const longRef = refOf(snap, /paragraph.*xxxx/)
    const out = await ok("text", longRef)
    expect(out.startsWith("x".repeat(20_000) + "… [truncated: 20000 of 25000 characters shown]")).toBe(true)
    expect(JSON.parse(await ok("text", para, "--json")).result).toBe("Hello bold world")
  })

  it("value prints a field's text, a checkbox's state and a select's selected options, as the user left them", async () => {
    await ok("navigate", pages.url("/form"))
    let snap = await snapshot()
    const name = refOf(snap, /textbox "Name"/)
    await ok("type", name, "Grace")
    expect(await ok("value", name)).toBe("Grace")
    expect(await ok("value", refOf(snap, /checkbox "I agree"/))).toBe("checked")
    const news = refOf(snap, /checkbox "Newsletter"/)
    expect(await ok("value", news)).toBe("not checked")
    await ok("click", news)
    expect(await ok("value", news)).toBe("checked")
    expect(JSON.parse(await ok("value", news, "--json")).result).toBe(true)
    const colour = refOf(snap, /combobox "Colour"/)
    expect(await ok("value", colour)).toBe(`Blue (value "b")`)
    await ok("select", colour, "Red")
    expect(await ok("value", colour)).toBe(`Red (value "r")`)
    expect(await ok("value", refOf(snap, /listbox "Languages"/))).toBe(`English (value "en")\nGerman (value "de")`)
    expect(await ok("value", refOf(snap, /textbox "Notes"/))).toBe("line one")

    const para = refOf(snap, /paragraph.*Hello/)
    const r = await gw.svc("browser", "value", para)
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain(`value ${para}`)
    expect(r.stderr).toContain(`is not a form control and has no value; read its text with \`svc browser text ${para}\``)

    // A ref from before a reload is stale: refused at once, not read from another element.
    await ok("reload")
    const stale = await gw.svc("browser", "value", name)
    expect(stale.code).not.toBe(0)
    expect(stale.stderr).toContain(name)
    expect(stale.stderr).toMatch(/snapshot/)
    expect(stale.ms).toBeLessThan(4_000)
    snap = await snapshot()
    expect(await ok("value", refOf(snap, /textbox "Name"/))).toBe("Ada")
  })

  it("type --focused types into the element that has focus; a ref-looking text stays text", async () => {
    await ok("navigate", pages.url("/form"))
    const snap = await snapshot()
    const name = refOf(snap, /textbox "Name"/)
    await ok("click", name)
    await ok("press", "End")
    expect(await ok("type", "--focused", " 12")).toBe(`typed into the focused element (${pages.url("/form")})`)
    await ok("type", "--focused", name)
    expect(await evaluate("() => document.getElementById('name').value")).toBe(`Ada 12${name}`)
    await ok("press", "Tab")
    expect(await evaluate("() => document.activeElement.id")).toBe("agree")

    const both = await gw.svc("browser", "type", name, "--focused", "x")
    expect(both.code).not.toBe(0)
    expect(both.stderr).toContain("type --focused <text> takes no ref")
    const none = await gw.svc("browser", "type", "hello")
    expect(none.code).not.toBe(0)
    expect(none.stderr).toContain("type: give a ref and the text")

    await evaluate("() => document.activeElement.blur()")
    const nothing = await gw.svc("browser", "type", "--focused", "lost")
    expect(nothing.code).not.toBe(0)
    expect(nothing.stderr).toContain("type --focused: nothing on the page has focus")
  })

  it("click --at clicks the point of the viewport; a point outside it is refused, saying the viewport's size", async () => {
    await ok("navigate", pages.url("/form"))
    await evaluate("() => window.scrollTo(0, 0)")
    expect(await ok("click", "--at", "130,215")).toBe(`clicked at 130,215 (${pages.url("/form")})`)
    expect(await evaluate("() => document.getElementById('spot').textContent")).toBe("hit 130,215")

    const size = await evaluate("() => [document.documentElement.clientWidth, document.documentElement.clientHeight]")
    const r = await gw.svc("browser", "click", "--at", `10,${size[1] + 5}`)
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain(`click --at 10,${size[1] + 5}: the point is outside the viewport, which is ${size[0]}x${size[1]} CSS pixels`)
    const bad = await gw.svc("browser", "click", "--at", "left")
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toContain("click --at: expected x,y in CSS pixels")
  })

  it("evaluate takes the script as a plain argument as well as --fn", async () => {
    await ok("navigate", pages.url("/second"))
    expect(await ok("evaluate", "() => document.title")).toBe(`"Second page"`)
    expect(await ok("evaluate", "--fn", "() => document.title")).toBe(`"Second page"`)
    const both = await gw.svc("browser", "evaluate", "() => 1", "--fn", "() => 2")
    expect(both.code).not.toBe(0)
    expect(both.stderr).toContain("evaluate: give the function once")
  })
})
