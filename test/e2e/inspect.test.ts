import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freeCdpPort, type Gateway, request, startGateway } from "../support/gateway.js"

// Issue 4 through the real path (bin/svc → gateway → Chromium), against a test server on loopback.
// Files go to the real roots under /tmp/svc (or the fallback the gateway chose), with unique names.

const run = crypto.randomBytes(4).toString("hex")
const payload = crypto.randomBytes(50_000)

const pages: Record<string, string> = {
  "/logs": `<!doctype html><title>Logs</title><h1>Logs</h1><script>
    console.debug("dbg line"); console.log("log line"); console.warn("warn line"); console.error("error line");
    fetch("/api/data?x=1").then((r) => r.json()).then((j) => console.log("got " + j.items.length));
    fetch("/missing");
    setTimeout(() => { throw new Error("boom " + location.pathname) }, 50)
  </script>`,
  "/files": `<!doctype html><title>Files</title>
    <a href="/download" id="dl">Get the report</a>
    <button id="pick" onclick="document.getElementById('f').click()">Choose file</button>
    <input type="file" id="f" aria-label="File input" onchange="out.textContent = this.files[0].name + ':' + this.files[0].size">
    <p id="out">none</p>`,
  "/dialogs": `<!doctype html><title>Dialogs</title>
    <button onclick="out.textContent = 'answer ' + prompt('Your name?', 'x')">Ask</button>
    <button onclick="alert('hello')">Alert</button>
    <p id="out">none</p>`,
  "/state": `<!doctype html><meta name="viewport" content="width=device-width"><title>State</title><p>state</p>`
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://x")
  if (url.pathname === "/api/data") {
    res.writeHead(200, { "content-type": "application/json" })
    res.end(JSON.stringify({ items: Array.from({ length: 500 }, (_, i) => ({ id: i, name: `item ${i}` })) }))
    return
  }
  if (url.pathname === "/api/save") {
    res.writeHead(201, { "content-type": "application/json", "x-saved-by": "test-server" })
    res.end("{}")
    return
  }
  if (url.pathname === "/download") {
    res.writeHead(200, { "content-type": "application/octet-stream", "content-disposition": 'attachment; filename="report.bin"' })
    res.end(payload)
    return
  }
  if (url.pathname === "/echo") {
    res.writeHead(200, { "content-type": "text/html" })
    res.end(`<!doctype html><title>Echo</title><pre id="h">${JSON.stringify(req.headers)}</pre>`)
    return
  }
  if (url.pathname === "/auth") {
    const ok = req.headers.authorization === `Basic ${Buffer.from("ada:lovelace").toString("base64")}`
    res.writeHead(ok ? 200 : 401, ok ? { "content-type": "text/html" } : { "www-authenticate": 'Basic realm="t"' })
    res.end(ok ? "<!doctype html><title>In</title><p>welcome</p>" : "no")
    return
  }
  const page = pages[url.pathname]
  res.writeHead(page === undefined ? 404 : 200, { "content-type": "text/html" })
  res.end(page ?? "not found")
})

