import * as http from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freeCdpPort, type Gateway, servePages, startGateway, waitUntil } from "../support/gateway.js"

// Many clients on one tab at once (issue 12, item 5): requests on a tab wait their turn, so a click by a
// ref from a snapshot of a page that never changed is never answered "element changed" or "not found",
// however many other clients snapshot, click and screenshot the same tab meanwhile; and a page too busy
// to answer in time is reported as busy, not as changed.

const form = `<!doctype html><title>Busy form</title><h1>Order</h1>
<p><label>Name <input name="name"></label> <label>City <input name="city"></label></p>
<p><button type="button" onclick="count.textContent = +count.textContent + 1">Increment counter</button>
<button type="button">Reset</button></p><p>Clicks: <span id="count">0</span></p>`

const agent = new http.Agent({ keepAlive: true, maxSockets: 128 })

interface Answer {
  readonly status: number
  readonly json: any
}

const call = (gw: Gateway, method: string, path: string, body?: unknown) =>
  new Promise<Answer>((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body)
    const req = http.request(
      {
        host: "127.0.0.1",
        port: gw.controlPort,
        method,
        path,
        agent,
        headers: {
          authorization: `Bearer ${gw.token()}`,
          ...(data !== undefined ? { "content-type": "application/json" } : {})
        }
      },
      (res) => {
        let text = ""
        res.on("data", (d) => (text += d))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, json: text === "" ? undefined : JSON.parse(text) }))
      }
    )
    req.on("error", reject)
    req.end(data)
  })

const REF = /button "Increment counter"[^\n]*?\[ref=([^\]]+)\]/

describe("one tab under load", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>

  beforeAll(async () => {
    pages = await servePages({ "/form": form })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } } })
  }, 60_000)
  afterAll(async () => {
    agent.destroy()
    await gw?.stop()
    await pages?.close()
  })

  it("50 clients snapshotting, clicking by ref and screenshotting one tab: every request answered, every click counted once", async () => {
    const opened = await gw.svc("browser", "open", pages.url("/form"), "--json")
    expect(opened.code, opened.stderr).toBe(0)
    const targetId = JSON.parse(opened.stdout).targetId as string
    const failures: Array<string> = []
    let clicks = 0
    const until = Date.now() + 6_000
    const client = async () => {
      // Each client goes round at least once, then until the time is up.
      do {
        const snap = await call(gw, "GET", `/snapshot?profile=svc&format=ai&targetId=${targetId}`)
        if (snap.status !== 200) {
          failures.push(`snapshot ${snap.status} ${snap.json?.message}`)
          continue
        }
        const ref = REF.exec(snap.json.snapshot)?.[1]
        if (ref === undefined) {
          failures.push(`no ref in ${snap.json.snapshot}`)
          continue
        }
        const click = await call(gw, "POST", "/act?profile=svc", { kind: "click", ref, targetId })
        if (click.status === 200) clicks++
        else failures.push(`click ${ref}: ${click.status} ${click.json?.message}`)
        const shot = await call(gw, "POST", "/screenshot?profile=svc", { targetId })
        if (shot.status !== 200) failures.push(`screenshot ${shot.status} ${shot.json?.message}`)
      } while (Date.now() < until)
    }
    await Promise.all(Array.from({ length: 50 }, client))
    expect(failures.slice(0, 5)).toEqual([])
    expect(clicks).toBeGreaterThanOrEqual(50)
    const count = await call(gw, "POST", "/act?profile=svc", {
      kind: "evaluate",
      fn: "() => document.getElementById('count').textContent",
      targetId
    })
    expect(Number(count.json.result)).toBe(clicks)
  }, 180_000)

  it("a page too busy to answer is reported as busy, not as an element that changed; the ref works once it is free", async () => {
    // The page holds its main thread for 6 s once the test says go (it polls for it), after saying so.
    let go = false
    let started = 0
    const busyPage = `${form}<script>
      const poll = setInterval(async () => {
        if ((await (await fetch('/go')).text()) !== 'yes') return
        clearInterval(poll)
        await fetch('/started')
        const t = Date.now(); while (Date.now() - t < 6000) {}
      }, 50)
    </script>`
    const server = http.createServer((req, res) => {
      if (req.url === "/go") return void res.end(go ? "yes" : "no")
      if (req.url === "/started") return void (started = Date.now(), res.end("ok"))
      res.writeHead(200, { "content-type": "text/html" }).end(busyPage)
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    try {
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/busy`
      const opened = await gw.svc("browser", "open", url, "--json")
      const targetId = JSON.parse(opened.stdout).targetId as string
      const snap = await call(gw, "GET", `/snapshot?profile=svc&format=ai&targetId=${targetId}`)
      const ref = REF.exec(snap.json.snapshot)![1]!
      go = true
      await waitUntil(() => started > 0, 10_000)
      await new Promise((r) => setTimeout(r, 300))
      const t0 = Date.now()
      const click = await call(gw, "POST", "/act?profile=svc", { kind: "click", ref, targetId })
      expect(click.status, JSON.stringify(click.json)).toBe(503)
      expect(click.json._tag).toBe("BrowserUnavailable")
      expect(click.json.message).toMatch(/did not answer within \d+ ms \(it is busy/)
      expect(click.json.message).not.toMatch(/no longer matches|changed|removed/)
      expect(Date.now() - t0).toBeLessThan(5_000)
      // Once the script is done, the same ref clicks its button, once.
      let again: Answer
      do again = await call(gw, "POST", "/act?profile=svc", { kind: "click", ref, targetId })
      while (again.status === 503 && Date.now() - t0 < 30_000)
      expect(again.status, JSON.stringify(again.json)).toBe(200)
      const count = await call(gw, "POST", "/act?profile=svc", {
        kind: "evaluate",
        fn: "() => document.getElementById('count').textContent",
        targetId
      })
      expect(count.json.result).toBe("1")
    } finally {
      server.closeAllConnections()
      server.close()
    }
  }, 60_000)
})
