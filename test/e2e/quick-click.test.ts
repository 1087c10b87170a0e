import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freeCdpPort, type Gateway, request, servePages, startGateway, svcSucceeds } from "../support/gateway.js"
import { belowTheFoldPage, logger, SLIDE, slidingPage } from "../support/pointerPages.js"
import { refOf } from "../support/refs.js"

// A click by ref that goes without the library's waits (act/quickPointer.ts) must still be a user's click, and
// must still never land on anything but the element the snapshot showed, through the real path
// (bin/svc → gateway → Chromium): the events a user's click makes, in order; a cover that appears the moment
// the pointer arrives gets none of them; a button that is sliding when the click comes is clicked where it
// stops.

const POINTER_EVENTS = ["pointerover", "pointerenter", "mouseover", "mouseenter", "pointermove", "mousemove",
  "pointerdown", "mousedown", "pointerup", "mouseup", "click"]


/** Every pointer and mouse event the button gets, in order. */
const plain = `<!doctype html><title>Plain</title>${logger}
<button id="b" style="margin:40px">Count</button>
<script>for (const t of ${JSON.stringify(POINTER_EVENTS)}) document.getElementById("b").addEventListener(t, () => window.log.push(t))</script>`

/** The same button with its double clicks logged too. */
const double = plain.replace("<title>Plain</title>", "<title>Double</title>")
  .replace(JSON.stringify(POINTER_EVENTS), JSON.stringify([...POINTER_EVENTS, "dblclick"]))

/** The first time the pointer moves, a cover with a click handler of its own is put over the button. */
const coveredOnArrival = `<!doctype html><title>Covered on arrival</title>${logger}
<button id="b" style="margin:40px" onclick="window.log.push('button')">Pay</button>
<script>
  document.addEventListener("pointermove", () => {
    if (document.getElementById("cover")) return
    const r = document.getElementById("b").getBoundingClientRect()
    const c = document.createElement("div")
    c.id = "cover"
    c.style.cssText = "position:fixed;left:" + (r.left - 10) + "px;top:" + (r.top - 10) + "px;width:" + (r.width + 20) +
      "px;height:" + (r.height + 20) + "px;background:rgba(0,0,0,0.1)"
    for (const t of ["pointerdown", "mousedown", "pointerup", "mouseup", "click"]) c.addEventListener(t, () => window.log.push("cover " + t))
    document.body.append(c)
  }, true)
</script>`

describe("a click by ref is a user's click on the element the snapshot showed", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>
  const svcOk = (...args: Array<string>) => svcSucceeds(gw, ...args)
  const log = async (): Promise<Array<string>> =>
    JSON.parse(await svcOk("browser", "evaluate", "--fn", "() => window.log", "--json")).result

  beforeAll(async () => {
    pages = await servePages({
      "/plain": plain,
      "/double": double,
      "/covered": coveredOnArrival,
      "/sliding": slidingPage("onclick"),
      "/below": belowTheFoldPage("onclick")
    })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } } })
    await gw.svc("browser", "open", pages.url("/plain"))
  }, 60_000)
  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
  })

  it("the button gets the events of a user's click, in order, once", async () => {
    for (const format of ["ai", "role"]) {
      await svcOk("browser", "navigate", pages.url("/plain"))
      const ref = refOf(await svcOk("browser", "snapshot", "--format", format), /button "Count"/)
      await svcOk("browser", "click", ref)
      // The pointer arrives over the button, moves onto it, presses and releases on it.
      expect(await log(), format).toEqual(POINTER_EVENTS)
    }
  }, 60_000)

  it("a cover that appears as the pointer arrives gets none of the click, and neither does the button", async () => {
    await svcOk("browser", "navigate", pages.url("/covered"))
    const ref = refOf(await svcOk("browser", "snapshot"), /button "Pay"/)
    const click = await gw.svc("browser", "click", ref, "--timeout", "1500")
    expect(click.code, click.stdout).not.toBe(0)
    expect(click.stderr).toMatch(/click/)
    expect(await log()).toEqual([])
  }, 60_000)

  it("a button that is sliding when the click comes is clicked, not what it slides over or away from", async () => {
    for (let i = 0; i < 3; i++) {
      await svcOk("browser", "navigate", pages.url("/sliding"))
      const ref = refOf(await svcOk("browser", "snapshot"), /button "Move"/)
      await svcOk("browser", "evaluate", "--fn", SLIDE)
      await svcOk("browser", "click", ref)
      expect(await log()).toEqual(["button"])
    }
  }, 60_000)

  it("a button below the fold is scrolled to and clicked once, whatever the page does as it scrolls", async () => {
    for (let i = 0; i < 2; i++) {
      await svcOk("browser", "navigate", pages.url("/below"))
      const ref = refOf(await svcOk("browser", "snapshot"), /button "Far"/)
      const r = await request(gw.controlPort, "POST", "/act", { authorization: `Bearer ${gw.token()}` }, { kind: "click", ref })
      expect(r.status, r.body).toBe(200)
      // Without the library's waits (act/quickPointer.ts): it never had to click the usual way.
      expect(String(r.headers["server-timing"])).toMatch(/(^|, )quick;dur=/)
      expect(String(r.headers["server-timing"])).not.toMatch(/library;dur=/)
      expect((await log()).filter((e) => e !== "header")).toEqual(["button"])
      expect(await svcOk("browser", "evaluate", "--fn", "() => scrollY > 1000", "--json")).toMatch(/"result":\s*true/)
    }
  }, 60_000)

  it("a double click by ref is a user's double click: two clicks, then dblclick, the quick way", async () => {
    await svcOk("browser", "navigate", pages.url("/double"))
    const ref = refOf(await svcOk("browser", "snapshot"), /button "Count"/)
    const r = await request(gw.controlPort, "POST", "/act", { authorization: `Bearer ${gw.token()}` }, { kind: "click", ref, double: true })
    expect(r.status, r.body).toBe(200)
    expect(String(r.headers["server-timing"])).toMatch(/(^|, )quick;dur=/)
    expect(String(r.headers["server-timing"])).not.toMatch(/library;dur=/)
    const press = ["pointerdown", "mousedown", "pointerup", "mouseup", "click"]
    expect(await log()).toEqual([...POINTER_EVENTS.slice(0, 6), ...press, ...press, "dblclick"])
  }, 60_000)
})
