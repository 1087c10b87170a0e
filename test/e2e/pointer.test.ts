import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { browserCli } from "../support/browserCli.js"
import { freeCdpPort, type Gateway, servePages, startGateway } from "../support/gateway.js"

// `svc browser mouse move|down|up|drag` through the real path (bin/svc → gateway → playwright-core →
// Chromium): the page sees the pointer where it was sent, a press in one command and a release in a later
// one make one gesture, a drag moves a slider, and a point outside the viewport is refused.

const pad = `<!doctype html><html><head><title>Pad</title>
<style>body { margin: 0 } #pad { width: 400px; height: 200px; background: #eee } #pad:hover { background: rgb(0, 128, 0) }</style>
</head><body>
<div id="pad"></div>
<input id="level" type="range" min="0" max="100" value="0" style="position: absolute; left: 0; top: 250px; width: 300px; margin: 0">
<script>
  window.seen = []
  for (const type of ["mousedown", "mouseup", "click", "contextmenu"]) {
    document.getElementById("pad").addEventListener(type, (e) => { seen.push([type, e.clientX, e.clientY, e.button, e.buttons]); e.preventDefault() })
  }
  document.getElementById("pad").addEventListener("mousemove", (e) => { window.last = [e.clientX, e.clientY, e.buttons] })
</script>
</body></html>`

describe("svc browser mouse", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>
  const { evaluate, ok } = browserCli(() => gw)

  beforeAll(async () => {
    pages = await servePages({ "/pad": pad })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } } })
    await ok("open", pages.url("/pad"))
  })
  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
  })

  it("moves, presses and releases where it was told, across commands", async () => {
    expect(await ok("mouse", "move", "40,30")).toBe(`moved the mouse to 40,30 (${pages.url("/pad")})`)
    expect(await evaluate("() => window.last")).toEqual([40, 30, 0])
    // Hovering is real: the page's :hover style applies.
    expect(await evaluate("() => getComputedStyle(document.getElementById('pad')).backgroundColor")).toBe("rgb(0, 128, 0)")
    expect(await ok("mouse", "down")).toBe(`pressed the left mouse button (${pages.url("/pad")})`)
    await ok("mouse", "move", "140,60")
    expect(await evaluate("() => window.last")).toEqual([140, 60, 1])
    expect(await ok("mouse", "up")).toBe(`released the left mouse button (${pages.url("/pad")})`)
    expect(await evaluate("() => window.seen")).toEqual([
      ["mousedown", 40, 30, 0, 1],
      ["mouseup", 140, 60, 0, 0],
      ["click", 140, 60, 0, 0]
    ])
    await ok("mouse", "down", "--button", "right")
    const up = JSON.parse(await ok("mouse", "up", "--button", "right", "--json"))
    expect(up).toMatchObject({ kind: "mouseUp", url: pages.url("/pad") })
    // A right button: the context menu comes with the press, as on Linux and on a Mac.
    expect((await evaluate("() => window.seen")).slice(3).map((e: Array<unknown>) => e.slice(0, 4))).toEqual([
      ["mousedown", 140, 60, 2],
      ["contextmenu", 140, 60, 2],
      ["mouseup", 140, 60, 2]
    ])
  })

  it("drags from one point to another: a slider follows", async () => {
    expect(await ok("mouse", "drag", "1,260", "150,260")).toBe(`dragged from 1,260 to 150,260 (${pages.url("/pad")})`)
    expect(await evaluate("() => document.getElementById('level').value")).toBe("50")
  })

  it("refuses a point outside the viewport or not a point, and leaves no button pressed", async () => {
    const size = await evaluate("() => [document.documentElement.clientWidth, document.documentElement.clientHeight]") as [number, number]
    const outside = await gw.svc("browser", "mouse", "move", `${size[0]},10`)
    expect(outside.code).toBe(1)
    expect(outside.stderr.trim()).toBe(
      `svc: mouse move ${size[0]},10: the point is outside the viewport, which is ${size[0]}x${size[1]} CSS pixels ` +
        `(x from 0 to ${size[0] - 1}, y from 0 to ${size[1] - 1}); scroll the element into view first, or act on it by its ref`
    )
    const drag = await gw.svc("browser", "mouse", "drag", "10,10", `10,${size[1] + 5}`)
    expect(drag.code).toBe(1)
    expect(drag.stderr).toContain(`mouse drag 10,${size[1] + 5}: the point is outside the viewport`)
    const notPoint = await gw.svc("browser", "mouse", "move", "12")
    expect(notPoint.code).toBe(1)
    expect(notPoint.stderr.trim()).toBe(`svc: mouse move: expected x,y in CSS pixels, e.g. 120,48 (got "12")`)
    // Nothing was pressed by the refused drag: a move reports no button held.
    await ok("mouse", "move", "20,20")
    expect(await evaluate("() => window.last")).toEqual([20, 20, 0])
  })
})
