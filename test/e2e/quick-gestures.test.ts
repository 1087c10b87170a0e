import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freeCdpPort, type Gateway, request, servePages, startGateway, svcSucceeds } from "../support/gateway.js"
import { belowTheFoldPage, logger, scrolledBoxPage, SLIDE, slidingPage } from "../support/pointerPages.js"
import { refOf } from "../support/refs.js"

// A hover or a scroll into view by ref that goes without the library's waits (act/quickPointer.ts; a click's
// are in quick-click.test.ts) must still be a user's, on the element the snapshot showed, through the real
// path (bin/svc → gateway → Chromium): the events of a pointer arriving, in order, and the page's :hover
// style; a second hover where the pointer already is; a disabled button (its tooltip is why one points at
// it); a menu that opens on hover, then clicked; a button that is sliding when the hover comes is hovered
// where it stops, not what it slides over; elements below the fold or clipped in a box that scrolls are
// brought into view; a form's checkboxes, radio buttons and switches are clicked only where their state is
// not the one asked for, and a widget that ignores the click is reported, never clicked twice.

const ARRIVAL_EVENTS = ["pointerover", "pointerenter", "mouseover", "mouseenter", "pointermove", "mousemove"]
const CLICK_EVENTS = ["pointerdown", "mousedown", "pointerup", "mouseup", "click"]

const logging = (id: string) =>
  `<script>for (const t of ${JSON.stringify([...ARRIVAL_EVENTS, ...CLICK_EVENTS])}) ` +
  `document.getElementById(${JSON.stringify(id)}).addEventListener(t, () => window.log.push(t))</script>`

/** Every pointer and mouse event the button gets, in order (two pages: the button is elsewhere on each). */
const plain = (margin: string) =>
  `<!doctype html><title>Plain</title>${logger}<button id="b" style="margin:${margin}">Point</button>${logging("b")}`

const disabled = `<!doctype html><title>Disabled</title>${logger}
<button id="d" disabled title="Fill in the form first" style="margin:60px">Send</button>${logging("d")}`

/** A menu whose items show only while the pointer is over it (a style, no script). */
const menu = `<!doctype html><title>Menu</title>${logger}
<style>#sub { display: none } #menu:hover #sub { display: block }</style>
<nav id="menu" style="margin:30px;width:200px"><button id="top">Account</button>
  <ul id="sub"><li><a href="#settings" onclick="window.log.push('settings')">Settings</a></li></ul>
</nav>`

/** Native and ARIA checkables; every click on each is logged with its id. */
const checkables = `<!doctype html><title>Checkables</title>${logger}
<label><input type="checkbox" id="news"> Newsletter</label>
<label><input type="radio" name="plan" id="free" checked> Free</label>
<label><input type="radio" name="plan" id="pro"> Pro</label>
<div role="switch" id="dark" tabindex="0" aria-checked="false" aria-label="Dark mode"
  onclick="this.setAttribute('aria-checked', String(this.getAttribute('aria-checked') !== 'true'))">Dark mode</div>
<div role="checkbox" id="stuck" tabindex="0" aria-checked="false" aria-label="Stuck">Stuck</div>
<script>document.addEventListener("click", (e) => { if (e.target.id) window.log.push(e.target.id) })</script>`

