import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freeCdpPort, type Gateway, request, servePages, startGateway } from "../support/gateway.js"
import { refOf } from "../support/refs.js"

// Actions wait for their element to become actionable, and a runaway script is stopped: through the real
// path (bin/svc → gateway → playwright-core over CDP → the managed Chromium), on pages served here. The page
// arms its own timers (`arm()`), so the delays count from just before the action, whatever the machine's load.

const late = `<!doctype html><html><head><title>Late</title></head><body>
<button id="go" disabled onclick="out.textContent = 'clicked'">Go</button>
<div style="position:relative;width:200px;height:40px">
  <button id="buy" onclick="out.textContent = 'bought'">Buy</button>
  <div id="overlay" class="cookie-banner" style="position:absolute;inset:0;background:rgba(0,0,0,.4)">We use cookies</div>
</div>
<p id="out">nothing yet</p>
<input id="name" aria-label="Name" readonly>
<select id="size" aria-label="Size" onchange="out.textContent = 'size ' + this.value"><option value="">pick</option></select>
<script>
  window.arm = (ms) => setTimeout(() => { document.getElementById("go").disabled = false }, ms)
  window.lift = (ms) => setTimeout(() => document.getElementById("overlay").remove(), ms)
  window.sizes = (ms) => setTimeout(() => document.getElementById("size").add(new Option("Large", "l")), ms)
</script>
</body></html>`

