import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freeCdpPort, type Gateway, isPng, servePages, startGateway } from "../support/gateway.js"
import { refOf } from "../support/refs.js"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"

// Issue 3 through the real path: bin/svc → gateway → playwright-core over CDP → the managed Chromium,
// on pages served here. Every assertion reads back what a user of the page would see.

const form = `<!doctype html><html><head><title>Automation form</title></head><body>
<h1>Automation form</h1>
<form id="f" onsubmit="event.preventDefault(); out.textContent = 'submitted ' + document.getElementById('name').value">
  <label for="name">Name</label><input id="name">
  <label for="color">Color</label>
  <select id="color" onchange="out.textContent = 'color ' + this.value"><option value="r">Red</option><option value="g">Green</option></select>
  <label><input type="checkbox" id="agree" onchange="out.textContent = 'agree ' + this.checked"> Agree</label>
  <button type="button" onclick="out.textContent = 'first save'">Save</button>
  <button type="button" onclick="out.textContent = 'second save'">Save</button>
  <button type="button" id="del" onclick="out.textContent = 'deleted'">Delete</button>
  <button type="submit">Submit</button>
</form>
<p id="out">nothing yet</p>
<div style="position:relative;width:200px"><button id="covered" onclick="out.textContent = 'covered clicked'">Covered</button>
  <div id="overlay" style="position:absolute;inset:0;background:rgba(0,0,0,.2)"></div></div>
<button id="later" onclick="setTimeout(() => out.textContent = 'revealed', 300)">Reveal later</button>
<iframe title="inner" srcdoc="<button onclick=&quot;parent.document.getElementById('out').textContent='frame clicked'&quot;>In frame</button>"></iframe>
<a href="/second">Next page</a>
</body></html>`

const second = `<!doctype html><title>Second</title><h1>Second page</h1>`
const big = `<!doctype html><title>Big</title><h1>Big</h1><ul>${
  Array.from({ length: 1500 }, (_, i) =>
    i % 15 === 0 ? `<li><button>Action ${i}</button></li>` : `<li><span>Row ${i}</span> <em>cell ${i}</em></li>`).join("")
}</ul>`

