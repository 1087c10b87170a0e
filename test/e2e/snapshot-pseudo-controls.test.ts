import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freeCdpPort, type Gateway, servePages, startGateway, svcSucceeds } from "../support/gateway.js"
import { refOf } from "../support/refs.js"

// Controls that playwright's ARIA roles call generic: a plain contenteditable (no role) and a <details>
// summary. Through the real path (bin/svc → gateway → playwright-core → Chromium), every snapshot mode
// shows them as what an agent acts on, with their text or their open state, and their refs work.

const page = `<!doctype html><html><head><title>Editors</title></head><body>
<h1>Notes</h1>
<div contenteditable id="plain" style="min-height:20px;border:1px solid">Hello world</div>
<div contenteditable aria-label="Notes" id="labelled" style="min-height:20px;border:1px solid">Some notes</div>
<input aria-label="Title" value="A real field">
<details id="more"><summary>More info</summary><p>Hidden text</p></details>
<details open><summary>Open one</summary><p>Shown text</p></details>
<details id="returns"><summary><h3>Returns (30 days)</h3></summary><p>Send it back</p></details>
<button type="button">Go</button>
</body></html>`

// Look-alikes: two editors without a name, two summaries with the same text.
const alike = `<!doctype html><html><head><title>Alike</title></head><body>
<div contenteditable id="a">First editor</div>
<div contenteditable id="b">Second editor</div>
<details id="d1"><summary>Details</summary><p>one</p></details>
<details id="d2"><summary>Details</summary><p>two</p></details>
</body></html>`

// Hidden summaries: one that looks like a shown one but for its state, one whose text starts a shown one's,
// one alone, and a run of look-alikes
// in content-visibility sections (as on Node's API pages, where each section has a "History").
const hidden = `<!doctype html><html><head><title>Hidden</title></head><body>
<div style="display:none"><details open><summary>Shipping</summary><p>by sea</p></details></div>
<details id="ship"><summary>Shipping</summary><p>by air</p></details>
<div hidden><details><summary>Alone</summary><p>never shown</p></details></div>
<div hidden><details open><summary>Terms</summary><p>short</p></details></div>
<details><summary>Terms of use</summary><p>read them</p></details>
${Array.from({ length: 12 }, (_, i) =>
  `<section style="content-visibility:auto;contain-intrinsic-size:auto 400px"><h2>Part ${i}</h2><p>Text ${i}</p><details><summary>History</summary><p>v${i}</p></details></section>`).join("\n")}
</body></html>`

const lineOf = (snapshot: string, pattern: RegExp) => snapshot.split("\n").find((l) => pattern.test(l))