describe("inspection, files and state through the gateway", () => {
  let gw: Gateway
  let base: string
  const url = (p: string) => `${base}${p}`
  const svc = (...args: Array<string>) => gw.svc(...args)
  const json = async (...args: Array<string>) => {
    const r = await svc(...args, "--json")
    if (r.code !== 0) throw new Error(`svc ${args.join(" ")}: ${r.stderr}${r.stdout}`)
    return JSON.parse(r.stdout)
  }
  const evaluate = async (fn: string) => (await json("browser", "evaluate", "--fn", fn)).result
  /** `json(...args)` read again until `done` holds (what a tab does reaches the gateway a moment later), 10 s at most. */
  const jsonWhen = async (done: (j: any) => boolean, ...args: Array<string>) => {
    let j = await json(...args)
    for (const t0 = Date.now(); !done(j) && Date.now() - t0 < 10_000;) {
      await new Promise((r) => setTimeout(r, 100))
      j = await json(...args)
    }
    return j
  }

  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } } })
  })
  afterAll(async () => {
    await gw?.stop()
    await new Promise((r) => server.close(r))
  })

  it("captures console (by level), page errors and requests from the tab's first line", async () => {
    await svc("browser", "open", url("/logs"))
    await svc("browser", "wait", "--text", "Logs")
    // The page's last console line (after its fetch), its error (a timer) and its requests' ends come after the
    // load: read until they are there, not after a fixed pause (too short for them on a loaded machine).
    const all = await jsonWhen((j) => j.entries.some((e: { text: string }) => e.text === "got 500"), "browser", "console")
    const texts = all.entries.map((e: { text: string }) => e.text)
    expect(texts).toEqual(expect.arrayContaining(["dbg line", "log line", "warn line", "error line", "got 500"]))
    const errorsOnly = await json("browser", "console", "--level", "warning")
    expect(errorsOnly.entries.map((e: { level: string }) => e.level).every((l: string) => l === "warning" || l === "error")).toBe(true)
    expect(errorsOnly.entries.map((e: { text: string }) => e.text)).toContain("warn line")

    const errs = await jsonWhen((j) => j.entries.some((e: { message: string }) => e.message === "boom /logs"), "browser", "errors")
    expect(errs.entries.map((e: { message: string }) => e.message)).toContain("boom /logs")
    await svc("browser", "errors", "--clear")
    expect((await json("browser", "errors")).entries).toEqual([])

    const settled = (j: { entries: Array<{ state: string }> }) => j.entries.length > 0 && j.entries.every((e) => e.state !== "pending")
    const reqs = await jsonWhen(settled, "browser", "requests", "--filter", "/api/")
    expect(reqs.entries).toHaveLength(1)
    expect(reqs.entries[0]).toMatchObject({ method: "GET", url: url("/api/data?x=1"), status: 200, state: "finished" })
    const missing = (await jsonWhen(settled, "browser", "requests", "--filter", "missing")).entries
    expect(missing[0]).toMatchObject({ status: 404 })
    // The tab's own document request is there too: the tab was observed before it loaded.
    const documents = (await json("browser", "requests", "--filter", "/logs")).entries
    expect(documents[0]).toMatchObject({ url: url("/logs"), resourceType: "document", status: 200 })
    const human = await svc("browser", "requests")
    expect(human.stdout).toMatch(/GET 200 .*\/api\/data\?x=1/)
  })

  it("shows one request in full: its headers both ways and what it posted", async () => {
    await svc("browser", "evaluate", "--fn",
      "() => fetch('/api/save', { method: 'POST', headers: { 'content-type': 'application/json', 'x-probe': 'yes' }, body: '{\"name\":\"ada\"}' }).then((r) => r.status)")
    const settled = (j: { entries: Array<{ state: string }> }) => j.entries.length > 0 && j.entries.every((e) => e.state !== "pending")
    const [entry] = (await jsonWhen(settled, "browser", "requests", "--filter", "/api/save")).entries
    expect((await svc("browser", "requests", "--filter", "/api/save")).stdout).toMatch(new RegExp(`^POST 201 .*/api/save \\d+ ms #${entry.seq}$`, "m"))
    const human = await svc("browser", "request", String(entry.seq))
    expect(human.code, human.stderr).toBe(0)
    const lines = human.stdout.trim().split("\n")
    expect(lines[0]).toMatch(new RegExp(`^#${entry.seq} POST ${url("/api/save").replace(/[.?]/g, "\\$&")} => 201 \\(fetch, \\d+ ms\\)$`))
    expect(lines).toContain("  x-probe: yes")
    expect(lines.slice(lines.indexOf("posted data:"))[1]).toBe('{"name":"ada"}')
    expect(lines.slice(lines.indexOf("response headers:"))).toContain("  x-saved-by: test-server")
    const detail = await json("browser", "request", String(entry.seq))
    expect(detail).toMatchObject({ seq: entry.seq, method: "POST", status: 201, postData: '{"name":"ada"}' })
    expect(detail.requestHeaders["x-probe"]).toBe("yes")
    expect(detail.responseHeaders["x-saved-by"]).toBe("test-server")
    // Static resources that loaded fine can be left out; a broken one never is.
    await svc("browser", "evaluate", "--fn",
      "() => { for (const src of ['/state?img=1', '/nothing-here.png']) { const i = new Image(); i.src = src; document.body.append(i) } return 1 }")
    const images = (j: { entries: Array<{ url: string; state: string }> }) =>
      j.entries.filter((e) => /img=1|nothing-here/.test(e.url)).length === 2 && settled(j)
    const all = (await jsonWhen(images, "browser", "requests", "--filter", "img=1|nothing-here")).entries
    expect(all.map((e: { resourceType: string }) => e.resourceType)).toEqual(["image", "image"])
    const lean = (await json("browser", "requests", "--filter", "img=1|nothing-here", "--no-static")).entries
    expect(lean.map((e: { url: string; status: number }) => [e.url, e.status])).toEqual([[url("/nothing-here.png"), 404]])
    const none = await svc("browser", "request", "999999")
    expect(none.code).not.toBe(0)
    expect(none.stderr).toContain("no request #999999 in this tab's log")
  })

  it("returns a response body, cut to --max-chars with a marker", async () => {
    const full = await json("browser", "responsebody", "**/api/data*")
    expect(JSON.parse(full.body).items).toHaveLength(500)
    expect(full.truncated).toBe(false)
    const cut = await json("browser", "responsebody", "**/api/data*", "--max-chars", "100")
    expect(cut.truncated).toBe(true)
    expect(cut.body.startsWith(full.body.slice(0, 100))).toBe(true)
    expect(cut.body).toContain("[truncated: 100 of")
    const none = await svc("browser", "responsebody", "**/nothing-like-this", "--timeout", "200")
    expect(none.code).not.toBe(0)
    // By the request's #n instead of its URL.
    const seq = (await json("browser", "requests", "--filter", "api/data")).entries.at(-1).seq
    expect((await json("browser", "responsebody", "--seq", String(seq))).body).toBe(full.body)
    const both = await svc("browser", "responsebody", "**/api/data*", "--seq", String(seq))
    expect(both.code).toBe(1)
    expect(both.stderr).toContain("give url (a glob of the URL: the latest response from it) or seq")
  })

  it("records a trace and prints TRACE:<path>", async () => {
    expect((await svc("browser", "trace", "start")).code).toBe(0)
    const again = await svc("browser", "trace", "start")
    expect(again.code).not.toBe(0)
    await svc("browser", "navigate", url("/state"))
    const stop = await svc("browser", "trace", "stop")
    const file = /^TRACE:(.+\.zip)$/m.exec(stop.stdout)?.[1]
    expect(file).toBeDefined()
    expect(fs.readFileSync(file!).subarray(0, 2).toString()).toBe("PK")
    expect(fs.statSync(file!).mode & 0o777).toBe(0o600)
    expect((await svc("browser", "trace", "stop")).code).not.toBe(0)
  })

  it("saves a real download inside the downloads root, and refuses names that leave it", async () => {
    await svc("browser", "navigate", url("/files"))
    const snap = (await svc("browser", "snapshot")).stdout
    const link = /link "Get the report" \[ref=([^\]]+)\]/.exec(snap)![1]!
    const name = `report-${run}.bin`
    const saved = await json("browser", "download", link, name)
    expect(path.basename(saved.path)).toBe(name)
    expect(saved.suggestedFilename).toBe("report.bin")
    expect(fs.readFileSync(saved.path).equals(payload)).toBe(true)
    const root = path.dirname(saved.path)
    const again = await svc("browser", "download", link, name)
    expect(again.code).not.toBe(0)

    // Each escape is refused with 400 before anything is clicked or written.
    const outside = fs.mkdtempSync(path.join("/tmp", "svc-outside-"))
    fs.symlinkSync(outside, path.join(root, `out-${run}`))
    for (const bad of ["../escape.bin", `/etc/escape-${run}.bin`, `out-${run}/escape.bin`, "bad\u0007name.bin", ""]) {
      const r = await request(gw.controlPort, "POST", "/download", {
        host: `127.0.0.1:${gw.controlPort}`,
        authorization: `Bearer ${gw.token()}`
      }, { ref: link, filename: bad })
      expect(r.status, JSON.stringify(bad)).toBe(400)
      expect(typeof r.json().message).toBe("string")
    }
    expect(fs.readdirSync(outside)).toEqual([])
    expect(fs.existsSync(`/etc/escape-${run}.bin`)).toBe(false)
    fs.rmSync(path.join(root, `out-${run}`))
  })

  it("uploads through a real file chooser, and only from the uploads root", async () => {
    await svc("browser", "navigate", url("/files"))
    const saved = await json("browser", "download", /link "Get the report" \[ref=([^\]]+)\]/.exec((await svc("browser", "snapshot")).stdout)![1]!, `for-upload-${run}.bin`)
    const uploads = path.join(path.dirname(path.dirname(saved.path)), "uploads")
    const file = path.join(uploads, `hello-${run}.txt`)
    fs.writeFileSync(file, "hello upload")
    const armed = await svc("browser", "upload", file)
    expect(armed.code).toBe(0)
    const snap = (await svc("browser", "snapshot")).stdout
    await svc("browser", "click", /button "Choose file" \[ref=([^\]]+)\]/.exec(snap)![1]!)
    await svc("browser", "wait", "--text", `hello-${run}.txt`, "--timeout", "5000")
    expect(await evaluate("() => document.getElementById('out').textContent")).toBe(`hello-${run}.txt:12`)

    const outside = await svc("browser", "upload", "/etc/hostname")
    expect(outside.code).not.toBe(0)
    expect(outside.stderr).toContain("uploads")
    const link = path.join(uploads, `link-${run}.txt`)
    fs.symlinkSync("/etc/hostname", link)
    const viaLink = await svc("browser", "upload", link)
    expect(viaLink.code).not.toBe(0)
    fs.rmSync(link)

    const direct = await svc("browser", "upload", file, "--element", "#f")
    expect(direct.code).toBe(0)
    expect(await evaluate("() => document.getElementById('f').files[0].name")).toBe(`hello-${run}.txt`)

    const second = path.join(uploads, `second-${run}.txt`)
    fs.writeFileSync(second, "second file")
    const inputRef = /"File input"[^\n]*\[ref=([^\]]+)\]/.exec((await svc("browser", "snapshot")).stdout)![1]!
    const byRef = await svc("browser", "upload", second, "--input-ref", inputRef)
    expect(byRef.code).toBe(0)
    expect(await evaluate("() => document.getElementById('f').files[0].name")).toBe(`second-${run}.txt`)

    // Clicked first, then given the files: the chooser the click opened takes them.
    const third = path.join(uploads, `third-${run}.txt`)
    fs.writeFileSync(third, "3")
    const clicked = await svc("browser", "click", /button "Choose file"[^\n]*\[ref=([^\]]+)\]/.exec((await svc("browser", "snapshot")).stdout)![1]!)
    expect(clicked.stdout).toContain("file chooser opened")
    const given = await svc("browser", "upload", third)
    expect(given.code, given.stderr).toBe(0)
    expect(given.stdout).toContain("the file chooser the page opened")
    await svc("browser", "wait", "--text", `third-${run}.txt`, "--timeout", "5000")
    expect(await evaluate("() => document.getElementById('out').textContent")).toBe(`third-${run}.txt:1`)
  })

  it("answers an armed prompt with text, and an unarmed dialog does not wedge the tab", async () => {
    await svc("browser", "navigate", url("/dialogs"))
    const snap = (await svc("browser", "snapshot")).stdout
    expect((await svc("browser", "dialog", "--accept", "--prompt-text", "Ada")).code).toBe(0)
    await svc("browser", "click", /button "Ask" \[ref=([^\]]+)\]/.exec(snap)![1]!)
    expect(await evaluate("() => document.getElementById('out').textContent")).toBe("answer Ada")

    const t0 = performance.now()
    const alert = await svc("browser", "click", /button "Alert" \[ref=([^\]]+)\]/.exec(snap)![1]!)
    expect(alert.code).toBe(0)
    expect(await evaluate("() => document.title")).toBe("Dialogs")
    expect(performance.now() - t0).toBeLessThan(5000)
    const errs = await json("browser", "errors")
    expect(errs.dialogs).toEqual([expect.objectContaining({ type: "alert", message: "hello", answer: "accepted", armed: false })])

    // Answered after the action (as with Playwright MCP): the arming says that dialog was answered already.
    const late = await svc("browser", "dialog", "--dismiss")
    expect(late.code).toBe(0)
    expect(late.stdout).toContain('the alert "hello" the last action opened was already accepted by default')
    expect(late.stdout).toContain("repeat that action")
    const again = await svc("browser", "dialog", "--dismiss")
    expect(again.stdout).not.toContain("already")
  })

  it("sets, reads and clears cookies and storage", async () => {
    await svc("browser", "navigate", url("/state"))
    expect((await svc("browser", "cookies", "set", "flavour", "oat", "--url", url("/"))).code).toBe(0)
    const cookies = await json("browser", "cookies")
    expect(cookies.cookies).toEqual([expect.objectContaining({ name: "flavour", value: "oat", domain: "127.0.0.1" })])
    expect(await evaluate("() => document.cookie")).toBe("flavour=oat")
    await svc("browser", "cookies", "clear")
    expect((await json("browser", "cookies")).cookies).toEqual([])

    for (const kind of ["local", "session"]) {
      expect((await svc("browser", "storage", kind, "set", "k", `v-${kind}`)).code).toBe(0)
      expect((await json("browser", "storage", kind, "get")).entries).toEqual({ k: `v-${kind}` })
      expect(await evaluate(`() => ${kind}Storage.getItem("k")`)).toBe(`v-${kind}`)
      await svc("browser", "storage", kind, "clear")
      expect((await json("browser", "storage", kind)).entries).toEqual({})
    }
    const bad = await request(gw.controlPort, "GET", "/storage/cookie", {
      host: `127.0.0.1:${gw.controlPort}`,
      authorization: `Bearer ${gw.token()}`
    })
    expect(bad.status).toBe(400)
  })

  it("applies each setting, read back from the page", async () => {
    await svc("browser", "navigate", url("/state"))
    await svc("browser", "set", "offline", "on")
    expect(await evaluate("() => navigator.onLine")).toBe(false)
    await svc("browser", "set", "offline", "off")
    expect(await evaluate("() => navigator.onLine")).toBe(true)

    await svc("browser", "set", "headers", "--headers-json", '{"X-Svc-Test":"one"}')
    await svc("browser", "navigate", url("/echo"))
    expect(JSON.parse(await evaluate("() => document.getElementById('h').textContent"))["x-svc-test"]).toBe("one")
    // The global --json works here too: the headers have their own option.
    expect(await json("browser", "set", "headers", "--headers-json", '{"X-Svc-Test":"two"}')).toEqual({
      targetId: expect.any(String),
      done: expect.any(String)
    })
    await svc("browser", "navigate", url("/echo"))
    expect(JSON.parse(await evaluate("() => document.getElementById('h').textContent"))["x-svc-test"]).toBe("two")
    await svc("browser", "set", "headers", "--headers-json", "{}")

    await svc("browser", "set", "credentials", "ada", "lovelace")
    const nav = await json("browser", "navigate", url("/auth"))
    expect(nav.status).toBe(200)
    expect(await evaluate("() => document.body.textContent")).toContain("welcome")
    // Credentials for one origin only: another site (localhost: the browser has none cached for it) is refused.
    const other = url("/auth").replace("127.0.0.1", "localhost")
    expect((await svc("browser", "set", "credentials", "ada", "lovelace", "--origin", base)).stdout.trim())
      .toBe(`HTTP credentials set for ada on ${base} (every tab of the profile)`)
    const refused = await svc("browser", "navigate", other)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain("net::ERR_INVALID_AUTH_CREDENTIALS (the site asks for HTTP credentials and none were given for it")
    await svc("browser", "set", "credentials", "ada", "lovelace", "--origin", new URL(other).origin)
    expect((await json("browser", "navigate", other)).status).toBe(200)

    await svc("browser", "navigate", url("/state"))
    await svc("browser", "set", "geolocation", "48.8584", "2.2945", "--origin", base)
    const pos = await evaluate(
      "() => new Promise((ok, ko) => navigator.geolocation.getCurrentPosition((p) => ok([p.coords.latitude, p.coords.longitude]), (e) => ko(e.message)))"
    )
    expect(pos).toEqual([48.8584, 2.2945])

    await svc("browser", "set", "media", "dark")
    expect(await evaluate("() => matchMedia('(prefers-color-scheme: dark)').matches")).toBe(true)
    await svc("browser", "set", "media", "light")
    expect(await evaluate("() => matchMedia('(prefers-color-scheme: light)').matches")).toBe(true)
    // Other media features, the colour scheme kept; none gives one back.
    const print = await svc("browser", "set", "media", "--type", "print", "--reduced-motion", "reduce")
    expect(print.stdout.trim()).toBe("prefers-reduced-motion reduce, media type print (this tab)")
    expect(await evaluate("() => [matchMedia('print').matches, matchMedia('(prefers-reduced-motion: reduce)').matches, matchMedia('(prefers-color-scheme: light)').matches]"))
      .toEqual([true, true, true])
    expect((await svc("browser", "set", "media", "--type", "none")).stdout.trim()).toBe("media type as the browser has it (this tab)")
    expect(await evaluate("() => [matchMedia('print').matches, matchMedia('(prefers-reduced-motion: reduce)').matches]")).toEqual([false, true])
    const nothing = await svc("browser", "set", "media")
    expect(nothing.code).not.toBe(0)
    expect(nothing.stderr).toContain("set media: give what to emulate")

    await svc("browser", "set", "timezone", "Asia/Tokyo")
    expect(await evaluate("() => Intl.DateTimeFormat().resolvedOptions().timeZone")).toBe("Asia/Tokyo")
    const badZone = await svc("browser", "set", "timezone", "Mars/Olympus")
    expect(badZone.code).not.toBe(0)

    await svc("browser", "set", "locale", "fr-FR")
    expect(await evaluate("() => Intl.DateTimeFormat().resolvedOptions().locale")).toBe("fr-FR")

    await svc("browser", "set", "device", "iPhone 13")
    const ua = await evaluate("() => [navigator.userAgent, screen.width]")
    expect(ua[0]).toContain("iPhone")
    expect(ua[1]).toBe(390)
    const unknown = await svc("browser", "set", "device", "Nokia 3310 Ultra")
    expect(unknown.code).not.toBe(0)
    expect(unknown.stderr).toMatch(/device/i)

    await svc("browser", "set", "viewport", "640", "480")
    expect(await evaluate("() => [innerWidth, innerHeight]")).toEqual([640, 480])
  })
})
