import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freeCdpPort, type Gateway, request, servePages, startGateway } from "../support/gateway.js"
import { refOf } from "../support/refs.js"

// A ref is checked in one page call when nothing that makes up its element's role and name changed since
// the snapshot (src/browser/act/refChecks.ts). These pages change an element's name in the ways a change
// detector can miss (a label elsewhere, text inside a shadow tree, an element inside a shadow tree), and
// the action must still refuse; a change elsewhere on the page must not stop a ref that still holds.

const page = `<!doctype html><title>Checks</title>
<p>Clicks: <span id="count">0</span> <button id="more" onclick="count.textContent = +count.textContent + 1">Count</button></p>
<span id="lbl">Alpha</span> <button id="labelled" aria-labelledby="lbl" onclick="log.push('labelled')">x</button>
<label for="first">First name</label> <input id="first">
<x-card id="card"></x-card>
<button id="hosted" onclick="log.push('hosted')"><x-name id="inner"></x-name></button>
<ul id="list"><li><button onclick="log.push('moved')">Moved</button></li><li id="end">End</li></ul>
<p id="later"><button id="wait" disabled onclick="log.push('wait')">Later</button></p>
<script>
  window.log = []
  customElements.define("x-card", class extends HTMLElement {
    constructor() { super(); this.attachShadow({ mode: "open" }).innerHTML = "<button>Open Alpha</button>"
      this.shadowRoot.querySelector("button").onclick = () => log.push("card") }
  })
  customElements.define("x-name", class extends HTMLElement {
    constructor() { super(); this.attachShadow({ mode: "open" }).textContent = "Save Alpha" }
  })
</script>`

// A role ref inside an iframe is pinned to its element without the one-call check (that is for the top
// document): the action's own waiting must still notice the element going away.
const inner = `<!doctype html><title>Inner</title><p id="later"><button disabled>Later</button></p>`
const framed = `<!doctype html><title>Framed</title><iframe title="inner" src="/inner"></iframe>`

// A clock that changes the page every few milliseconds, so it changes while any snapshot of it is read.
const ticking = `<!doctype html><title>Ticking</title><p id="clock">0</p>
<button onclick="log.push('go')">Go</button>
<ul><li>One <button onclick="log.push('edit 1')">Edit</button></li><li>Two <button onclick="log.push('edit 2')">Edit</button></li></ul>
<script>window.log = []; setInterval(() => { clock.textContent = String(performance.now()) }, 3)</script>`
// Look-alike rows that swap places every few milliseconds.
const swapping = `<!doctype html><title>Swapping</title>
<ul id="rows"><li>One <button onclick="log.push('edit 1')">Edit</button></li><li>Two <button onclick="log.push('edit 2')">Edit</button></li></ul>
<script>window.log = []; setInterval(() => { rows.appendChild(rows.firstElementChild) }, 3)</script>`