describe("automation through the gateway", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>

  const out = async () =>
    JSON.parse((await gw.svc("browser", "evaluate", "--fn", "() => document.getElementById('out').textContent", "--json")).stdout)
      .result
  const fresh = async () => {
    const r = await gw.svc("browser", "navigate", pages.url("/form"))
    expect(r.code).toBe(0)
    return (await gw.svc("browser", "snapshot")).stdout
  }

  beforeAll(async () => {
    pages = await servePages({ "/form": form, "/second": second, "/big": big })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } } })
    await gw.svc("browser", "open", pages.url("/form"))
  })
  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
  })

  it("takes an AI snapshot by default, with numeric refs, and clicks by them", async () => {
    const snap = await fresh()
    expect(snap).toMatch(/button "Delete" \[ref=\d+\]/)
    const del = refOf(snap, /button "Delete"/)
    const r = await gw.svc("browser", "click", del)
    expect(r.code).toBe(0)
    expect(await out()).toBe("deleted")
  })

  it("reaches elements inside an iframe through their own refs", async () => {
    const snap = await fresh()
    const inFrame = refOf(snap, /button "In frame"/)
    expect(inFrame).toMatch(/^f\d+e\d+$/)
    expect((await gw.svc("browser", "click", inFrame)).code).toBe(0)
    expect(await out()).toBe("frame clicked")
  })

  it("tells two buttons with the same name apart with role refs and nth", async () => {
    await fresh()
    const role = (await gw.svc("browser", "snapshot", "--interactive")).stdout
    const saves = role.split("\n").filter((l) => l.includes('button "Save"'))
    expect(saves).toHaveLength(2)
    expect(saves[1]).toContain("[nth=1]")
    const second = /\[ref=(e\d+)\]/.exec(saves[1]!)![1]!
    expect((await gw.svc("browser", "click", second)).code).toBe(0)
    expect(await out()).toBe("second save")
  })

  it("types, submits, selects, checks and fills", async () => {
    const snap = await fresh()
    const name = refOf(snap, /textbox "Name"/)
    expect((await gw.svc("browser", "type", name, "Ada", "--submit")).code).toBe(0)
    expect(await out()).toBe("submitted Ada")
    expect((await gw.svc("browser", "select", refOf(snap, /combobox "Color"/), "Green")).code).toBe(0)
    expect(await out()).toBe("color g")
    const fields = JSON.stringify([
      { ref: name, type: "textbox", value: "Grace" },
      { ref: refOf(snap, /checkbox "Agree"/), type: "checkbox", value: true }
    ])
    expect((await gw.svc("browser", "fill", "--fields", fields)).code).toBe(0)
    const state = JSON.parse((await gw.svc("browser", "evaluate", "--json", "--fn",
      "() => [document.getElementById('name').value, document.getElementById('agree').checked]")).stdout).result
    expect(state).toEqual(["Grace", true])
    const bad = await gw.svc("browser", "fill", "--fields", "[{\"ref\":\"1\"}]")
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toContain("--fields must be a JSON array")
  })

  it("refuses stale refs fast: from a superseded snapshot, and after navigation", async () => {
    // Refs are stable while an element keeps its role and name, and a number is never reused for another
    // element; a ref the latest snapshot no longer shows is refused.
    // "Fast": refused without waiting for an element, whose wait is the action's timeout, 20 s here. The
    // clicks are whole CLI runs (a node process started for each), which beside a CPU hog take most of a
    // second before any refusal; so the bound is set against that timeout, not against the CLI's start.
    const first = await fresh()
    const oldDel = refOf(first, /button "Delete"/)
    const again = (await gw.svc("browser", "snapshot")).stdout
    expect(refOf(again, /button "Delete"/)).toBe(oldDel)
    const renamed = await gw.svc("browser", "evaluate", "--fn", "() => { document.getElementById('del').textContent = 'Remove' }")
    // A function that returns nothing prints `undefined`; under --json the answer has no result.
    expect(renamed.stdout.trim()).toBe("undefined")
    const changed = (await gw.svc("browser", "snapshot")).stdout
    expect(refOf(changed, /button "Remove"/)).not.toBe(oldDel)
    const superseded = await gw.svc("browser", "click", oldDel, "--timeout", "20000")
    expect(superseded.code).not.toBe(0)
    expect(superseded.stderr).toContain("take a fresh snapshot")
    expect(superseded.ms).toBeLessThan(10_000)
    expect(await out()).toBe("nothing yet")

    const snap = await fresh()
    const del = refOf(snap, /button "Delete"/)
    await gw.svc("browser", "navigate", pages.url("/second"))
    const t0 = performance.now()
    const after = await gw.svc("browser", "click", del, "--timeout", "20000")
    expect(performance.now() - t0).toBeLessThan(10_000)
    expect(after.code).not.toBe(0)
    expect(after.stderr).toContain("navigated")
    expect(after.stderr).toContain("take a fresh snapshot")
  })

  it("refuses a CSS selector where a ref belongs", async () => {
    const r = await gw.svc("browser", "click", "#del")
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain("svc browser snapshot")
  })

  it("says when an element is still covered or hidden after its timeout, or matched more than once", async () => {
    await fresh()
    const role = (await gw.svc("browser", "snapshot", "--format", "role")).stdout
    const covered = refOf(role, /button "Covered"/)
    const c = await gw.svc("browser", "click", covered, "--timeout", "2000")
    expect(c.code).not.toBe(0)
    expect(c.stderr).toMatch(/cover|intercept/i)
    expect(c.stderr).toContain("highlight")
    expect(c.ms).toBeLessThan(4_000)
    expect(await out()).toBe("nothing yet")

    const snap = (await gw.svc("browser", "snapshot")).stdout
    const del = refOf(snap, /button "Delete"/)
    await gw.svc("browser", "evaluate", "--fn", "() => { document.getElementById('del').style.display = 'none' }")
    const h = await gw.svc("browser", "click", del, "--timeout", "2000")
    expect(h.code).not.toBe(0)
    expect(h.stderr).toMatch(/visible|fresh snapshot/)
    expect(h.ms).toBeLessThan(4_000)

    await fresh()
    const roles = (await gw.svc("browser", "snapshot", "--interactive")).stdout
    const delRole = refOf(roles, /button "Delete"/)
    // Its element replaced by two look-alikes: which one it was cannot be told.
    await gw.svc("browser", "evaluate", "--fn", "() => { const d = document.getElementById('del'); d.replaceWith(d.cloneNode(true), d.cloneNode(true)) }")
    const s = await gw.svc("browser", "click", delRole)
    expect(s.code).not.toBe(0)
    expect(s.stderr).toMatch(/matched 2|fresh snapshot/)
  })

  it("waits for text, evaluates, highlights, screenshots an element and prints a PDF", async () => {
    const snap = await fresh()
    await gw.svc("browser", "click", refOf(snap, /button "Reveal later"/))
    const w = await gw.svc("browser", "wait", "--text", "revealed", "--timeout", "5000")
    expect(w.code).toBe(0)
    expect(await out()).toBe("revealed")

    const del = refOf((await gw.svc("browser", "snapshot")).stdout, /button "Delete"/)
    const hl = await gw.svc("browser", "highlight", del)
    expect(hl.code).toBe(0)
    expect(hl.stdout).toContain("Delete")

    const shot = JSON.parse((await gw.svc("browser", "screenshot", "--ref", del, "--json")).stdout)
    const png = isPng(shot.path)!
    expect(png.width).toBeLessThan(300)
    expect(png.height).toBeLessThan(100)

    const pdf = await gw.svc("browser", "pdf")
    const file = /^MEDIA:(.+\.pdf)$/m.exec(pdf.stdout)![1]!
    expect(fs.readFileSync(file).subarray(0, 4).toString()).toBe("%PDF")
  })

  it("saves a screenshot, an element's and a PDF under the names given, in the downloads root, never over a file", async () => {
    const del = refOf(await fresh(), /button "Delete"/)
    const tag = crypto.randomBytes(4).toString("hex")
    const page = JSON.parse((await gw.svc("browser", "screenshot", "--filename", `shots-${tag}/page.png`, "--json")).stdout)
    const root = path.dirname(path.dirname(page.path))
    try {
      expect(page.path).toBe(path.join(root, `shots-${tag}`, "page.png"))
      expect(isPng(page.path)).toMatchObject({ width: page.width, height: page.height })
      expect(fs.statSync(page.path).mode & 0o777).toBe(0o600)
      const before = fs.readFileSync(page.path)

      const element = await gw.svc("browser", "screenshot", "--ref", del, "--filename", `shots-${tag}/delete.png`)
      expect(element.stdout.trim()).toBe(`MEDIA:${path.join(root, `shots-${tag}`, "delete.png")}`)
      expect(isPng(path.join(root, `shots-${tag}`, "delete.png"))!.height).toBeLessThan(100)

      // A JPEG when asked for, or when the name ends .jpg: its header says so, and its size is the one answered.
      const jpeg = JSON.parse((await gw.svc("browser", "screenshot", "--type", "jpeg", "--json")).stdout)
      expect(jpeg.path).toMatch(/\.jpg$/)
      expect(jpeg.type).toBe("jpeg")
      expect([...fs.readFileSync(jpeg.path).subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff])
      expect(jpeg.width).toBe(page.width)
      expect(jpeg.bytes).toBe(fs.statSync(jpeg.path).size)
      const named = JSON.parse((await gw.svc("browser", "screenshot", "--ref", del, "--filename", `shots-${tag}/delete.jpg`, "--json")).stdout)
      expect(named).toMatchObject({ path: path.join(root, `shots-${tag}`, "delete.jpg"), type: "jpeg" })
      expect([...fs.readFileSync(named.path).subarray(0, 2)]).toEqual([0xff, 0xd8])
      expect(named.height).toBeLessThan(100)

      const pdf = await gw.svc("browser", "pdf", "--filename", `shots-${tag}/page.pdf`)
      expect(pdf.stdout.trim()).toBe(`MEDIA:${path.join(root, `shots-${tag}`, "page.pdf")}`)
      expect(fs.readFileSync(path.join(root, `shots-${tag}`, "page.pdf")).subarray(0, 4).toString()).toBe("%PDF")

      // A taken name is refused in one line, the file left as it was; a name outside the root, before any work.
      const again = await gw.svc("browser", "screenshot", "--full-page", "--filename", `shots-${tag}/page.png`)
      expect(again.code).toBe(1)
      expect(again.stderr.trim()).toBe(`svc: ${page.path} already exists and is never overwritten; give another file name, or remove the old file first`)
      expect(fs.readFileSync(page.path).equals(before)).toBe(true)
      const outside = await gw.svc("browser", "pdf", "--filename", "../escaped.pdf")
      expect(outside.code).toBe(1)
      expect(outside.stderr).toContain(`leaves ${root}`)
      expect(fs.existsSync(path.join(root, "..", "escaped.pdf"))).toBe(false)
    } finally {
      fs.rmSync(path.join(root, `shots-${tag}`), { recursive: true, force: true })
    }
  })

  it("navigates and resizes", async () => {
    const nav = JSON.parse((await gw.svc("browser", "navigate", pages.url("/second"), "--json")).stdout)
    expect(nav).toMatchObject({ url: pages.url("/second"), title: "Second", status: 200 })
    expect((await gw.svc("browser", "resize", "800", "600")).code).toBe(0)
    const size = JSON.parse((await gw.svc("browser", "evaluate", "--json", "--fn", "() => [innerWidth, innerHeight]")).stdout).result
    expect(size).toEqual([800, 600])
  })

  it("keeps an efficient snapshot of a big page under its cap, with its interactive elements", async () => {
    await gw.svc("browser", "navigate", pages.url("/big"))
    const full = JSON.parse((await gw.svc("browser", "snapshot", "--json")).stdout)
    const eff = JSON.parse((await gw.svc("browser", "snapshot", "--efficient", "--json")).stdout)
    expect(eff.format).toBe("role")
    expect(eff.snapshot.length).toBeLessThanOrEqual(10_000)
    expect(eff.snapshot.length).toBeLessThan(full.snapshot.length / 3)
    expect(eff.snapshot).toContain('button "Action 0"')
    expect(eff.stats.interactive).toBeGreaterThan(0)
    const capped = JSON.parse((await gw.svc("browser", "snapshot", "--limit", "2000", "--json")).stdout)
    expect(capped.truncated).toBe(true)
    expect(capped.snapshot.length).toBeLessThanOrEqual(2300)
    expect(capped.snapshot).toMatch(/truncated/i)
  })

  it("draws ref labels on a screenshot with --labels", async () => {
    await fresh()
    const r = await gw.svc("browser", "snapshot", "--interactive", "--labels")
    const file = /^MEDIA:(.+\.png)$/m.exec(r.stdout)?.[1]
    expect(file).toBeDefined()
    expect(isPng(file!)).toBeDefined()
  })
})

