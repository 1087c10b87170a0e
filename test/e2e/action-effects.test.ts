import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freeCdpPort, type Gateway, request, startGateway } from "../support/gateway.js"
import { refOf } from "../support/refs.js"

// An action's answer says what happened because of it, through the real path (bin/svc → gateway →
// playwright → Chromium): the dialog it opened and how it was answered, the tab it opened, the file it
// downloaded, where the tab went; and, asked, the tab's snapshot after it in the same answer.

const NAME = `effects-${crypto.randomBytes(4).toString("hex")}.txt`
const CONTENT = `hello from ${NAME}\n`

const home = `<!doctype html><title>Effects</title>
<p id="out">nothing yet</p>
<button onclick="out.textContent = confirm('Delete the draft?') ? 'deleted' : 'kept'">Delete draft</button>
<button onclick="out.textContent = 'name: ' + prompt('Your name?', 'Ada')">Ask name</button>
<button onclick="setTimeout(() => out.textContent = 'later ' + confirm('Later?'), 300)">Ask later</button>
<a href="/other" target="_blank">Open in new tab</a>
<button onclick="window.open('/other')">Pop up</button>
<a href="/file">Get file</a>
<a href="/slow-file">Get slow file</a>
<a href="/other">Go to other</a>
<button onclick="history.pushState({}, '', '/moved'); document.title = 'Moved'">Move within</button>
<button onclick="count.textContent = String(Number(count.textContent) + 1)">Count up</button>
<p>Count: <span id="count">0</span></p>
<button onclick="out.textContent = 'plain'">Plain</button>
<form action="/other"><input name="q" aria-label="Search"></form>`

const other = `<!doctype html><title>Other page</title><h1>Other</h1>`

