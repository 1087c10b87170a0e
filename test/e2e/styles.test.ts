import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { browserCli } from "../support/browserCli.js"
import { freeCdpPort, type Gateway, servePages, startGateway } from "../support/gateway.js"
import { refOf } from "../support/refs.js"

// `svc browser styles` through the real path (bin/svc → gateway → Chromium): an element's computed values and
// the rules that set them, from a linked stylesheet, a <style> element, an @media block and the style
// attribute, in the order of their precedence, with the one that wins told apart.

const styled = `<!doctype html><title>Styled</title>
<link rel="stylesheet" href="/app.css">
<style>
.primary { color: blue; padding: 4px 8px }
@media (min-width: 10px) { .primary { font-size: 20px } }
</style>
<button id="go" class="primary" style="color: purple">Go</button>
<iframe title="inner" srcdoc="<button style='color: rgb(255, 0, 0)'>Inner</button>"></iframe>`
const css = `button { color: red; margin: 0 }
#go { color: green !important }
`

describe("svc browser styles", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>
  const { ok, evaluate } = browserCli(() => gw)

  beforeAll(async () => {
    pages = await servePages({ "/styled": styled, "/app.css": { type: "text/css", body: css } })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } } })
    await ok("open", pages.url("/styled"))
  })
  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
  })

  it("shows what the element's properties compute to and the page's rules, highest precedence first", async () => {
    const go = refOf(await ok("snapshot"), /button "Go"/)!
    const text = await ok("styles", go)
    const lines = text.split("\n")
    expect(lines[0]).toBe(`button "Go" [ref=${go}]`)
    expect(lines[1]).toMatch(/^computed: display: inline-block; position: static; visibility: visible; opacity: 1; /)
    expect(lines[1]).toContain("; padding: 4px 8px 4px 8px; color: rgb(0, 128, 0); ")
    expect(lines[1]).toContain("; font-size: 20px; ")
    expect(lines.slice(2)).toEqual([
      "rules, highest precedence first ([overridden]: another declaration wins):",
      "  element.style { color: purple [overridden] }",
      `  #go (${pages.url("/app.css")}:2) { color: green !important }`,
      `  @media (min-width: 10px) .primary (${pages.url("/styled")}:5) { font-size: 20px }`,
      `  .primary (${pages.url("/styled")}:4) { color: blue [overridden]; padding: 4px 8px }`,
      `  button (${pages.url("/app.css")}:1) { color: red [overridden]; margin: 0 }`,
      expect.stringMatching(/^\d+ rule\(s\) of the browser's own left out; name properties to see those that set them$/)
    ])
    // The page is left as it was: nothing of the hand-over stays on its window.
    expect(await evaluate("() => Object.getOwnPropertySymbols(window).map(String)")).toEqual([])
  })

  it("named properties narrow both, and bring in the browser's own rules for them", async () => {
    const go = refOf(await ok("snapshot"), /button "Go"/)!
    const r = JSON.parse(await ok("styles", go, "color", "no-such-thing", "--json"))
    expect(r.computed).toEqual({ color: "rgb(0, 128, 0)", "no-such-thing": "(not a CSS property)" })
    expect(r.userAgentRulesLeftOut).toBe(0)
    const winners = r.rules.flatMap((rule: { declarations: Array<{ name: string; overridden: boolean }> }) =>
      rule.declarations.filter((d) => !d.overridden))
    expect(winners).toEqual([{ name: "color", value: "green", important: true, overridden: false }])
    expect(r.rules.map((rule: { selector: string }) => rule.selector).slice(0, 4)).toEqual(["element.style", "#go", ".primary", "button"])
    // The browser's own rule for a button's colour, last and beaten.
    expect(r.rules.at(-1)).toMatchObject({ origin: "user-agent", declarations: [{ name: "color", overridden: true }] })
    expect(r.rules.flatMap((rule: { declarations: Array<{ name: string }> }) => rule.declarations.map((d) => d.name))).not.toContain("margin")
  })

  it("an element inside a frame has its computed values; a ref that is gone says what to do", async () => {
    const inner = refOf(await ok("snapshot"), /button "Inner"/)!
    const text = await ok("styles", inner, "color")
    expect(text.split("\n").slice(1)).toEqual([
      "computed: color: rgb(255, 0, 0)",
      "rules: not shown, the element is inside a frame: its rules are not read (its computed values are)"
    ])
    const gone = await gw.svc("browser", "styles", "e999")
    expect(gone.code).toBe(1)
    expect(gone.stderr).toMatch(/e999/)
    expect(gone.stderr).toMatch(/snapshot/)
  })
})
