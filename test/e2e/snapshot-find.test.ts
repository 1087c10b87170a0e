import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { browserCli } from "../support/browserCli.js"
import { freeCdpPort, type Gateway, servePages, startGateway } from "../support/gateway.js"
import { refOf } from "../support/refs.js"

// `snapshot --find` through the real path (bin/svc → gateway → playwright-core → Chromium): on a page whose
// default snapshot the cap cuts long before its end, a search finds what lies past the cut, under its path,
// with a ref that acts; a regex, a cap on what is found, no match and bad input each say what they are.

const paragraphs = Array.from({ length: 2500 }, (_, i) => `<p>Paragraph ${i} of the long story, told again.</p>`).join("")
const long = `<!doctype html><html><head><title>Long</title></head><body>
<main>
  <h1>A long page</h1>
  <article>${paragraphs}</article>
  <section aria-label="Launch area">
    <h2>Controls</h2>
    <ul><li><button type="button" onclick="document.getElementById('said').textContent = 'Rocket launched'">Launch rocket</button></li></ul>
    <p id="said">Waiting on the pad</p>
  </section>
</main>
</body></html>`

interface Found {
  readonly snapshot: string
  readonly truncated: boolean
  readonly refs: Record<string, { role: string; name: string }>
  readonly stats: { lines: number }
  readonly found?: { matches: number; shown: number }
}

describe("snapshot --find", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>
  const { ok } = browserCli(() => gw)
  const json = async (...args: Array<string>): Promise<Found> => JSON.parse(await ok("snapshot", "--json", ...args))

  beforeAll(async () => {
    pages = await servePages({ "/long": long })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } } })
    await ok("open", pages.url("/long"))
  })
  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
  })

  it("finds what lies past the default snapshot's cut, under its path, with a ref that acts", async () => {
    // The default snapshot is cut long before the end of the page.
    const whole = await ok("snapshot")
    expect(whole).toContain("snapshot truncated")
    expect(whole).not.toContain("Launch rocket")

    const text = await ok("snapshot", "--find", "launch ROCKET")
    const lines = text.split("\n")
    expect(lines[0]).toMatch(/^1 line\(s\) match "launch ROCKET" \(of [\d,]+ in the page's snapshot\), each under the elements it is in:$/)
    // Its path from the top, each once, in the snapshot's order; then the match; nothing of the story.
    const main = lines.findIndex((l) => /^- main/.test(l))
    const region = lines.findIndex((l) => /^\s+- region "Launch area"/.test(l))
    const button = lines.findIndex((l) => /^\s+- button "Launch rocket" \[ref=[^\]]+\]/.test(l))
    expect(main, text).toBeGreaterThan(0)
    expect(region, text).toBeGreaterThan(main)
    expect(button, text).toBeGreaterThan(region)
    expect(text).not.toContain("Paragraph")
    expect(lines.length, text).toBeLessThan(10)

    await ok("click", refOf(text, /button "Launch rocket"/))
    const after = await ok("snapshot", "--find", "rocket launched")
    expect(after).toMatch(/^1 line\(s\) match/)
    expect(after).toContain("Rocket launched")
  })

  it("shows one element's part by its ref, past the cut too, under its path; its refs act", async () => {
    const found = await ok("snapshot", "--find", "Launch area")
    const region = refOf(found, /region "Launch area"/)!
    const part = await ok("snapshot", "--ref", region)
    const lines = part.split("\n")
    // The path, the element, and everything in it: the heading, the button, the paragraph; nothing of the story.
    expect(lines[0]).toMatch(/^- main/)
    expect(part).toMatch(new RegExp(`- region "Launch area" \\[ref=${region}\\]:`))
    expect(part).toMatch(/heading "Controls"/)
    expect(part).toMatch(/button "Launch rocket"(?: \[active\])? \[ref=[^\]]+\]/)
    expect(part).toMatch(/paragraph \[ref=[^\]]+\]: (Waiting on the pad|Rocket launched)/)
    expect(part).not.toContain("Paragraph 1")
    expect(part).not.toContain("A long page")
    await ok("click", refOf(part, /button "Launch rocket"/))
    expect(await ok("snapshot", "--ref", region)).toContain("Rocket launched")

    const gone = await gw.svc("browser", "snapshot", "--ref", "99999")
    expect(gone.code).toBe(1)
    expect(gone.stderr).toContain("ref 99999 is not in the page's snapshot now")
    const both = await gw.svc("browser", "snapshot", "--ref", region, "--find", "x")
    expect(both.stderr).toContain("--ref shows one element's part of the snapshot, and --find searches the whole of it")
  })

  it("answers in JSON with the counts and only the refs it shows", async () => {
    const r = await json("--find", "Launch rocket")
    expect(r.found).toEqual({ matches: 1, shown: 1 })
    expect(r.truncated).toBe(false)
    expect(r.stats.lines).toBeGreaterThan(2500)
    const ref = refOf(r.snapshot, /button "Launch rocket"/)
    expect(r.refs[ref]).toEqual({ role: "button", name: "Launch rocket" })
    // The refs of the lines shown (the match and its path), not the thousands of the whole snapshot.
    const shown = [...r.snapshot.matchAll(/\[ref=([^\]\s]+)\]/g)].map((m) => m[1])
    expect(Object.keys(r.refs).sort()).toEqual(shown.sort())
    expect(shown.length).toBeLessThan(8)
  })

  it("takes a regular expression; a cap on what it finds says how many more there are", async () => {
    const r = await json("--find", "/paragraph 24\\d\\d of/i", "--regex", "--limit", "1500")
    expect(r.found!.matches).toBe(100)
    expect(r.found!.shown).toBeGreaterThan(5)
    expect(r.found!.shown).toBeLessThan(100)
    expect(r.truncated).toBe(true)
    expect(r.snapshot.length).toBeLessThanOrEqual(1500)
    expect(r.snapshot.split("\n").at(-1)).toMatch(
      new RegExp(`^\\[… ${100 - r.found!.shown} more match\\(es\\) not shown within the 1500-character limit\\. Narrow the search`)
    )
    // Bare, a regex is case-sensitive.
    expect((await json("--find", "paragraph 24\\d\\d of", "--regex")).found!.matches).toBe(0)
  })

  it("says when nothing matches, and searches role snapshots too", async () => {
    expect(await ok("snapshot", "--find", "no such words anywhere")).toMatch(
      /^No line of the page's snapshot matches "no such words anywhere" \(of [\d,]+ in the page's snapshot\): try other words, or a regex\.$/
    )
    const role = await ok("snapshot", "--interactive", "--find", "launch")
    expect(role).toMatch(/button "Launch rocket" \[ref=e\d+\]/)
    expect(role).not.toContain("Paragraph")
    await ok("click", refOf(role, /button "Launch rocket"/))
  })

  it("refuses bad input with one line that says what to do", async () => {
    const bad = await gw.svc("browser", "snapshot", "--find", "(unclosed", "--regex")
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toMatch(/"\(unclosed" is not a valid regular expression .*drop regex to look for it as plain text/)
    const both = await gw.svc("browser", "snapshot", "--find", "x", "--diff")
    expect(both.code).not.toBe(0)
    expect(both.stderr).toContain("--find answers only the lines it finds, and --diff only the lines that changed: pass one of them")
    const alone = await gw.svc("browser", "snapshot", "--regex")
    expect(alone.code).not.toBe(0)
    expect(alone.stderr).toContain("--regex says how to read --find: give --find <pattern> too")
  })
})
