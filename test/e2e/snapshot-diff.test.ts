import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freeCdpPort, type Gateway, request, servePages, startGateway } from "../support/gateway.js"
import { refOf } from "../support/refs.js"

// `snapshot --diff` through the real path (bin/svc → gateway → playwright-core → Chromium): after one
// click on a long page the answer is the few lines that changed, whose refs still act; after a
// navigation, on a new tab, or with other options it is the whole snapshot, saying why.

const items = Array.from({ length: 120 }, (_, i) => `<li><a href="#item-${i}">Item ${i}</a></li>`).join("")
const counter = `<!doctype html><html><head><title>Counter</title></head><body>
<h1>Counter page</h1>
<main>
  <button type="button" id="counter" onclick="this.textContent = 'Clicked ' + (++window.n) + ' times'">Clicked 0 times</button>
  <a href="/other">Other page</a>
  <ul>${items}</ul>
</main>
<script>window.n = 0</script>
</body></html>`
const other = `<!doctype html><title>Other</title><h1>Other page</h1><a href="/counter">Back to the counter</a>`

interface Snapshot {
  readonly snapshot: string
  readonly refs: Record<string, { role: string; name: string }>
  readonly diff?: { base: string; whole: boolean; added?: number; removed?: number; changed?: number; unchanged?: number }
}