describe("configured defaults", () => {
  it("applies snapshotDefaults.mode, and answers evaluate and wait --fn with 403 when evaluation is off", async () => {
    const pages = await servePages({ "/": "<!doctype html><title>x</title><p>x</p>" })
    const gw = await startGateway({
      config: {
        browser: {
          defaultProfile: "svc",
          evaluateEnabled: false,
          snapshotDefaults: { mode: "efficient" },
          profiles: { svc: { cdpPort: await freeCdpPort() } }
        }
      }
    })
    try {
      await gw.svc("browser", "open", pages.url("/"))
      // browser.snapshotDefaults.mode applies when the caller passes no format; an explicit one wins.
      const byDefault = JSON.parse((await gw.svc("browser", "snapshot", "--json")).stdout)
      expect(byDefault.format).toBe("role")
      const explicit = JSON.parse((await gw.svc("browser", "snapshot", "--format", "ai", "--json")).stdout)
      expect(explicit.format).toBe("ai")
      const e = await gw.svc("browser", "evaluate", "--fn", "() => 1")
      expect(e.code).not.toBe(0)
      expect(e.stderr).toContain("browser.evaluateEnabled")
      const w = await gw.svc("browser", "wait", "--fn", "() => true")
      expect(w.code).not.toBe(0)
      expect(w.stderr).toContain("browser.evaluateEnabled")
      const ok = await gw.svc("browser", "wait", "--text", "x")
      expect(ok.code).toBe(0)
    } finally {
      await gw.stop()
      await pages.close()
    }
  })
})
