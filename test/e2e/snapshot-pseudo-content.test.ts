import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Gateway, request, servePages, startGateway } from "../support/gateway.js"

// CSS `::before` and `::after` content is part of names and text. The walk answers "no content" without asking
// the browser for elements no rule can give one (src/browser/snapshot/quickPseudo.ts): seen here through the
// control API, the names and text come out as the browser has them, whatever form the rules take, on pages
// where the rules can all be read and where they cannot.

const CSS = `
.star::before { content: "\\2605  " }
.ext:after { content: " (external)" }
:is(.a, .b)::before { content: "[AB] " }
@media screen { @supports (display: grid) { @layer deco { .deep::after { content: " deep" } } } }
.list > ::before { content: "* " }
.tip::after { content: " " attr(data-tip) }
.gone::before { content: "never"; display: none }
`

const PAGE = `<!doctype html><title>Pseudo</title>
<style>@import url("/imported.css");${CSS}</style>
<button class="star">Rate</button>
<a class="ext" href="#x">Docs</a>
<button class="b">B</button>
<button class="deep">Dive</button>
<ul class="list"><li><button>Item</button></li></ul>
<button class="tip" data-tip="helps">Hint</button>
<button class="gone">Plain</button>
<button class="imp">Import</button>
<button class="late">Go</button>
<p>She said <q>hello</q> twice.</p>
<p id="out">nothing</p>
<script>
  document.querySelector(".star").onclick = () => { document.getElementById("out").textContent = "rated" }
  // A rule added through the CSSOM (no element changes): seen by the next read.
  document.styleSheets[0].insertRule('.late::before { content: "Late " }', document.styleSheets[0].cssRules.length)
</script>`

/** A rule nested in another (its selector is relative to its parent's): every element is asked. */
const NESTED = `<!doctype html><title>Nested</title>
<style>.nest { color: black; &::before { content: "Nested " } } .plain::after { content: " after" }</style>
<button class="nest">One</button><button class="plain">Two</button>`

/** A shadow tree's `:host::before` gives its host content the document's sheets do not show. */
const SHADOW = `<!doctype html><title>Shadow</title>
<div id="host"><button>Light</button></div>
<script>
  const root = document.getElementById("host").attachShadow({ mode: "open" })
  root.innerHTML = '<style>:host::before { content: "Hosted " } .inner::after { content: " inside" }</style><slot></slot><button class="inner">Shadow</button>'
</script>`

describe("an AI snapshot keeps ::before and ::after content where rules give it", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>
  let other: Awaited<ReturnType<typeof servePages>>
  const auth = () => ({ authorization: `Bearer ${gw.token()}` })

  const openAndRead = async (url: string) => {
    const opened = await gw.svc("browser", "open", url, "--json")
    expect(opened.code, opened.stderr).toBe(0)
    const targetId = JSON.parse(opened.stdout).targetId as string
    const loaded = await request(gw.controlPort, "POST", "/act", auth(), { kind: "wait", load: "load", targetId })
    expect(loaded.status, loaded.body).toBe(200)
    const r = await request(gw.controlPort, "GET", `/snapshot?targetId=${targetId}&format=ai`, auth())
    expect(r.status, r.body).toBe(200)
    return { targetId, text: (r.json() as { snapshot: string }).snapshot }
  }

  beforeAll(async () => {
    // Another origin: its sheet's rules cannot be read from the page.
    other = await servePages({ "/far.css": { type: "text/css", body: ".far::before { content: \"Far \" }" } })
    pages = await servePages({
      "/pseudo": PAGE,
      "/imported.css": { type: "text/css", body: ".imp::after { content: \" imported\" }" },
      "/nested": NESTED,
      "/shadow": SHADOW,
      "/far": `<!doctype html><title>Far</title><link rel="stylesheet" href="${other.url("/far.css")}"><button class="far">Away</button><button>Near</button>`
    })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc" } } })
  }, 60_000)

  afterAll(async () => {
    await gw?.svc("browser", "stop")
    await gw?.stop()
    await pages?.close()
    await other?.close()
  })

  it("names and text take their content from every form of rule, and an action by ref finds its element", async () => {
    const { targetId, text } = await openAndRead(pages.url("/pseudo"))
    expect(text).toMatch(/button "★ Rate" \[ref=\w+\]/)
    expect(text).toContain('link "Docs (external)"')
    expect(text).toContain('button "[AB] B"')
    expect(text).toContain('button "Dive deep"')
    expect(text).toMatch(/listitem \[ref=\w+\]:\n\s*- text: "\*"\n\s*- button "Item"/)
    expect(text).toContain('button "Hint helps"')
    expect(text).toContain('button "Plain"')
    expect(text).not.toContain("never")
    expect(text).toContain('button "Import imported"')
    expect(text).toContain('button "Late Go"')
    // (The library reads strings and attr() from content, not the quotes a q element gets.)
    expect(text).toContain("She said hello twice.")
    // The name the snapshot gave is the one an action matches, later and by the browser's own answers.
    const ref = /button "★ Rate" \[ref=(\w+)\]/.exec(text)![1]!
    const clicked = await request(gw.controlPort, "POST", "/act", auth(), { kind: "click", ref, targetId })
    expect(clicked.status, clicked.body).toBe(200)
    const out = await gw.svc("browser", "evaluate", "--target-id", targetId, "--fn", "() => document.getElementById('out').textContent")
    expect(out.stdout).toContain("rated")
    // Content that changes between reads: the next read sees it.
    await gw.svc("browser", "evaluate", "--target-id", targetId, "--fn", "() => { document.querySelector('.b').className = 'star'; return 1 }")
    const again = await request(gw.controlPort, "GET", `/snapshot?targetId=${targetId}&format=ai`, auth())
    expect((again.json() as { snapshot: string }).snapshot).toContain('button "★ B"')
  }, 60_000)

  it("asks the browser about every element where the rules cannot all be placed or read", async () => {
    const nested = (await openAndRead(pages.url("/nested"))).text
    expect(nested).toContain('button "Nested One"')
    expect(nested).toContain('button "Two after"')
    const shadow = (await openAndRead(pages.url("/shadow"))).text
    expect(shadow).toMatch(/Hosted/)
    expect(shadow).toContain('button "Shadow inside"')
    const far = (await openAndRead(pages.url("/far"))).text
    expect(far).toContain('button "Far Away"')
    expect(far).toContain('button "Near"')
  }, 60_000)
})
