import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chooseBase } from "../../src/browser/inspect/SafePaths.js"
import { browserCli } from "../support/browserCli.js"
import { freeCdpPort, type Gateway, servePages, startGateway } from "../support/gateway.js"
import { refOf } from "../support/refs.js"

// `svc browser drop` through the real path (bin/svc → gateway → playwright-core → Chromium): a file of the
// uploads root and text dropped onto an upload area arrive in its drop event; an element that takes no
// drops, an empty drop and a file outside the root are refused.

const zone = `<!doctype html><title>Drop</title>
<div id="zone" role="region" aria-label="Upload area" style="width: 300px; height: 100px">drop here</div>
<div role="region" aria-label="Plain text" style="width: 300px; height: 50px">no drops</div>
<pre id="out"></pre>
<script>
  const z = document.getElementById("zone")
  z.addEventListener("dragover", (e) => e.preventDefault())
  z.addEventListener("drop", async (e) => {
    e.preventDefault()
    const files = await Promise.all([...e.dataTransfer.files].map(async (f) => f.name + ":" + await f.text()))
    document.getElementById("out").textContent = JSON.stringify({ files, text: e.dataTransfer.getData("text/plain") })
  })
</script>`

describe("svc browser drop", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>
  const { evaluate, ok } = browserCli(() => gw)
  const name = `drop-${process.pid}-${Date.now()}.txt`
  const file = path.join(chooseBase(), "uploads", name)

  beforeAll(async () => {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
    fs.writeFileSync(file, "dropped content")
    pages = await servePages({ "/zone": zone })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } } })
    await ok("open", pages.url("/zone"))
  })
  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
    fs.rmSync(file, { force: true })
  })

  it("drops a file of the uploads root and text onto an upload area", async () => {
    const area = refOf(await ok("snapshot"), /region "Upload area"/)!
    expect(await ok("drop", area, name, "--data", "text/plain=a=b")).toBe(`dropped 1 file(s) and text/plain onto ${area} (${pages.url("/zone")})`)
    await evaluate("() => new Promise((r) => { const p = document.getElementById('out'); p.textContent ? r() : new MutationObserver(r).observe(p, { childList: true }) })")
    expect(JSON.parse(await evaluate("() => document.getElementById('out').textContent"))).toEqual({ files: [`${name}:dropped content`], text: "a=b" })
  })

  it("refuses an element that takes no drops, an empty drop and a file outside the uploads root", async () => {
    const snap = await ok("snapshot")
    const plain = refOf(snap, /region "Plain text"/)!
    const area = refOf(snap, /region "Upload area"/)!
    const refused = await gw.svc("browser", "drop", plain, "--data", "text/plain=x")
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(`drop ${plain} (region "Plain text"): the element does not take drops`)
    const empty = await gw.svc("browser", "drop", area)
    expect(empty.stderr.trim()).toBe(`svc: drop ${area}: give files (in the uploads root) or data (a MIME type and its text, e.g. text/plain=hello)`)
    const outside = await gw.svc("browser", "drop", area, "/etc/passwd")
    expect(outside.code).toBe(1)
    expect(outside.stderr).toContain(`"/etc/passwd" resolves to a path outside`)
  })
})