describe("actions wait for their element; runaway scripts are stopped", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>

  const evaluate = async (fn: string) => {
    const r = await gw.svc("browser", "evaluate", "--json", "--fn", fn)
    expect(r.code, r.stderr).toBe(0)
    return JSON.parse(r.stdout).result
  }
  const out = () => evaluate("() => document.getElementById('out').textContent")
  /** The page loaded afresh, and its AI snapshot. */
  const fresh = async () => {
    expect((await gw.svc("browser", "navigate", pages.url("/late"))).code).toBe(0)
    const snap = await gw.svc("browser", "snapshot")
    expect(snap.code, snap.stderr).toBe(0)
    return snap.stdout
  }

  beforeAll(async () => {
    pages = await servePages({ "/late": late })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } } })
    await gw.svc("browser", "open", pages.url("/late"))
  })
  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
  })

  it("a click waits for a button that becomes enabled 2.5 s later, and clicks it", async () => {
    const go = refOf(await fresh(), /button "Go"/)
    await evaluate("() => arm(2500)")
    const r = await gw.svc("browser", "click", go)
    expect(r.code, r.stderr).toBe(0)
    expect(await out()).toBe("clicked")
    // It did wait (the button was disabled when the click arrived), within the 5 s default.
    expect(r.ms).toBeGreaterThan(1_000)
    console.log(`click on a button enabled 2.5 s after arming answered in ${r.ms.toFixed(0)} ms`)
  })

  it("with --timeout 2000 the same click gives up after about two seconds, saying the button is disabled", async () => {
    const go = refOf(await fresh(), /button "Go"/)
    // The button stays disabled until the click has given up. (Armed for 4 s before the click, it raced the
    // CLI: a click that reached the gateway over 2 s after the arming, as on a loaded machine, found the
    // button enabled in time and clicked it.)
    const r = await gw.svc("browser", "click", go, "--timeout", "2000")
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain(`click ${go} (button "Go")`)
    expect(r.stderr).toContain("after 2s the element is still disabled")
    expect(r.stderr).toContain(`svc browser wait ${go} --enabled`)
    // It waited its 2 s, not the 5 s default (which alone would take past 5 s, however fast the CLI).
    expect(r.ms).toBeGreaterThan(1_900)
    expect(r.ms).toBeLessThan(5_000)
    // And it gave up for good: the button enabled now, nothing left of that click presses it.
    await evaluate("() => { document.getElementById('go').disabled = false }")
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    expect(await out()).toBe("nothing yet")
  })

  it("a button that stays covered fails after the default 5 s, naming what covers it; one uncovered in time is clicked", async () => {
    const buy = refOf(await fresh(), /button "Buy"/)
    const r = await gw.svc("browser", "click", buy)
    expect(r.code).not.toBe(0)
    expect(r.stderr).toMatch(/after 5s the element is still covered by <div id="overlay" class="cookie-banner"/)
    expect(r.stderr).toContain(`svc browser highlight ${buy}`)
    expect(r.ms).toBeGreaterThan(4_500)
    expect(r.ms).toBeLessThan(9_000)
    expect(await out()).toBe("nothing yet")

    await evaluate("() => lift(1500)")
    const later = await gw.svc("browser", "click", buy)
    expect(later.code, later.stderr).toBe(0)
    expect(await out()).toBe("bought")
  })

  it("hover, drag, type, fill and select take --timeout too; a timeout out of range is refused", async () => {
    const snap = await fresh()
    const [buy, go, name, size] = [/button "Buy"/, /button "Go"/, /textbox "Name"/, /combobox "Size"/].map((p) => refOf(snap, p))
    // 1.5 s: long enough on a loaded machine for the checks to reach the cover, short beside the 5 s default.
    for (const args of [["hover", buy!], ["drag", buy!, go!]]) {
      const r = await gw.svc("browser", ...args, "--timeout", "1500")
      expect(r.code).not.toBe(0)
      expect(r.stderr).toContain("after 1.5s the element is still covered by <div id=\"overlay\"")
      expect(r.ms).toBeLessThan(4_000)
    }
    const typed = await gw.svc("browser", "type", name!, "Ada", "--timeout", "1500")
    expect(typed.code).not.toBe(0)
    expect(typed.stderr).toContain("after 1.5s the element is still read-only")
    const filled = await gw.svc("browser", "fill", "--fields", JSON.stringify([{ ref: name, type: "textbox", value: "Ada" }]), "--timeout", "1500")
    expect(filled.code).not.toBe(0)
    expect(filled.stderr).toContain("after 1.5s the element is still read-only")
    // An option that arrives a second later is waited for.
    await evaluate("() => sizes(1000)")
    const selected = await gw.svc("browser", "select", size!, "Large")
    expect(selected.code, selected.stderr).toBe(0)
    expect(await out()).toBe("size l")
    // One that never comes is reported once the options have stopped changing, well before the 5 s default.
    const missing = await gw.svc("browser", "select", size!, "Huge")
    expect(missing.code).not.toBe(0)
    expect(missing.stderr).toContain(`select ${size} (combobox "Size"): no option matches "Huge"; its options are "pick" (value ""), "Large" (value "l")`)
    expect(missing.ms).toBeLessThan(4_000)
    const bad = await gw.svc("browser", "click", buy, "--timeout", "0")
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toMatch(/1 to 120000/)
  })

  it("wait <ref> --enabled and wait <selector> --enabled", async () => {
    const go = refOf(await fresh(), /button "Go"/)
    const visible = await gw.svc("browser", "wait", go)
    expect(visible.code, visible.stderr).toBe(0)
    await evaluate("() => arm(1500)")
    const r = await gw.svc("browser", "wait", go, "--enabled")
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.trim()).toMatch(new RegExp(`^waited for \\[ref=${go}\\] to show and be enabled \\(http`))
    expect(await evaluate("() => document.getElementById('go').disabled")).toBe(false)
    expect(r.ms).toBeGreaterThan(700)

    await fresh()
    const early = await gw.svc("browser", "wait", "#go", "--enabled", "--timeout", "800")
    expect(early.code).not.toBe(0)
    expect(early.stderr).toContain(`wait timed out after 800ms waiting for an element matching "#go" to be enabled`)
    await evaluate("() => arm(1000)")
    const css = await gw.svc("browser", "wait", "#go", "--enabled")
    expect(css.code, css.stderr).toBe(0)
    expect(css.stdout.trim()).toMatch(/^waited for #go to show and be enabled \(http/)
    expect(await evaluate("() => document.getElementById('go').disabled")).toBe(false)

    const alone = await gw.svc("browser", "wait", "--enabled")
    expect(alone.code).not.toBe(0)
    expect(alone.stderr).toContain("--enabled needs the element to wait for")
  })

  it("an endless evaluate is stopped at its timeout, and the tab answers the next snapshot and navigate at once", async () => {
    await fresh()
    const r = await gw.svc("browser", "evaluate", "--fn", "() => { while (true) {} }", "--timeout", "2000")
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain("the script ran past 2s and was stopped; the tab is usable")
    expect(r.ms).toBeLessThan(6_000)
    const snap = await gw.svc("browser", "snapshot")
    expect(snap.code, snap.stderr).toBe(0)
    expect(snap.stdout).toContain(`button "Go"`)
    // Before, both waited 20 s behind the script; a CLI call takes a few hundred ms on a loaded machine.
    expect(snap.ms).toBeLessThan(3_000)
    const nav = await gw.svc("browser", "navigate", pages.url("/late"))
    expect(nav.code, nav.stderr).toBe(0)
    expect(nav.ms).toBeLessThan(3_000)
    expect(await evaluate("() => 1 + 1")).toBe(2)
    console.log(`after a stopped script: snapshot ${snap.ms.toFixed(0)} ms, navigate ${nav.ms.toFixed(0)} ms`)
  })

  it("an endless wait --fn is stopped too; a promise that never settles is only a timeout", async () => {
    await fresh()
    const r = await gw.svc("browser", "wait", "--fn", "() => { while (true) {} }", "--timeout", "1500")
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain("the --fn function ran past 1.5s and was stopped; the tab is usable")
    const snap = await gw.svc("browser", "snapshot")
    expect(snap.code, snap.stderr).toBe(0)
    expect(snap.ms).toBeLessThan(3_000)

    const pending = await gw.svc("browser", "evaluate", "--fn", "() => new Promise(() => {})", "--timeout", "800")
    expect(pending.code).not.toBe(0)
    expect(pending.stderr).not.toContain("was stopped")
    expect(pending.stderr).toContain("timed out after 800ms")
    expect(await evaluate("() => document.title")).toBe("Late")
  })

  it("wait --fn waits for a truthy value: falsy values and async falsy values time out, a later truth ends it", async () => {
    await fresh()
    const names = "() => Object.getOwnPropertyNames(window).join(',')"
    const before = await evaluate(names)
    for (const fn of ["() => false", "() => 0", "() => null", "async () => false", "() => Promise.resolve('')", "false"]) {
      const r = await gw.svc("browser", "wait", "--fn", fn, "--timeout", "700")
      expect(r.code, `${fn}: ${r.stdout}`).not.toBe(0)
      expect(r.stderr).toMatch(/timed out after 700ms|0\.7s/)
      expect(r.ms).toBeGreaterThanOrEqual(600)
    }
    const body = { kind: "wait", fn: "() => false", timeoutMs: 500 }
    const act = await request(gw.controlPort, "POST", "/act", { authorization: `Bearer ${gw.token()}` }, body)
    expect(act.status).toBeGreaterThanOrEqual(400)
    expect(act.json().message).toMatch(/timed out|0\.5s/)

    await evaluate("() => { setTimeout(() => { window.later = 'yes' }, 600); return 1 }")
    const later = await gw.svc("browser", "wait", "--fn", "async () => window.later === 'yes'", "--timeout", "5000")
    expect(later.code, later.stderr).toBe(0)
    expect(await evaluate("() => window.later")).toBe("yes")
    // The waits leave nothing the page can see behind them (`later` is the page's own).
    expect(await evaluate(names)).toBe(`${before},later`)

    // Once a wait has ended, its condition is not run again (the library's poll may outlive it briefly).
    const counting = "async () => { document.body.dataset.polls = String(Number(document.body.dataset.polls ?? 0) + 1); return false }"
    const timedOut = await gw.svc("browser", "wait", "--fn", counting, "--timeout", "600")
    expect(timedOut.code).not.toBe(0)
    const polls = await evaluate("() => Number(document.body.dataset.polls)")
    expect(polls).toBeGreaterThan(1)
    await new Promise((r) => setTimeout(r, 400))
    expect(await evaluate("() => Number(document.body.dataset.polls)")).toBe(polls)
  })
})
