import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freeCdpPort, type Gateway, servePages, startGateway } from "../support/gateway.js"
import { refOf } from "../support/refs.js"

// The guards that keep an action by ref on the element its snapshot showed, through the real path: an
// action on several refs keeps all of them, and no guard outlives its action (the page gets every later
// event, also on an element that changed since).

const form = `<!doctype html><title>Guards</title>
<label for="name">Name</label><input id="name">
<label><input type="checkbox" id="agree"> Agree</label>
<button id="toggle" onclick="this.textContent = this.textContent === 'Show more' ? 'Show less' : 'Show more'; log.push(this.textContent)">Show more</button>
<script>window.log = []</script>`

describe("ref guards", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>

  const state = async () =>
    JSON.parse((await gw.svc("browser", "evaluate", "--json", "--fn",
      "() => [document.getElementById('name').value, document.getElementById('agree').checked, window.log]")).stdout).result

  beforeAll(async () => {
    pages = await servePages({ "/form": form })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } } })
    await gw.svc("browser", "open", pages.url("/form"))
  }, 60_000)
  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
  })

  for (const format of ["ai", "role"] as const) {
    it(`fill with two ${format} refs fills both (the first ref's check holds while the second is resolved)`, async () => {
      expect((await gw.svc("browser", "navigate", pages.url("/form"))).code).toBe(0)
      const snap = (await gw.svc("browser", "snapshot", "--format", format)).stdout
      const fields = JSON.stringify([
        { ref: refOf(snap, /textbox "Name"/), type: "textbox", value: "Grace" },
        { ref: refOf(snap, /checkbox "Agree"/), type: "checkbox", value: true }
      ])
      const fill = await gw.svc("browser", "fill", "--fields", fields)
      expect(fill.code, fill.stderr).toBe(0)
      expect((await state()).slice(0, 2)).toEqual(["Grace", true])
    }, 60_000)

    it(`a ${format} ref's guard ends with its action: the element it relabelled still gets later events`, async () => {
      expect((await gw.svc("browser", "navigate", pages.url("/form"))).code).toBe(0)
      const snap = (await gw.svc("browser", "snapshot", "--format", format)).stdout
      const click = await gw.svc("browser", "click", refOf(snap, /button "Show more"/))
      expect(click.code, click.stderr).toBe(0)
      // The click left the focus on the button, which now reads "Show less", unlike when it was guarded: a
      // guard still in place would stop the key.
      expect((await gw.svc("browser", "press", "Enter")).code).toBe(0)
      expect((await state())[2]).toEqual(["Show less", "Show more"])
    }, 60_000)
  }
})
