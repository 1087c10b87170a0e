import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launchTestChromium, type TestChromium } from "../support/chromium.js"
import { type CliResult, type Gateway, request, servePages, startGateway } from "../support/gateway.js"

// A remote browser that wants credentials: a loopback proxy in front of a real Chromium that lets a request
// through only with the right `Authorization: Basic` header or `?token=` (on /json/* and on the websocket
// upgrade alike), as hosted browsers and authenticating reverse proxies do. Profiles carry the secret in the
// userinfo of their cdpUrl, or in its query; every command works, and no output, answer or log shows it.

const USER = "agent"
const PASSWORD = "pw-5ecret-basic-91c"
const TOKEN = "tok-5ecret-query-4e7"
/** A password with characters a URL must escape (`@`, `:`, `%`, `#`) and one beyond ASCII. */
const SPECIAL = "p@ss:w0rd%5ecret#é"
const SECRETS = [PASSWORD, TOKEN, SPECIAL, "w0rd%5ecret", "w0rd%255ecret"]

/** What the proxy saw: requests it let through, by how they authenticated, and ones it refused. */
interface Seen {
  basicJson: number
  basicUpgrade: number
  specialJson: number
  specialUpgrade: number
  tokenJson: number
  tokenUpgrade: number
  refused: Array<string>
}

