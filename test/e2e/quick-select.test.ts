import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freeCdpPort, type Gateway, request, servePages, startGateway, svcSucceeds } from "../support/gateway.js"
import { refOf } from "../support/refs.js"

// A select by ref that goes without the library's waits (act/quickSelect.ts) must still choose as the library
// does, through the real path (bin/svc → gateway → Chromium): by value or by visible label, the page told
// once with an input then a change event; several options of a multiple select; a form's fill of a select;
// and whatever it cannot do at once (a disabled option, an option not there yet, a hidden select) goes the
// library's way, with its waits and its errors.

const page = `<!doctype html><title>Selects</title><script>window.log = []</script>
<label>Colour <select id="colour"><option value="r">Red</option><option value="g">Green</option>
  <option value="b">Blue</option><option value="x" disabled>Gone</option></select></label>
<label>Toppings <select id="toppings" multiple><option value="ch">Cheese</option><option value="mu">Mushroom</option>
  <option value="ol">Olives</option></select></label>
<label>Later <select id="later"><option value="">Loading</option></select></label>
<script>
  for (const id of ["colour", "toppings", "later"]) for (const t of ["input", "change"]) {
    document.getElementById(id).addEventListener(t, (e) => window.log.push(id + " " + t + " " + e.bubbles))
  }
</script>`

describe("a select by ref chooses as the library does, at once where it can", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>
  const svcOk = (...args: Array<string>) => svcSucceeds(gw, ...args)
  const evaluate = async (fn: string): Promise<unknown> => JSON.parse(await svcOk("browser", "evaluate", "--fn", fn, "--json")).result
  const act = (body: Record<string, unknown>) =>
    request(gw.controlPort, "POST", "/act", { authorization: `Bearer ${gw.token()}` }, body)
  let snap = ""

  beforeAll(async () => {
    pages = await servePages({ "/selects": page })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } } })
    await gw.svc("browser", "open", pages.url("/selects"))
  }, 60_000)
  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
  })

  const fresh = async () => {
    await svcOk("browser", "navigate", pages.url("/selects"))
    snap = await svcOk("browser", "snapshot")
  }

  it("by label or by value, the page told once (input, then change, both bubbling), the quick way", async () => {
    await fresh()
    const colour = refOf(snap, /combobox "Colour"/)
    for (const [value, chosen] of [["Blue", "b"], ["g", "g"]]) {
      const r = await act({ kind: "select", ref: colour, values: [value] })
      expect(r.status, r.body).toBe(200)
      expect(String(r.headers["server-timing"])).toMatch(/(^|, )quick;dur=/)
      expect(String(r.headers["server-timing"])).not.toMatch(/library;dur=/)
      expect(await evaluate("() => document.getElementById('colour').value")).toBe(chosen)
    }
    expect(await evaluate("() => window.log")).toEqual(["colour input true", "colour change true", "colour input true", "colour change true"])
  }, 60_000)

  it("several options of a multiple select; a select in a form's fill", async () => {
    await fresh()
    const toppings = refOf(snap, /listbox "Toppings"/)
    const r = await act({ kind: "select", ref: toppings, values: ["Olives", "ch"] })
    expect(r.status, r.body).toBe(200)
    expect(String(r.headers["server-timing"])).not.toMatch(/library;dur=/)
    expect(await evaluate("() => [...document.getElementById('toppings').selectedOptions].map((o) => o.value)")).toEqual(["ch", "ol"])
    const fill = await act({ kind: "fill", fields: [{ ref: refOf(snap, /combobox "Colour"/), type: "combobox", value: "Green" }] })
    expect(fill.status, fill.body).toBe(200)
    expect(String(fill.headers["server-timing"])).not.toMatch(/library;dur=/)
    expect(await evaluate("() => document.getElementById('colour').value")).toBe("g")
  }, 60_000)

  it("a disabled option is refused as the library refuses it, and nothing changes", async () => {
    await fresh()
    const r = await act({ kind: "select", ref: refOf(snap, /combobox "Colour"/), values: ["Gone"], timeoutMs: 1_500 })
    expect(r.status, r.body).toBeGreaterThanOrEqual(400)
    expect(await evaluate("() => document.getElementById('colour').value")).toBe("r")
    expect(await evaluate("() => window.log")).toEqual([])
  }, 60_000)

  it("an option that is not there yet is waited for (the library's way), then chosen", async () => {
    await fresh()
    const later = refOf(snap, /combobox "Later"/)
    await svcOk("browser", "evaluate", "--fn", "() => { setTimeout(() => { const o = document.createElement('option'); " +
      "o.value = 'ready'; o.textContent = 'Ready'; document.getElementById('later').append(o) }, 400) }")
    const r = await act({ kind: "select", ref: later, values: ["Ready"] })
    expect(r.status, r.body).toBe(200)
    expect(String(r.headers["server-timing"])).toMatch(/library;dur=/)
    expect(await evaluate("() => document.getElementById('later').value")).toBe("ready")
    expect(await evaluate("() => window.log")).toEqual(["later input true", "later change true"])
  }, 60_000)
})