describe("one-call ref checks", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>

  const run = async (fn: string) => {
    const r = await gw.svc("browser", "evaluate", "--json", "--fn", fn)
    expect(r.code, r.stderr).toBe(0)
    return JSON.parse(r.stdout).result as unknown
  }
  const log = () => run("() => window.log")
  const fresh = async (format: "ai" | "role") => {
    expect((await gw.svc("browser", "navigate", pages.url("/checks"))).code).toBe(0)
    return (await gw.svc("browser", "snapshot", "--format", format)).stdout
  }
  const refused = (r: { code: number | null; stderr: string }) => {
    expect(r.code).not.toBe(0)
    expect(r.stderr).toMatch(/snapshot/)
  }

  /** Clicks `ref` (disabled, so the click waits) while `remove` takes its element away: refused long before the timeout. */
  const clickRemoved = async (ref: string, remove: string) => {
    await run(remove)
    const t0 = performance.now()
    const click = await gw.svc("browser", "click", ref, "--timeout", "20000")
    expect(click.code).not.toBe(0)
    expect(click.stderr).toMatch(/removed|snapshot/)
    expect(performance.now() - t0).toBeLessThan(10_000)
  }

  beforeAll(async () => {
    pages = await servePages({ "/checks": page, "/inner": inner, "/framed": framed, "/ticking": ticking, "/swapping": swapping })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } } })
    await gw.svc("browser", "open", pages.url("/checks"))
  }, 60_000)
  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
  })

  for (const format of ["ai", "role"] as const) {
    it(`${format}: a change elsewhere on the page leaves a ref usable, again and again`, async () => {
      const snap = await fresh(format)
      const count = refOf(snap, /button "Count"/)
      for (let i = 0; i < 5; i++) expect((await gw.svc("browser", "click", count)).code).toBe(0)
      expect(await run("() => count.textContent")).toBe("5")
      // The element moved to another place in the list, its name unchanged: still the element shown.
      await run("() => { list.appendChild(list.firstElementChild); return 1 }")
      expect((await gw.svc("browser", "click", refOf(snap, /button "Moved"/))).code).toBe(0)
      expect(await log()).toEqual(["moved"])
    }, 60_000)

    it(`${format}: a name taken from a label elsewhere that changed refuses the action`, async () => {
      const snap = await fresh(format)
      const button = refOf(snap, /button "Alpha"/)
      const field = refOf(snap, /textbox "First name"/)
      await run("() => { lbl.textContent = 'Bravo'; document.querySelector('label').textContent = 'Last name'; return 1 }")
      refused(await gw.svc("browser", "click", button))
      refused(await gw.svc("browser", "type", field, "Ada"))
      expect(await log()).toEqual([])
      expect(await run("() => first.value")).toBe("")
    }, 60_000)

    it(`${format}: text inside a shadow tree that changed refuses the action`, async () => {
      const snap = await fresh(format)
      const hosted = refOf(snap, /button "Save Alpha"/)
      const card = refOf(snap, /button "Open Alpha"/)
      await run("() => { inner.shadowRoot.textContent = 'Save Bravo'; card.shadowRoot.querySelector('button').textContent = 'Open Bravo'; return 1 }")
      refused(await gw.svc("browser", "click", hosted))
      refused(await gw.svc("browser", "click", card))
      expect(await log()).toEqual([])
    }, 60_000)

    it(`${format}: a look-alike added before a ref's element leaves the ref acting on its own element`, async () => {
      const snap = await fresh(format)
      const count = refOf(snap, /button "Count"/)
      await run("() => { const b = document.createElement('button'); b.textContent = 'Count'; b.onclick = () => log.push('clone'); more.before(b); return 1 }")
      expect((await gw.svc("browser", "click", count)).code).toBe(0)
      expect(await run("() => count.textContent")).toBe("1")
      expect(await log()).toEqual([])
    }, 60_000)

    it(`${format}: an element removed while the action waits for it is reported at once, not waited out`, async () => {
      const snap = await fresh(format)
      const later = refOf(snap, /button "Later"/)
      // Disabled, so the click waits; then the page takes it away. (On a loaded machine the click may arrive
      // after that: it is then refused before it starts, as fast.)
      await clickRemoved(later, "() => { setTimeout(() => { later.innerHTML = '' }, 1500); return 1 }")
      expect(await log()).toEqual([])
    }, 60_000)
  }

  it("role, on a page that changed while the snapshot was read: refs of kinds the changes did not touch are still checked in one call", async () => {
    expect((await gw.svc("browser", "navigate", pages.url("/ticking"))).code).toBe(0)
    const snap = (await gw.svc("browser", "snapshot", "--interactive")).stdout
    const go = refOf(snap, /button "Go"/)
    const auth = { authorization: `Bearer ${gw.token()}` }
    for (let i = 0; i < 3; i++) {
      const r = await request(gw.controlPort, "POST", "/act", auth, { kind: "click", ref: go })
      expect(r.status, r.body).toBe(200)
      // The click went the quick way (act/quickPointer.ts), which needs the element's identity.
      expect(String(r.headers["server-timing"])).toMatch(/(^|, )quick;dur=/)
    }
    expect(await log()).toEqual(["go", "go", "go"])
    // Look-alikes the changes did not touch keep their order: the second "Edit" is the second row's.
    const second = [...snap.matchAll(/button "Edit" \[ref=([^\]]+)\]/g)][1]![1]!
    const edit = await request(gw.controlPort, "POST", "/act", auth, { kind: "click", ref: second })
    expect(edit.status, edit.body).toBe(200)
    expect(String(edit.headers["server-timing"])).toMatch(/(^|, )quick;dur=/)
    expect(await log()).toEqual(["go", "go", "go", "edit 2"])
    // Look-alikes that moved while the snapshot was read cannot be told apart: refused, never the other one.
    expect((await gw.svc("browser", "navigate", pages.url("/swapping"))).code).toBe(0)
    const rows = (await gw.svc("browser", "snapshot", "--interactive")).stdout
    const moved = await gw.svc("browser", "click", [...rows.matchAll(/button "Edit" \[ref=([^\]]+)\]/g)][1]![1]!)
    expect(moved.code).not.toBe(0)
    expect(moved.stderr).toMatch(/could not pin down|no longer matches/)
    expect(await log()).toEqual([])
  }, 60_000)

  it("role, in an iframe: an element removed while the action waits for it is reported at once, not waited out", async () => {
    expect((await gw.svc("browser", "navigate", pages.url("/framed"))).code).toBe(0)
    const snap = (await gw.svc("browser", "snapshot", "--format", "role", "--frame", "iframe")).stdout
    const later = refOf(snap, /button "Later"/)
    await clickRemoved(later, "() => { const doc = document.querySelector('iframe').contentDocument; setTimeout(() => { doc.getElementById('later').innerHTML = '' }, 1500); return 1 }")
  }, 60_000)
})