const authProxy = async (target: number) => {
  const seen: Seen = { basicJson: 0, basicUpgrade: 0, specialJson: 0, specialUpgrade: 0, tokenJson: 0, tokenUpgrade: 0, refused: [] }
  const basic = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString("base64")}`
  // As RFC 7617 asks: the user-pass in UTF-8, then base64.
  const special = `Basic ${Buffer.from(`${USER}:${SPECIAL}`, "utf8").toString("base64")}`
  /** How a request authenticated (and its path without the token), or undefined when it did not. */
  const check = (req: http.IncomingMessage) => {
    const u = new URL(req.url ?? "/", "http://proxy")
    const token = u.searchParams.get("token")
    u.searchParams.delete("token")
    const forward = `${u.pathname}${u.search}`
    if (req.headers.authorization === basic) return { how: "basic" as const, forward }
    if (req.headers.authorization === special) return { how: "special" as const, forward }
    if (token === TOKEN) return { how: "token" as const, forward }
    seen.refused.push(`${req.method} ${u.pathname} ${req.headers.upgrade ?? ""}`.trim())
    return undefined
  }
  const sockets = new Set<net.Socket>()
  const server = http.createServer((req, res) => {
    const ok = check(req)
    if (ok === undefined) {
      res.writeHead(401, { "www-authenticate": 'Basic realm="cdp"', "content-type": "text/plain" }).end("unauthorized")
      return
    }
    if (ok.how === "basic") seen.basicJson++
    else if (ok.how === "special") seen.specialJson++
    else seen.tokenJson++
    const headers = { ...req.headers }
    delete headers.authorization
    const upstream = http.request(
      { host: "127.0.0.1", port: target, method: req.method, path: ok.forward, headers },
      (up) => {
        const chunks: Array<Buffer> = []
        up.on("data", (c: Buffer) => chunks.push(c))
        up.on("end", () => {
          let body = Buffer.concat(chunks).toString("utf8")
          // A hosted browser advertises its websocket with the token the client came with.
          if (ok.how === "token") {
            body = body.replace(/"(wss?:\/\/[^"?]+)"/g, (_m, ws: string) => `"${ws}?token=${TOKEN}"`)
          }
          const h = { ...up.headers }
          delete h["content-length"]
          res.writeHead(up.statusCode ?? 502, h).end(body)
        })
      }
    )
    upstream.on("error", () => res.writeHead(502).end())
    req.pipe(upstream)
  })
  server.on("upgrade", (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    const ok = check(req)
    if (ok === undefined) {
      socket.end("HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"cdp\"\r\nContent-Length: 0\r\n\r\n")
      return
    }
    if (ok.how === "basic") seen.basicUpgrade++
    else if (ok.how === "special") seen.specialUpgrade++
    else seen.tokenUpgrade++
    sockets.add(socket)
    const upstream = net.connect({ host: "127.0.0.1", port: target }, () => {
      const lines = [`${req.method} ${ok.forward} HTTP/1.1`]
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        if (req.rawHeaders[i]!.toLowerCase() !== "authorization") lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`)
      }
      upstream.write(`${lines.join("\r\n")}\r\n\r\n`)
      if (head.length > 0) upstream.write(head)
      socket.pipe(upstream).pipe(socket)
    })
    const end = () => {
      sockets.delete(socket)
      socket.destroy()
      upstream.destroy()
    }
    socket.on("error", end)
    upstream.on("error", end)
    socket.on("close", end)
    upstream.on("close", end)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as net.AddressInfo).port
  return {
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        // Websockets left the server's bookkeeping at the upgrade: end them here.
        for (const s of sockets) s.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

const PAGE = `<!doctype html><title>Creds</title><h1>Remote page</h1>
<button onclick="this.textContent = 'Clicked ' + (Number(this.dataset.n = (Number(this.dataset.n || 0) + 1)))">Press me</button>`

describe("a remote browser behind credentials", () => {
  let chromium: TestChromium
  let proxy: Awaited<ReturnType<typeof authProxy>>
  let site: Awaited<ReturnType<typeof servePages>>
  let gw: Gateway
  /** Everything svc printed or answered in this suite, to look for the secrets in at the end. */
  const outputs: Array<string> = []

  const svc = async (...args: Array<string>): Promise<CliResult> => {
    const r = await gw.svc(...args)
    // The command line itself is the test's, not svc's output: name the command only.
    outputs.push(`$ svc ${args.slice(0, 2).join(" ")}\n${r.stdout}\n${r.stderr}`)
    return r
  }
  const ok = async (...args: Array<string>) => {
    const r = await svc(...args)
    expect(r.code, `svc ${args.join(" ")}: ${r.stderr}${r.stdout}`).toBe(0)
    return r.stdout
  }
  const http = async (method: string, pathname: string, body?: unknown) => {
    const r = await request(gw.controlPort, method, pathname, { authorization: `Bearer ${gw.token()}` }, body)
    outputs.push(`${method} ${pathname} → ${r.status}\n${r.body}`)
    return r
  }

  const expectNoSecret = (text: string, where: string) => {
    for (const secret of SECRETS) {
      expect(text.includes(secret), `${where} shows the secret ${secret}:\n${text}`).toBe(false)
      expect(text.includes(encodeURIComponent(secret)), where).toBe(false)
    }
  }

  beforeAll(async () => {
    chromium = await launchTestChromium()
    proxy = await authProxy(chromium.port)
    site = await servePages({ "/": PAGE })
    const base = `127.0.0.1:${proxy.port}`
    // The browser's own websocket, reached through the proxy: a cdpUrl may name it directly.
    const version = (await (await fetch(`${chromium.cdpUrl}/json/version`)).json()) as { webSocketDebuggerUrl: string }
    const wsPath = new URL(version.webSocketDebuggerUrl).pathname
    gw = await startGateway({
      config: {
        browser: {
          defaultProfile: "basic",
          profiles: {
            basic: { cdpUrl: `http://${USER}:${PASSWORD}@${base}` },
            tok: { cdpUrl: `http://${base}/?token=${TOKEN}` },
            // Every character escaped, and as a person may write it (`:` and `é` left raw, which URLs allow).
            special: { cdpUrl: `http://${USER}:${encodeURIComponent(SPECIAL)}@${base}` },
            "special-raw": { cdpUrl: `http://${USER}:p%40ss:w0rd%255ecret%23é@${base}` },
            "special-ws": { cdpUrl: `ws://${USER}:${encodeURIComponent(SPECIAL)}@${base}${wsPath}` },
            "wrong-ws": { cdpUrl: `ws://${USER}:p%40ss@${base}${wsPath}` },
            wrong: { cdpUrl: `http://${USER}:not-the-password@${base}` },
            none: { cdpUrl: `http://${base}` }
          }
        }
      }
    })
  })

  afterAll(async () => {
    await gw?.stop()
    await proxy?.close()
    // The browser first: its keep-alive connections to the page server would hold that server open.
    await chromium?.kill()
    await site?.close()
  })

  for (const profile of ["basic", "tok", "special", "special-raw", "special-ws"]) {
    it(`profile ${profile}: start, list, open, snapshot and click work, the secret shown nowhere`, async () => {
      const p = ["--browser-profile", profile]
      const started = JSON.parse(await ok("browser", "start", ...p, "--json"))
      expect(started.status).toMatchObject({ profile, driver: "remote", running: true })
      expect(started.status.cdpUrl).toContain("***")
      await ok("browser", "start", ...p)

      const status = JSON.parse(await ok("browser", "status", ...p, "--json"))
      expect(status).toMatchObject({ profile, running: true })
      expect(await ok("browser", "status", ...p)).toMatch(/running, cdp (http|ws):\/\/.*\*\*\*/)

      const listed = JSON.parse(await ok("browser", "profiles", "--json")).profiles
      expect(listed.find((x: { name: string }) => x.name === profile)).toMatchObject({ driver: "remote" })
      expect(await ok("browser", "profiles")).toContain(profile)

      const tab = JSON.parse(await ok("browser", "open", site.url("/"), ...p, "--json"))
      expect(tab.targetId).toMatch(/^[0-9A-F]{32}$/)
      await ok("browser", "open", site.url("/"), ...p)
      const tabs = JSON.parse(await ok("browser", "tabs", ...p, "--json")).tabs
      expect(tabs.some((t: { targetId: string }) => t.targetId === tab.targetId)).toBe(true)

      const focus = ["--target-id", tab.targetId]
      const snap = await ok("browser", "snapshot", ...p, ...focus)
      expect(snap).toContain('button "Press me"')
      const ref = /button "Press me" \[ref=([^\]]+)\]/.exec(snap)?.[1]
      expect(ref, snap).toBeDefined()
      await ok("browser", "click", ref!, ...p, ...focus)
      expect(await ok("browser", "snapshot", "--format", "aria", ...p, ...focus)).toContain('button "Clicked 1"')
    })
  }

  it("both forms reached the browser as the proxy wants them: Basic on /json and on the websocket, the token kept", () => {
    expect(proxy.seen.basicJson).toBeGreaterThan(0)
    expect(proxy.seen.basicUpgrade).toBeGreaterThan(0)
    expect(proxy.seen.tokenJson).toBeGreaterThan(0)
    expect(proxy.seen.tokenUpgrade).toBeGreaterThan(0)
  })

  it("a password with @ : % # and é reached the browser decoded, on /json and on the websocket", () => {
    expect(proxy.seen.specialJson).toBeGreaterThan(0)
    expect(proxy.seen.specialUpgrade).toBeGreaterThan(0)
    expect(proxy.seen.refused.filter((r) => r.includes("websocket"))).toEqual([])
  })

  it("wrong or missing credentials: the error says authentication failed, not that no browser answers", async () => {
    for (const profile of ["wrong", "wrong-ws", "none"]) {
      for (const args of [["browser", "start"], ["browser", "open", site.url("/")]]) {
        const r = await svc(...args, "--browser-profile", profile)
        expect(r.code, r.stdout).toBe(1)
        expect(r.stderr).toMatch(/^svc: .*authentication failed.*HTTP 401/)
        expect(r.stderr).not.toContain("no browser answers")
        expect(r.stderr).toContain(profile === "none" ? "Give the credentials in cdpUrl" : "Check the user and password in cdpUrl")
        const j = await svc(...args, "--browser-profile", profile, "--json")
        expect(JSON.parse(j.stdout).error).toMatchObject({ _tag: "BrowserUnavailable", status: 503 })
        expect(JSON.parse(j.stdout).error.message).toContain("authentication failed")
      }
    }
    const status = JSON.parse((await svc("browser", "status", "--browser-profile", "wrong", "--json")).stdout)
    expect(status).toMatchObject({ profile: "wrong", running: false })
  })

  it("the control API's answers hide the credentials", async () => {
    for (const profile of ["basic", "tok"]) {
      const status = await http("GET", `/?profile=${profile}`)
      expect(status.status).toBe(200)
      expect(status.json().cdpUrl).toContain("***")
      const start = await http("POST", `/start?profile=${profile}`)
      expect(start.status).toBe(200)
      const opened = await http("POST", `/tabs/open?profile=${profile}`, { url: site.url("/") })
      expect(opened.status).toBe(200)
    }
    const profiles = await http("GET", "/profiles")
    expect(profiles.status).toBe(200)
    const byName = Object.fromEntries(profiles.json().profiles.map((p: { name: string; cdpUrl: string }) => [p.name, p.cdpUrl]))
    expect(byName.basic).toBe(`http://${USER}:***@127.0.0.1:${proxy.port}`)
    expect(byName.tok).toBe(`http://127.0.0.1:${proxy.port}/?token=***`)
    const refused = await http("POST", "/tabs/open?profile=wrong", { url: site.url("/") })
    expect(refused.status).toBe(503)
    expect(refused.json().message).toContain("authentication failed")
  })

  it("config get and the echo of config set hide them; svc.json keeps the real values", async () => {
    const whole = await ok("config", "get")
    expect(JSON.parse(whole).browser.profiles.basic.cdpUrl).toBe(`http://${USER}:***@127.0.0.1:${proxy.port}`)
    expect(JSON.parse(await ok("config", "get", "browser.profiles.tok.cdpUrl"))).toBe(
      `http://127.0.0.1:${proxy.port}/?token=***`
    )
    expect(JSON.parse(await ok("config", "get", "browser.profiles.basic"))).toEqual({
      cdpUrl: `http://${USER}:***@127.0.0.1:${proxy.port}`
    })
    const set = await ok("config", "set", "browser.profiles.spare.cdpUrl", `https://${USER}:${PASSWORD}@cdp.example/b?apiKey=${TOKEN}`)
    expect(set).toContain(`https://${USER}:***@cdp.example/b?apiKey=***`)
    const refused = await svc("config", "set", "browser.profiles.spare.cdpUrl", `ftp://${USER}:${PASSWORD}@cdp.example/?token=${TOKEN}`)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/^svc: /)

    const saved = JSON.parse(fs.readFileSync(path.join(gw.stateDir, "svc.json"), "utf8"))
    expect(saved.browser.profiles.basic.cdpUrl).toBe(`http://${USER}:${PASSWORD}@127.0.0.1:${proxy.port}`)
    expect(saved.browser.profiles.spare.cdpUrl).toBe(`https://${USER}:${PASSWORD}@cdp.example/b?apiKey=${TOKEN}`)
  })

  it("no output, answer or gateway log line of this suite holds a secret", () => {
    expect(outputs.length).toBeGreaterThan(40)
    for (const o of outputs) expectNoSecret(o, o.split("\n")[0]!)
    expectNoSecret(gw.output(), "the gateway's log")
  })
})
