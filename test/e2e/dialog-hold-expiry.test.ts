import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freeCdpPort, type Gateway, request, servePages, startGateway } from "../support/gateway.js"
import { refOf } from "../support/refs.js"

// A dialog held open for its answer (an MCP client's action holds them) that nobody answers is answered by
// the default policy after browser.dialogHoldMs, so the tab does not stay wedged; until then the page's
// requests are refused.

const PAGE = `<!doctype html><title>Hold</title>
<button onclick="out.textContent = confirm('Keep waiting?') ? 'accepted' : 'dismissed'">Ask</button>
<p id="out">nothing yet</p>`
const HOLD_MS = 1_500

describe("a held dialog nobody answers", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>

  beforeAll(async () => {
    pages = await servePages({ "/": PAGE })
    gw = await startGateway({
      config: { browser: { defaultProfile: "svc", dialogHoldMs: HOLD_MS, profiles: { svc: { cdpPort: await freeCdpPort() } } } }
    })
    expect((await gw.svc("browser", "open", pages.url("/"))).code).toBe(0)
  }, 60_000)

  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
  })

  it("is answered by the default policy after browser.dialogHoldMs, and the page answers again", async () => {
    const auth = { authorization: `Bearer ${gw.token()}` }
    const snap = await request(gw.controlPort, "GET", "/snapshot", auth)
    expect(snap.status, snap.body).toBe(200)
    const held = Date.now()
    const clicked = await request(gw.controlPort, "POST", "/act", auth, {
      kind: "click",
      ref: refOf(snap.json().snapshot, /button "Ask"/),
      dialogs: "hold"
    })
    expect(clicked.json().dialogs).toEqual([{ type: "confirm", message: "Keep waiting?", answer: "open", armed: false }])
    expect((await request(gw.controlPort, "GET", "/snapshot", auth)).status).toBe(409)
    let look = await request(gw.controlPort, "GET", "/snapshot", auth)
    while (look.status === 409 && Date.now() - held < 20_000) {
      await new Promise((r) => setTimeout(r, 100))
      look = await request(gw.controlPort, "GET", "/snapshot", auth)
    }
    expect(look.status, look.body).toBe(200)
    // Not before its time (the 409s above), and answered as a confirm nobody armed is: dismissed.
    expect(Date.now() - held).toBeGreaterThanOrEqual(HOLD_MS - 100)
    expect(look.json().snapshot).toContain("dismissed")
    // The tab's errors list it as a dialog nothing armed, answered by default.
    const errors = await request(gw.controlPort, "GET", "/errors", auth)
    expect(errors.status, errors.body).toBe(200)
    const dialog = errors.json().dialogs.find((d: { message: string }) => d.message === "Keep waiting?")
    expect(dialog).toMatchObject({ type: "confirm", answer: "dismissed", armed: false })
  }, 60_000)
})