describe("a hover, a scroll into view or a check by ref acts as a user would, on the element the snapshot showed", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>
  const svcOk = (...args: Array<string>) => svcSucceeds(gw, ...args)
  const evaluate = async (fn: string): Promise<unknown> => JSON.parse(await svcOk("browser", "evaluate", "--fn", fn, "--json")).result
  const log = () => evaluate("() => window.log")
  const hovered = (selector: string) => evaluate(`() => document.querySelector(${JSON.stringify(selector)}).matches(":hover")`)
  const hover = (ref: string) => act("hover", ref)
  const act = async (kind: string, ref: string) => {
    const r = await request(gw.controlPort, "POST", "/act", { authorization: `Bearer ${gw.token()}` }, { kind, ref })
    expect(r.status, r.body).toBe(200)
    return String(r.headers["server-timing"])
  }

  beforeAll(async () => {
    pages = await servePages({
      "/plain": plain("40px"),
      "/plain-low": plain("220px 0 0 300px"),
      "/disabled": disabled,
      "/menu": menu,
      "/sliding": slidingPage("onmouseover"),
      "/below": belowTheFoldPage("onmouseover"),
      "/box": scrolledBoxPage("onmouseover"),
      "/checkables": checkables
    })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } } })
    await gw.svc("browser", "open", pages.url("/plain"))
  }, 60_000)
  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
  })

  it("the button gets the events of a pointer arriving, in order, once, and its :hover style; again where it is", async () => {
    for (const [format, path] of [["ai", "/plain"], ["role", "/plain-low"]] as const) {
      await svcOk("browser", "navigate", pages.url(path))
      const ref = refOf(await svcOk("browser", "snapshot", "--format", format), /button "Point"/)
      // Went the quick way (act/quickPointer.ts), never the library's.
      const timing = await hover(ref)
      expect(timing).toMatch(/(^|, )quick;dur=/)
      expect(timing).not.toMatch(/library;dur=/)
      expect(await log(), format).toEqual(ARRIVAL_EVENTS)
      expect(await hovered("#b")).toBe(true)
      // Hovered again where the pointer already is: still hovering (the quick way too), and never a click.
      expect(await hover(ref)).not.toMatch(/library;dur=/)
      expect(await hovered("#b")).toBe(true)
      expect((await log() as Array<string>).filter((e) => CLICK_EVENTS.includes(e))).toEqual([])
    }
  }, 60_000)

  it("a disabled button can be hovered (its tooltip is why one points at it)", async () => {
    await svcOk("browser", "navigate", pages.url("/disabled"))
    await svcOk("browser", "hover", refOf(await svcOk("browser", "snapshot"), /button "Send"/))
    expect(await hovered("#d")).toBe(true)
  }, 60_000)

  it("a menu that opens on hover shows its items, which can then be clicked", async () => {
    await svcOk("browser", "navigate", pages.url("/menu"))
    const before = await svcOk("browser", "snapshot")
    expect(before).not.toMatch(/Settings/)
    await svcOk("browser", "hover", refOf(before, /button "Account"/))
    const open = await svcOk("browser", "snapshot")
    await svcOk("browser", "click", refOf(open, /link "Settings"/))
    expect(await log()).toEqual(["settings"])
  }, 60_000)

  it("a button that is sliding when the hover comes is hovered where it stops, not what it slides over", async () => {
    for (let i = 0; i < 3; i++) {
      await svcOk("browser", "navigate", pages.url("/sliding"))
      const ref = refOf(await svcOk("browser", "snapshot"), /button "Move"/)
      await svcOk("browser", "evaluate", "--fn", SLIDE)
      await svcOk("browser", "hover", ref)
      expect(await log()).toEqual(["button"])
      expect(await hovered("#b")).toBe(true)
    }
  }, 60_000)

  it("a button below the fold is scrolled to and hovered, the quick way, whatever the page does as it scrolls", async () => {
    await svcOk("browser", "navigate", pages.url("/below"))
    const snap = await svcOk("browser", "snapshot")
    // The pointer over the header first: the page hides it as it scrolls, and the browser moves the hover.
    await hover(refOf(snap, /button "Top"/))
    expect(await hover(refOf(snap, /button "Far"/))).not.toMatch(/library;dur=/)
    expect((await log() as Array<string>).filter((e) => e !== "header")).toEqual(["button"])
    expect(await hovered("#b")).toBe(true)
  }, 60_000)

  it("a button clipped in a box that scrolls is scrolled into view, hovered and clicked there, the quick way", async () => {
    const inView = "() => { const b = document.getElementById('inner').getBoundingClientRect(), " +
      "x = document.getElementById('box').getBoundingClientRect(); return b.top >= x.top && b.bottom <= x.bottom }"
    for (const kind of ["scrollIntoView", "hover", "click"]) {
      await svcOk("browser", "navigate", pages.url("/box"))
      expect(await evaluate(inView)).toBe(false)
      const ref = refOf(await svcOk("browser", "snapshot"), /button "Inner"/)
      expect(await act(kind, ref), kind).not.toMatch(/library;dur=/)
      expect(await evaluate(inView), kind).toBe(true)
      expect(await log(), kind).toEqual(kind === "scrollIntoView" ? [] : ["inner"])
    }
  }, 60_000)

  it("a scroll into view brings a button below the fold into the middle of the view, the quick way", async () => {
    await svcOk("browser", "navigate", pages.url("/below"))
    const ref = refOf(await svcOk("browser", "snapshot"), /button "Far"/)
    expect(await act("scrollIntoView", ref)).toMatch(/(^|, )quick;dur=/)
    expect(await evaluate("() => { const r = document.getElementById('b').getBoundingClientRect(); " +
      "return r.top > innerHeight / 4 && r.bottom < innerHeight * 3 / 4 }")).toBe(true)
    // Already in view: nothing moves.
    const before = await evaluate("() => scrollY")
    expect(await act("scrollIntoView", ref)).not.toMatch(/library;dur=/)
    expect(await evaluate("() => scrollY")).toBe(before)
  }, 60_000)

  it("fill clicks a checkbox, radio button or switch only where its state is not the one asked for", async () => {
    await svcOk("browser", "navigate", pages.url("/checkables"))
    const snap = await svcOk("browser", "snapshot")
    const field = (re: RegExp, type: string, value: boolean) => ({ ref: refOf(snap, re), type, value })
    const fill = async (fields: Array<ReturnType<typeof field>>) => {
      const r = await request(gw.controlPort, "POST", "/act", { authorization: `Bearer ${gw.token()}` }, { kind: "fill", fields })
      return r
    }
    const state = () =>
      evaluate("() => [news.checked, free.checked, pro.checked, dark.getAttribute('aria-checked')].join(' ')")
    const set = [
      field(/checkbox "Newsletter"/, "checkbox", true),
      field(/radio "Pro"/, "radio", true),
      field(/switch "Dark mode"/, "checkbox", true)
    ]
    const first = await fill(set)
    expect(first.status, first.body).toBe(200)
    expect(String(first.headers["server-timing"])).not.toMatch(/library;dur=/)
    expect(await state()).toBe("true false true true")
    expect(await log()).toEqual(["news", "pro", "dark"])
    // Asked again: all in that state already, nothing is clicked.
    expect((await fill(set)).status).toBe(200)
    expect(await log()).toEqual(["news", "pro", "dark"])
    const off = await fill([field(/checkbox "Newsletter"/, "checkbox", false), field(/switch "Dark mode"/, "checkbox", false)])
    expect(off.status, off.body).toBe(200)
    expect(await state()).toBe("false false true false")
    expect(await log()).toEqual(["news", "pro", "dark", "news", "dark"])
  }, 60_000)

  it("a checkbox that ignores the click is reported as still unchecked, clicked once", async () => {
    await svcOk("browser", "navigate", pages.url("/checkables"))
    const ref = refOf(await svcOk("browser", "snapshot"), /checkbox "Stuck"/)
    const r = await request(gw.controlPort, "POST", "/act", { authorization: `Bearer ${gw.token()}` }, {
      kind: "fill",
      fields: [{ ref, type: "checkbox", value: true }]
    })
    expect(r.status, r.body).toBe(400)
    expect(JSON.parse(r.body)).toMatchObject({ _tag: "InvalidRequest", message: expect.stringMatching(/still unchecked/) })
    expect(await log()).toEqual(["stuck"])
  }, 60_000)
})
