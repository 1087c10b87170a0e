import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { browserCli } from "../support/browserCli.js"
import { freeCdpPort, type Gateway, servePages, startGateway } from "../support/gateway.js"

// `type --focused` with --submit and --slowly, and `click --at` with --double, through the real path
// (bin/svc → gateway → playwright-core → Chromium): what the page saw, as its own listeners recorded it.

const page = `<!doctype html><html><head><title>Focus</title>
<style>body { margin: 0 } #pad { position: absolute; left: 40px; top: 300px; width: 120px; height: 60px; background: #ddd }</style>
</head><body>
<form id="search" onsubmit="event.preventDefault(); window.submitted.push(new FormData(this).get('q'))">
  <input id="q" name="q" aria-label="Query">
</form>
<div id="pad">pad</div>
<script>
  window.submitted = []
  window.keys = []
  document.getElementById("q").addEventListener("keydown", (e) => window.keys.push(e.key))
  window.clicks = []
  const pad = document.getElementById("pad")
  pad.addEventListener("click", (e) => window.clicks.push("click " + e.detail))
  pad.addEventListener("dblclick", (e) => window.clicks.push("dblclick at " + e.clientX + "," + e.clientY))
</script>
</body></html>`

describe("type --focused --submit / --slowly and click --at --double", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>
  const { evaluate, ok } = browserCli(() => gw)
  /** The page loaded afresh, with the query field focused. */
  const freshWithFocus = async () => {
    await ok("navigate", pages.url("/focus"))
    await evaluate("() => { document.getElementById('q').focus(); return document.activeElement.id }")
  }

  beforeAll(async () => {
    pages = await servePages({ "/focus": page })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } } })
    await gw.svc("browser", "open", "about:blank")
  })
  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
  })

  it("--submit presses Enter after the text: the form is submitted with it", async () => {
    await freshWithFocus()
    expect(await ok("type", "--focused", "cheap flights", "--submit")).toBe(`typed into the focused element (${pages.url("/focus")})`)
    expect(await evaluate("() => window.submitted")).toEqual(["cheap flights"])
    // Without --submit the text is only typed.
    await freshWithFocus()
    await ok("type", "--focused", "no enter")
    expect(await evaluate("() => [window.submitted, document.getElementById('q').value]")).toEqual([[], "no enter"])
  })

  it("--slowly types key by key (the page sees a keydown per character); without it the text is inserted at once", async () => {
    await freshWithFocus()
    await ok("type", "--focused", "abc", "--slowly")
    expect(await evaluate("() => [window.keys, document.getElementById('q').value]")).toEqual([["a", "b", "c"], "abc"])

    await freshWithFocus()
    await ok("type", "--focused", "xyz")
    expect(await evaluate("() => [window.keys, document.getElementById('q').value]")).toEqual([[], "xyz"])

    // Both: each key, then Enter, which submits.
    await freshWithFocus()
    await ok("type", "--focused", "go", "--slowly", "--submit")
    expect(await evaluate("() => [window.keys, window.submitted]")).toEqual([["g", "o", "Enter"], ["go"]])
  })

  it("click --at --double double-clicks the point: two clicks, then a dblclick there", async () => {
    await ok("navigate", pages.url("/focus"))
    await evaluate("() => window.scrollTo(0, 0)")
    expect(await ok("click", "--at", "70,320", "--double")).toBe(`clicked at 70,320 (${pages.url("/focus")})`)
    expect(await evaluate("() => window.clicks")).toEqual(["click 1", "click 2", "dblclick at 70,320"])
    // A single click is one click, no dblclick.
    await evaluate("() => { window.clicks = [] }")
    await ok("click", "--at", "70,320")
    expect(await evaluate("() => window.clicks")).toEqual(["click 1"])
  })

  it("snapshot --boxes gives each element's box in viewport pixels, where click --at hits it", async () => {
    await ok("navigate", pages.url("/focus"))
    for (const format of [[], ["--format", "role"]]) {
      const line = (await ok("snapshot", "--boxes", ...format)).split("\n").find((l) => l.includes('textbox "Query"'))!
      const [x, y, width, height] = /\[box=(\d+),(\d+),(\d+),(\d+)\]/.exec(line)!.slice(1).map(Number) as [number, number, number, number]
      const rect = await evaluate("() => { const r = document.getElementById('q').getBoundingClientRect(); return [r.x, r.y, r.width, r.height].map(Math.round) }")
      expect([x, y, width, height]).toEqual(rect)
      await evaluate("() => document.activeElement.blur()")
      await ok("click", "--at", `${x + Math.floor(width / 2)},${y + Math.floor(height / 2)}`)
      expect(await evaluate("() => document.activeElement.id")).toBe("q")
    }
    // Without --boxes, no box.
    expect(await ok("snapshot")).not.toContain("[box=")
  })
})
