import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freeCdpPort, type Gateway, request, servePages, startGateway } from "../support/gateway.js"
import { refOf } from "../support/refs.js"

// A click by ref checks in one page call that its element is visible, enabled, still and not covered, and
// then clicks without the library's own waits (src/browser/act/clickReady.ts); anything else goes the
// library's way. Through the control API of a real gateway and the managed Chromium, on pages served here:
// the clear cases are clicked, and those the check must hand on (a button that keeps moving, one below the
// fold, in a shadow tree, with content inside it) end as the library would end them.

const page = `<!doctype html><title>Clicks</title>
<style>#jumper { position: absolute; top: 300px; left: 0 } #far { margin-top: 3000px }</style>
<button id="plain" onclick="hit('plain')">Plain</button>
<button id="wrapped" onclick="hit('wrapped')"><span><b>Wrapped</b> label</span></button>
<div id="host"></div>
<button id="jumper" onclick="hit('jumper')">Jumper</button>
<p id="out">none</p>
<button id="far" onclick="hit('far')">Far</button>
<script>
  const hits = []
  window.hit = (what) => { hits.push(what); document.getElementById("out").textContent = hits.join(",") }
  const root = document.getElementById("host").attachShadow({ mode: "open" })
  root.innerHTML = '<button onclick="hit(\\'shadow\\')">In shadow</button>'
  // From now on it slides back and forth for good (a style sheet added: nothing about the button itself changes).
  window.jump = () => document.head.insertAdjacentHTML("beforeend",
    "<style>@keyframes slide { from { left: 0 } to { left: 300px } } #jumper { animation: slide 200ms linear infinite alternate }</style>")
</script>`

describe("a click by ref that need not wait", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>
  let targetId: string

  const api = (method: string, path: string, body?: unknown) =>
    request(gw.controlPort, method, path, { authorization: `Bearer ${gw.token()}` }, body)
  const fresh = async () => {
    const nav = await api("POST", "/navigate", { url: pages.url("/clicks"), targetId })
    expect(nav.status, nav.body).toBe(200)
    const snap = await api("GET", `/snapshot?targetId=${targetId}`)
    expect(snap.status, snap.body).toBe(200)
    return snap.json().snapshot as string
  }
  const click = (ref: string, timeoutMs?: number) =>
    api("POST", "/act", { kind: "click", ref, targetId, ...(timeoutMs !== undefined ? { timeoutMs } : {}) })
  const out = async () => (await api("POST", "/act", { kind: "evaluate", fn: "() => out.textContent", targetId })).json().result

  beforeAll(async () => {
    pages = await servePages({ "/clicks": page })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } } })
    const opened = await api("POST", "/tabs/open", { url: pages.url("/clicks") })
    expect(opened.status, opened.body).toBe(200)
    targetId = opened.json().targetId
  })
  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
  })

  it("clicks a plain button, one whose text is inside other elements, and one in a shadow tree, once each", async () => {
    const snap = await fresh()
    for (const name of [/button "Plain"/, /button "Wrapped label"/, /button "In shadow"/]) {
      const r = await click(refOf(snap, name))
      expect(r.status, r.body).toBe(200)
    }
    expect(await out()).toBe("plain,wrapped,shadow")
  })

  it("a button below the fold is scrolled to and clicked", async () => {
    const r = await click(refOf(await fresh(), /button "Far"/))
    expect(r.status, r.body).toBe(200)
    expect(await out()).toBe("far")
  })

  it("a button that keeps sliding is not clicked: the click waits for it to be still and says it was not", async () => {
    const jumper = refOf(await fresh(), /button "Jumper"/)
    await api("POST", "/act", { kind: "evaluate", fn: "() => jump()", targetId })
    const r = await click(jumper, 1_000)
    expect(r.status).toBe(409)
    expect(r.json().message).toMatch(/waiting for the element to stop moving/)
    expect(await out()).toBe("none")
  })
})