describe("plain contenteditables and details summaries are controls in every snapshot mode", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>
  const svcOk = (...args: Array<string>) => svcSucceeds(gw, ...args)
  const evaluate = async (fn: string) => JSON.parse(await svcOk("browser", "evaluate", "--json", "--fn", fn)).result

  beforeAll(async () => {
    pages = await servePages({ "/editors": page, "/alike": alike, "/hidden": hidden })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } } })
    await svcOk("browser", "open", pages.url("/editors"))
  })
  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
  })

  const MODES: Array<Array<string>> = [[], ["--format", "role"], ["--interactive"], ["--compact"], ["--efficient"]]

  it("an editor shows as a textbox with its text in every mode; `type` by its ref changes it", async () => {
    for (const mode of MODES) {
      const snap = await svcOk("browser", "snapshot", ...mode)
      const where = `mode ${mode.join(" ") || "ai"}:\n${snap}`
      expect(lineOf(snap, /Hello world/), where).toMatch(/^\s*- textbox \[ref=[^\]]+\]: Hello world$/)
      expect(lineOf(snap, /Some notes/), where).toMatch(/^\s*- textbox "Notes" \[ref=[^\]]+\]: Some notes$/)
      expect(lineOf(snap, /"Title"/), where).toMatch(/: A real field$/)
    }

    // The accessibility-tree format (over CDP, no refs) says the same.
    const aria = await svcOk("browser", "snapshot", "--format", "aria")
    expect(lineOf(aria, /Hello world/), aria).toMatch(/^\s*- textbox: Hello world$/)
    expect(lineOf(aria, /Some notes/), aria).toMatch(/^\s*- textbox "Notes": Some notes$/)

    const snap = await svcOk("browser", "snapshot", "--interactive")
    // Messages name it as the snapshot shows it.
    expect(await svcOk("browser", "highlight", refOf(snap, /textbox "Notes"/))).toMatch(/: textbox "Notes"$/m)
    await svcOk("browser", "type", refOf(snap, /Hello world/), "hello")
    await svcOk("browser", "type", refOf(snap, /textbox "Notes"/), "typed by ref")
    expect(await evaluate("() => document.getElementById('plain').textContent")).toBe("hello")
    expect(await evaluate("() => document.getElementById('labelled').textContent")).toBe("typed by ref")
    const after = await svcOk("browser", "snapshot", "--interactive")
    expect(lineOf(after, /textbox \[ref/), after).toMatch(/: hello$/)
    expect(lineOf(after, /textbox "Notes"/), after).toMatch(/: typed by ref$/)
    // The real field's ref is untouched by the editors beside it.
    await svcOk("browser", "type", refOf(after, /textbox "Title"/), "Still a field")
    expect(lineOf(await svcOk("browser", "snapshot", "--compact"), /textbox "Title"/)).toMatch(/: Still a field$/)

    // An AI ref types into an editor too.
    const ai = await svcOk("browser", "snapshot")
    await svcOk("browser", "type", refOf(ai, /textbox "Notes"/), "from the AI snapshot")
    expect(lineOf(await svcOk("browser", "snapshot"), /textbox "Notes"/)).toMatch(/: from the AI snapshot$/)
  })

  it("a summary shows as a button with its state in every mode; `click` by its ref toggles it", async () => {
    for (const mode of MODES) {
      const snap = await svcOk("browser", "snapshot", ...mode)
      const where = `mode ${mode.join(" ") || "ai"}:\n${snap}`
      expect(lineOf(snap, /"More info"/), where).toMatch(/^\s*- button "More info" \[collapsed\] \[ref=[^\]]+\]$/)
      expect(lineOf(snap, /"Open one"/), where).toMatch(/^\s*- button "Open one" \[expanded\] \[ref=[^\]]+\]$/)
    }

    const aria = await svcOk("browser", "snapshot", "--format", "aria")
    expect(lineOf(aria, /"More info"/), aria).toMatch(/^\s*- button "More info" \[collapsed\]$/)

    const role = await svcOk("browser", "snapshot", "--interactive")
    await svcOk("browser", "click", refOf(role, /button "More info"/))
    expect(await evaluate("() => document.getElementById('more').open")).toBe(true)
    const opened = await svcOk("browser", "snapshot", "--format", "role")
    expect(lineOf(opened, /"More info"/), opened).toContain("[expanded]")
    expect(opened).toContain("Hidden text")

    // A summary whose text is a heading: role snapshots show it (the AI snapshot has no line of its own for
    // it, only the heading inside, which a click toggles just as well).
    for (const mode of MODES.slice(1)) {
      const snap = await svcOk("browser", "snapshot", ...mode)
      expect(lineOf(snap, /button "Returns/), snap).toMatch(/^\s*- button "Returns \(30 days\)" \[collapsed\] \[ref=[^\]]+\]$/)
    }
    await svcOk("browser", "click", refOf(await svcOk("browser", "snapshot", "--interactive"), /button "Returns/))
    expect(await evaluate("() => document.getElementById('returns').open")).toBe(true)

    // The AI ref toggles it back.
    const ai = await svcOk("browser", "snapshot")
    expect(lineOf(ai, /"More info"/), ai).toContain("[expanded]")
    await svcOk("browser", "click", refOf(ai, /button "More info"/))
    expect(await evaluate("() => document.getElementById('more').open")).toBe(false)
    expect(lineOf(await svcOk("browser", "snapshot", "--efficient"), /"More info"/)).toContain("[collapsed]")
  })

  it("among look-alikes, a role ref acts on the very element its line showed", async () => {
    await svcOk("browser", "navigate", pages.url("/alike"))
    const snap = await svcOk("browser", "snapshot", "--interactive")
    expect(snap.trim().split("\n")).toEqual([
      expect.stringMatching(/^- textbox \[ref=e\d+\] \[nth=0\]: First editor$/),
      expect.stringMatching(/^- textbox \[ref=e\d+\] \[nth=1\]: Second editor$/),
      expect.stringMatching(/^- button "Details" \[collapsed\] \[ref=e\d+\] \[nth=0\]$/),
      expect.stringMatching(/^- button "Details" \[collapsed\] \[ref=e\d+\] \[nth=1\]$/)
    ])
    await svcOk("browser", "type", refOf(snap, /Second editor/), "second typed")
    await svcOk("browser", "click", refOf(snap, /"Details".*\[nth=1\]/))
    expect(await evaluate("() => [a.textContent, b.textContent, d1.open, d2.open]"))
      .toEqual(["First editor", "second typed", false, true])
  })

  it("a hidden summary is never taken for a shown one; look-alikes in content-visibility sections all show", async () => {
    await svcOk("browser", "navigate", pages.url("/hidden"))
    for (const mode of MODES) {
      const snap = await svcOk("browser", "snapshot", ...mode)
      const where = `mode ${mode.join(" ") || "ai"}:\n${snap}`
      const shipping = snap.split("\n").filter((l) => /"Shipping"/.test(l))
      expect(shipping, where).toEqual([expect.stringMatching(/^\s*- button "Shipping" \[collapsed\] \[ref=[^\]]+\]/)])
      expect(snap, where).not.toContain("Alone")
      expect(snap.split("\n").filter((l) => /"Terms/.test(l)), where)
        .toEqual([expect.stringMatching(/^\s*- button "Terms of use" \[collapsed\] \[ref=[^\]]+\]/)])
      expect(snap.split("\n").filter((l) => /- button "History" \[collapsed\] \[ref=/.test(l)), where).toHaveLength(12)
    }
    await svcOk("browser", "click", refOf(await svcOk("browser", "snapshot"), /button "Shipping"/))
    expect(await evaluate("() => document.getElementById('ship').open")).toBe(true)
  })
})