describe("an action's answer says what it caused", () => {
  let gw: Gateway
  let server: http.Server
  let origin = ""
  const saved: Array<string> = []

  const svcJson = async (...args: Array<string>) => {
    const r = await gw.svc(...args, "--json")
    expect(r.code, r.stderr + r.stdout).toBe(0)
    return JSON.parse(r.stdout)
  }
  const open = async () => {
    expect((await gw.svc("browser", "navigate", `${origin}/`)).code).toBe(0)
    return (await gw.svc("browser", "snapshot")).stdout
  }

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const p = (req.url ?? "/").split("?")[0]
      if (p === "/slow-file") {
        setTimeout(() => {
          res.writeHead(200, {
            "content-type": "application/octet-stream",
            "content-disposition": `attachment; filename="slow-${NAME}"`
          })
          res.end(CONTENT)
        }, 1_500)
        return
      }
      if (p === "/file") {
        res.writeHead(200, {
          "content-type": "application/octet-stream",
          "content-disposition": `attachment; filename="${NAME}"`
        })
        return res.end(CONTENT)
      }
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(
        p === "/other" ? other : p === "/greets" ? "<!doctype html><title>Greets</title><script>alert('Welcome')</script>" : home
      )
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } } })
    expect((await gw.svc("browser", "open", `${origin}/`)).code).toBe(0)
  }, 60_000)
  afterAll(async () => {
    await gw?.stop()
    await new Promise((r) => server?.close(r))
    for (const f of saved) fs.rmSync(f, { force: true })
  })

  it("a confirm() the click opened: its text and how it was answered, by default and as armed", async () => {
    const snap = await open()
    const ref = refOf(snap, /button "Delete draft"/)
    const r = await svcJson("browser", "click", ref)
    expect(r.dialogs).toEqual([{ type: "confirm", message: "Delete the draft?", answer: "dismissed", armed: false }])
    const human = await gw.svc("browser", "click", ref)
    expect(human.stdout).toContain(`clicked ${ref}`)
    expect(human.stdout).toContain('dialog: confirm "Delete the draft?" was dismissed')

    expect((await gw.svc("browser", "dialog", "--accept")).code).toBe(0)
    const accepted = await svcJson("browser", "click", ref)
    expect(accepted.dialogs).toEqual([{ type: "confirm", message: "Delete the draft?", answer: "accepted", armed: true }])
    expect((await svcJson("browser", "evaluate", "() => out.textContent")).result).toBe("deleted")

    const ask = refOf(snap, /button "Ask name"/)
    const prompted = await svcJson("browser", "click", ask)
    expect(prompted.dialogs).toEqual([{ type: "prompt", message: "Your name?", answer: "dismissed", armed: false }])
  }, 60_000)

  it("dialogs: hold keeps the dialog open: the page's requests get 409 until `svc browser dialog` answers it", async () => {
    const snap = await open()
    const auth = { authorization: `Bearer ${gw.token()}` }
    const clicked = await request(gw.controlPort, "POST", "/act", auth, {
      kind: "click",
      ref: refOf(snap, /button "Delete draft"/),
      dialogs: "hold"
    })
    expect(clicked.status, clicked.body).toBe(200)
    expect(clicked.json().dialogs).toEqual([{ type: "confirm", message: "Delete the draft?", answer: "open", armed: false }])
    const refused = await request(gw.controlPort, "POST", "/act", auth, { kind: "evaluate", fn: "() => out.textContent" })
    expect(refused.status).toBe(409)
    expect(refused.json()._tag).toBe("Conflict")
    expect(refused.json().message).toContain('confirm dialog ("Delete the draft?") is open')
    const cli = await gw.svc("browser", "snapshot")
    expect(cli.code).not.toBe(0)
    expect(cli.stderr).toContain("svc browser dialog --accept or --dismiss")
    // Web storage is read and written in the page: refused too, rather than waiting in the dialog.
    const stored = await request(gw.controlPort, "POST", "/storage/local/set", auth, { key: "k", value: "v" })
    expect(stored.status, stored.body).toBe(409)
    expect(stored.json().message).toContain('confirm dialog ("Delete the draft?") is open')
    const answered = await gw.svc("browser", "dialog", "--accept")
    expect(answered.code, answered.stderr).toBe(0)
    expect(answered.stdout).toContain('the confirm "Delete the draft?" that held up the tab was accepted')
    expect((await svcJson("browser", "evaluate", "() => out.textContent")).result).toBe("deleted")
    // A dialog the page opens by itself after an action that held its dialogs (from a timer): held too, and
    // the next request for the page is refused, naming it.
    const later = await request(gw.controlPort, "POST", "/act", auth, { kind: "click", ref: refOf(snap, /button "Ask later"/), dialogs: "hold" })
    expect(later.status, later.body).toBe(200)
    // (A snapshot: it reads the page, and unlike an action of its own does not change how dialogs are answered.)
    const look = () => request(gw.controlPort, "GET", "/snapshot", auth)
    const t0 = Date.now()
    let blocked = await look()
    while (blocked.status === 200 && Date.now() - t0 < 10_000) blocked = await look()
    expect(blocked.status, blocked.body).toBe(409)
    expect(blocked.json().message).toContain('confirm dialog ("Later?") is open')
    expect((await gw.svc("browser", "dialog", "--accept")).stdout).toContain('the confirm "Later?" that held up the tab was accepted')
    expect((await svcJson("browser", "evaluate", "() => out.textContent")).result).toBe("later true")
    // An action that does not hold its dialogs (the CLI's) ends that: the next dialog is answered by default.
    const r = await svcJson("browser", "click", refOf(snap, /button "Delete draft"/))
    expect(r.dialogs).toEqual([{ type: "confirm", message: "Delete the draft?", answer: "dismissed", armed: false }])
    await svcJson("browser", "click", refOf(snap, /button "Ask later"/))
    const t1 = Date.now()
    let out = ""
    while (out !== "later false" && Date.now() - t1 < 10_000) out = (await svcJson("browser", "evaluate", "() => out.textContent")).result
    expect(out).toBe("later false")
    // A navigation says which dialogs the page opened as it loaded.
    const nav = await gw.svc("browser", "navigate", `${origin}/greets`)
    expect(nav.code, nav.stderr).toBe(0)
    expect(nav.stdout).toContain('dialog: alert "Welcome" was accepted')
    expect((await svcJson("browser", "navigate", `${origin}/greets`)).dialogs).toEqual([
      { type: "alert", message: "Welcome", answer: "accepted", armed: false }
    ])
  }, 60_000)

  it("a target=_blank link and window.open: the new tab's targetId and index, as `tabs` lists it", async () => {
    const snap = await open()
    for (const pattern of [/link "Open in new tab"/, /button "Pop up"/]) {
      const r = await svcJson("browser", "click", refOf(snap, pattern))
      expect(r.newTabs).toHaveLength(1)
      const tab = r.newTabs[0]
      expect(tab.targetId).toMatch(/^[0-9A-F]{32}$/i)
      const listed = (await svcJson("browser", "tabs")).tabs.find((t: { targetId: string }) => t.targetId === tab.targetId)
      expect(listed).toBeDefined()
      expect(listed.index).toBe(tab.index)
      // The action stays on its own tab.
      expect(r.targetId).not.toBe(tab.targetId)
      expect(r.navigation).toBeUndefined()
    }
    const human = await gw.svc("browser", "click", refOf(snap, /link "Open in new tab"/))
    expect(human.stdout).toMatch(/new tab \[\d+\] [0-9A-F]{32}/i)
    expect(human.stdout).toContain("tab select")
  }, 60_000)

  it("a download link: the file is saved whole in the downloads root, a second one under a new name", async () => {
    const snap = await open()
    const ref = refOf(snap, /link "Get file"/)
    const first = await svcJson("browser", "click", ref)
    expect(first.downloads).toHaveLength(1)
    const d = first.downloads[0]
    saved.push(d.path)
    expect(path.basename(d.path)).toBe(NAME)
    expect(d.suggestedFilename).toBe(NAME)
    expect(d.bytes).toBe(Buffer.byteLength(CONTENT))
    expect(fs.readFileSync(d.path, "utf8")).toBe(CONTENT)
    expect(fs.statSync(d.path).mode & 0o777).toBe(0o600)
    // The load that became the download brought no document: the tab did not move.
    expect(first.navigation, JSON.stringify(first)).toBeUndefined()

    const second = await gw.svc("browser", "click", ref)
    expect(second.code).toBe(0)
    const again = /downloaded (.+) \(\d+ bytes\)/.exec(second.stdout)?.[1]
    expect(again, second.stdout).toBeDefined()
    saved.push(again!)
    expect(again).not.toBe(d.path)
    expect(path.dirname(again!)).toBe(path.dirname(d.path))
    expect(fs.readFileSync(again!, "utf8")).toBe(CONTENT)
    // The first file is untouched.
    expect(fs.readFileSync(d.path, "utf8")).toBe(CONTENT)

    // A server that takes its time: the answer waits for the load to become the download.
    const slow = await svcJson("browser", "click", refOf(snap, /link "Get slow file"/))
    expect(slow.downloads, JSON.stringify(slow)).toHaveLength(1)
    saved.push(slow.downloads[0].path)
    expect(path.basename(slow.downloads[0].path)).toBe(`slow-${NAME}`)
    expect(fs.readFileSync(slow.downloads[0].path, "utf8")).toBe(CONTENT)
    expect(slow.navigation, JSON.stringify(slow)).toBeUndefined()
  }, 60_000)

  it("navigating to a URL that answers with a file downloads it; the tab stays on its page, refs and all", async () => {
    const snap = await open()
    const r = await svcJson("browser", "navigate", `${origin}/file`)
    expect(r.url).toBe(`${origin}/`)
    expect(r.status).toBeNull()
    expect(r.downloads, JSON.stringify(r)).toHaveLength(1)
    saved.push(r.downloads[0].path)
    expect(r.downloads[0].suggestedFilename).toBe(NAME)
    expect(fs.readFileSync(r.downloads[0].path, "utf8")).toBe(CONTENT)
    // The page is the one it was: a ref from before the download still acts on it.
    expect((await gw.svc("browser", "click", refOf(snap, /button "Count up"/))).code).toBe(0)
    expect((await svcJson("browser", "evaluate", "() => count.textContent")).result).toBe("1")
    // Said in a line, for a person or a model.
    const human = await gw.svc("browser", "navigate", `${origin}/slow-file`)
    expect(human.code, human.stderr).toBe(0)
    const lines = human.stdout.trim().split("\n")
    expect(lines[0]).toBe(`${origin}/slow-file is a file: downloaded; the tab stays on ${origin}/`)
    const at = /^downloaded (.+) \(\d+ bytes\)$/.exec(lines[1] ?? "")?.[1]
    expect(at, human.stdout).toBeDefined()
    saved.push(at!)
    expect(fs.readFileSync(at!, "utf8")).toBe(CONTENT)

    // A `waitfordownload` already waiting takes the file; the navigation says so at once.
    const waitedName = `waited-${NAME}`
    const waiting = gw.svc("browser", "waitfordownload", waitedName, "--timeout", "15000", "--json")
    await new Promise((r) => setTimeout(r, 500))
    const t0 = Date.now()
    const handed = await svcJson("browser", "navigate", `${origin}/file`)
    expect(Date.now() - t0).toBeLessThan(4_000)
    expect(handed.downloads).toEqual([])
    const waited = await waiting
    expect(waited.code, waited.stderr).toBe(0)
    const waitedPath = JSON.parse(waited.stdout).path
    saved.push(waitedPath)
    expect(path.basename(waitedPath)).toBe(waitedName)
    expect(fs.readFileSync(waitedPath, "utf8")).toBe(CONTENT)

    // Opened in a new tab: the same, the new tab blank.
    const opened = await svcJson("browser", "open", `${origin}/file`)
    expect(opened.url).toBe("about:blank")
    expect(opened.downloads, JSON.stringify(opened)).toHaveLength(1)
    saved.push(opened.downloads[0].path)
    expect(fs.readFileSync(opened.downloads[0].path, "utf8")).toBe(CONTENT)
    const plain = await svcJson("browser", "open", `${origin}/other`)
    expect(plain).not.toHaveProperty("downloads")
    for (const t of [opened, plain]) expect((await gw.svc("browser", "close", t.targetId)).code).toBe(0)
    expect((await gw.svc("browser", "focus", (await svcJson("browser", "tabs")).tabs[0].targetId)).code).toBe(0)
  }, 60_000)

  it("a link to another page: the new URL and title; a pushState move says it stayed in the document", async () => {
    let snap = await open()
    const r = await svcJson("browser", "click", refOf(snap, /link "Go to other"/))
    expect(r.navigation).toEqual({ url: `${origin}/other`, title: "Other page" })
    const human = await gw.svc("browser", "back")
    expect(human.code).toBe(0)

    snap = await open()
    const moved = await svcJson("browser", "click", refOf(snap, /button "Move within"/))
    expect(moved.navigation).toEqual({ url: `${origin}/moved`, title: "Moved", sameDocument: true })
    snap = await open()
    const text = await gw.svc("browser", "click", refOf(snap, /link "Go to other"/))
    expect(text.stdout).toContain(`navigated to ${origin}/other: Other page`)

    // A form sent by Enter.
    snap = await open()
    const sent = await svcJson("browser", "type", refOf(snap, /textbox "Search"/), "cats", "--submit")
    expect(sent.navigation).toEqual({ url: `${origin}/other?q=cats`, title: "Other page" })
  }, 60_000)

  it("an action without side effects says nothing more; --snapshot returns the page after it in the same answer", async () => {
    const snap = await open()
    const plain = await svcJson("browser", "click", refOf(snap, /button "Plain"/))
    expect(Object.keys(plain).sort()).toEqual(["kind", "targetId", "url"])
    const human = await gw.svc("browser", "click", refOf(snap, /button "Plain"/))
    expect(human.stdout.trim()).toBe(`clicked ${refOf(snap, /button "Plain"/)} (${origin}/)`)

    const counted = await svcJson("browser", "click", refOf(snap, /button "Count up"/), "--snapshot")
    expect(counted.snapshot.snapshot).toMatch(/Count: 1|text: "?1"?/)
    expect(counted.snapshot.targetId).toBe(counted.targetId)
    // Its refs act, like any snapshot's.
    const again = await gw.svc("browser", "click", refOf(counted.snapshot.snapshot, /button "Count up"/), "--snapshot")
    expect(again.code).toBe(0)
    const lines = again.stdout.split("\n")
    expect(lines[0]).toMatch(/^clicked \d+/)
    expect(again.stdout).toMatch(/Count: 2|text: "?2"?/)
    expect(again.stdout).toContain('button "Count up"')
  }, 60_000)

  it("--diff after an action: only what changed since the tab's last snapshot, of the same kind; whole after a navigation", async () => {
    await open()
    const role = await gw.svc("browser", "snapshot", "--interactive")
    const count = refOf(role.stdout, /button "Count up"/)
    expect(count).toMatch(/^e\d+$/)
    const r = await svcJson("browser", "click", count, "--diff")
    expect(r.snapshot.diff).toMatchObject({ base: "previous" })
    expect(r.snapshot.snapshot.split("\n").length).toBeLessThan(8)
    expect(r.snapshot.format).toBe("role")

    // The AI kind, after an AI snapshot: the counter's new value is the change.
    const ai = (await gw.svc("browser", "snapshot")).stdout
    const human = await gw.svc("browser", "click", refOf(ai, /button "Count up"/), "--diff")
    expect(human.code, human.stderr).toBe(0)
    const lines = human.stdout.trim().split("\n")
    expect(lines.length).toBeLessThan(12)
    expect(human.stdout).toMatch(/diff since this tab's last snapshot/)
    expect(human.stdout).toMatch(/^\+ .*2/m)
    expect(human.stdout).not.toContain("Open in new tab")

    const moved = await svcJson("browser", "click", refOf(ai, /link "Go to other"/), "--diff")
    expect(moved.navigation.url).toBe(`${origin}/other`)
    expect(moved.snapshot.diff).toMatchObject({ base: "navigated", whole: true })
    expect(moved.snapshot.snapshot).toContain("Other")
  }, 60_000)
})
