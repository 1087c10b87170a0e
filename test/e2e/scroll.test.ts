import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { browserCli } from "../support/browserCli.js"
import { freeCdpPort, type Gateway, servePages, startGateway } from "../support/gateway.js"
import { refOf } from "../support/refs.js"

// `svc browser scroll` through the real path (bin/svc → gateway → playwright-core → Chromium): the wheel
// scrolls the page, or the element a ref names, by what was asked; the answer says where it is now, and
// that it did not move at an end.

const items = Array.from({ length: 60 }, (_, i) => `<li>Row ${i}</li>`).join("")
const tall = `<!doctype html><html><head><title>Tall</title>
<style>body { margin: 0 } #list { height: 200px; overflow: auto; width: 300px } li { height: 20px }</style>
</head><body>
<ul id="list" role="list" aria-label="Rows">${items}</ul>
<div style="height: 5000px">tall content</div>
</body></html>`

describe("svc browser scroll", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>
  const { evaluate, ok } = browserCli(() => gw)

  beforeAll(async () => {
    pages = await servePages({ "/tall": tall })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } } })
    await ok("open", pages.url("/tall"))
  })
  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
  })

  it("scrolls the page by what was asked and says where it is", async () => {
    const maxY = await evaluate("() => document.scrollingElement.scrollHeight - document.scrollingElement.clientHeight")
    expect(await ok("scroll", "down", "600")).toBe(`scrolled down 600 px: the page is at y 600 of ${maxY.toLocaleString("en-US")} (${pages.url("/tall")})`)
    expect(await evaluate("() => window.scrollY")).toBe(600)
    // Without pixels: most of a viewport.
    expect(await ok("scroll", "down")).toMatch(/^scrolled down 600 px: the page is at y 1,200 of/)
    expect(await ok("scroll", "up", "5000")).toBe(`scrolled up 5,000 px: the page is at y 0 of ${maxY.toLocaleString("en-US")} (its top) (${pages.url("/tall")})`)
    expect(await ok("scroll", "down", "100000")).toMatch(new RegExp(`^scrolled down 100,000 px: the page is at y ${maxY.toLocaleString("en-US")} of ${maxY.toLocaleString("en-US")} \\(its end\\)`))
    await evaluate("() => window.scrollTo(0, 0)")
    expect(await ok("scroll", "up")).toBe(
      `scrolled up 600 px, but the page did not move: it is at y 0 of ${maxY.toLocaleString("en-US")} (the end that way) (${pages.url("/tall")})`
    )
    const json = JSON.parse(await ok("scroll", "down", "100", "--json"))
    expect(json.result).toEqual({ x: 0, y: 100, maxX: 0, maxY, moved: true, scroller: "page" })
  })

  it("scrolls an element that scrolls on its own, not the page", async () => {
    await evaluate("() => window.scrollTo(0, 0)")
    const list = refOf(await ok("snapshot"), /list "Rows"/)
    expect(await ok("scroll", "down", "300", "--ref", list)).toMatch(/^scrolled down 300 px: the scrolling element ul#list is at y 300 of 1,000 /)
    expect(await evaluate("() => [document.getElementById('list').scrollTop, window.scrollY]")).toEqual([300, 0])
  })

  it("refuses a scroll of nothing", async () => {
    const zero = await gw.svc("browser", "scroll", "down", "0")
    expect(zero.code).not.toBe(0)
    expect(zero.stderr).toContain("scroll: pixels must be a positive number (got 0)")
  })
})