describe("snapshot --diff", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>
  const svcOk = async (...args: Array<string>) => {
    const r = await gw.svc(...args)
    expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0)
    return r.stdout.replace(/\n$/, "")
  }
  const snap = async (...args: Array<string>): Promise<Snapshot> =>
    JSON.parse(await svcOk("browser", "snapshot", "--json", ...args))
  const lines = (text: string) => text.split("\n")

  beforeAll(async () => {
    pages = await servePages({ "/counter": counter, "/other": other })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } } })
  })
  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
  })

  it("AI snapshots: a click gives a few lines whose refs act; a navigation gives the whole snapshot", async () => {
    await svcOk("browser", "open", pages.url("/counter"))

    // A new tab: nothing to compare with, so the whole snapshot, saying so.
    const first = await snap("--diff")
    expect(first.diff).toEqual({ base: "none", whole: true })
    expect(lines(first.snapshot)[0]).toMatch(/^\[whole snapshot, not a diff: this is the first snapshot of this tab/)
    expect(first.snapshot).toContain("Item 119")
    expect(lines(first.snapshot).length).toBeGreaterThan(100)
    const counterRef = refOf(first.snapshot, /button "Clicked 0 times"/)
    const linkRef = refOf(first.snapshot, /link "Other page"/)

    await svcOk("browser", "click", counterRef)
    const diff = await svcOk("browser", "snapshot", "--diff")
    const shown = lines(diff)
    expect(shown.length, diff).toBeLessThan(10)
    // The button changed, and so may the line that had focus before the click ([active]).
    expect(shown[0], diff).toMatch(/^\[diff since this tab's last snapshot: [12] changed, 0 added, 0 removed;/)
    expect(shown, diff).toContain(`- ${lines(first.snapshot).find((l) => l.includes("Clicked 0 times"))}`)
    const added = shown.find((l) => l.startsWith("+ ") && l.includes('button "Clicked 1 times"'))
    expect(added, diff).toBeDefined()
    expect(diff).not.toMatch(/Item \d/)
    // The ref the diff shows acts (a renamed element gets a new ref from playwright).
    const renamed = refOf(diff, /^\+ .*Clicked 1 times/)
    await svcOk("browser", "click", renamed)

    const json = await snap("--diff")
    expect(json.diff).toMatchObject({ base: "previous", whole: false, added: 0, removed: 0, changed: 1 })
    expect(json.diff!.unchanged).toBeGreaterThan(300)
    expect(json.snapshot).toMatch(/^\+ .*button "Clicked 2 times"/m)
    const shownRefs = Object.keys(json.refs)
    expect(shownRefs).toContain(refOf(json.snapshot, /^\+ .*Clicked 2 times/))
    expect(shownRefs.length).toBeLessThan(4)

    // Nothing changed: one line.
    expect(await svcOk("browser", "snapshot", "--diff")).toMatch(/^\[no change since this tab's last snapshot \(\d+ lines\)\]$/)

    // Refs of elements that did not change stay the same in a full snapshot.
    const full = await svcOk("browser", "snapshot")
    expect(refOf(full, /link "Other page"/)).toBe(linkRef)
    expect(refOf(full, /link "Item 77"/)).toBe(refOf(first.snapshot, /link "Item 77"/))
    expect(counterRef).not.toBe(renamed)

    // A navigation: the whole snapshot, saying why.
    await svcOk("browser", "click", linkRef)
    const moved = await snap("--diff")
    expect(moved.diff).toEqual({ base: "navigated", whole: true })
    expect(lines(moved.snapshot)[0]).toMatch(/^\[whole snapshot, not a diff: the page navigated since this tab's last snapshot/)
    expect(moved.snapshot).toContain('heading "Other page"')
    expect(Object.keys(moved.refs).length).toBeGreaterThan(0)
  })

  it("role snapshots (--interactive): a diff of the interactive list; other options give the whole snapshot", async () => {
    await svcOk("browser", "open", pages.url("/counter"))
    await svcOk("browser", "snapshot")

    const whole = await snap("--interactive", "--diff")
    expect(whole.diff).toEqual({ base: "otherOptions", whole: true })
    expect(lines(whole.snapshot)[0]).toMatch(/^\[whole snapshot, not a diff: this tab's last snapshot was taken with other options \(ai; this one: role --interactive\)\]$/)
    const counterRef = refOf(whole.snapshot, /button "Clicked 0 times"/)
    const linkRef = refOf(whole.snapshot, /link "Other page"/)

    await svcOk("browser", "click", counterRef)
    const diff = await snap("--interactive", "--diff")
    const shown = lines(diff.snapshot)
    expect(shown.length, diff.snapshot).toBeLessThan(6)
    expect(diff.diff).toMatchObject({ base: "previous", whole: false, changed: 1, added: 0, removed: 0 })
    expect(shown.some((l) => /^- .*button "Clicked 0 times"/.test(l)), diff.snapshot).toBe(true)
    expect(shown.some((l) => /^\+ .*button "Clicked 1 times"/.test(l)), diff.snapshot).toBe(true)
    expect(diff.snapshot).not.toContain("Other page")
    // A role ref names role + name: the renamed button has a new ref, and it acts.
    const renamed = refOf(diff.snapshot, /^\+ .*Clicked 1 times/)
    expect(Object.keys(diff.refs)).toEqual([renamed])
    await svcOk("browser", "click", renamed)
    expect(await svcOk("browser", "snapshot", "--interactive", "--diff")).toContain("Clicked 2 times")
    // The links did not change: same refs.
    const after = await svcOk("browser", "snapshot", "--interactive")
    expect(refOf(after, /link "Other page"/)).toBe(linkRef)
    expect(refOf(after, /link "Item 77"/)).toBe(refOf(whole.snapshot, /link "Item 77"/))
  })

  it("the control API takes diff as a query flag", async () => {
    await svcOk("browser", "open", pages.url("/other"))
    const auth = { authorization: `Bearer ${gw.token()}` }
    const first = await request(gw.controlPort, "GET", "/snapshot?diff", auth)
    expect(first.status, first.body).toBe(200)
    expect(first.json().diff).toEqual({ base: "none", whole: true })
    const again = await request(gw.controlPort, "GET", "/snapshot?diff=true", auth)
    expect(again.json().diff).toMatchObject({ base: "previous", whole: false, added: 0, removed: 0, changed: 0 })
    expect(again.json().snapshot).toMatch(/^\[no change since this tab's last snapshot/)
    expect(again.json().refs).toEqual({})
  })

  it("aria snapshots refuse --diff, saying why", async () => {
    const r = await gw.svc("browser", "snapshot", "--format", "aria", "--diff")
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/--diff works on ai and role snapshots.*drop --format aria/)
  })
})
