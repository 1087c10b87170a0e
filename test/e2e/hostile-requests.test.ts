import { HttpApi } from "@effect/platform"
import * as fs from "node:fs"
import * as http from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ControlApi } from "../../src/api/ControlApi.js"
import { freeCdpPort, type Gateway, pidAlive, request, startGateway } from "../support/gateway.js"

// Bad input at every route of the control API, walked from the API's own definition (a route added later
// is walked too): every answer is JSON {_tag, message}, never a 500, and the gateway stays up. Bodies over
// the cap are refused before they are read; unknown routes say so.

interface Route {
  readonly method: string
  readonly path: string
}

const routes: Array<Route> = []
HttpApi.reflect(ControlApi, {
  onGroup: () => undefined,
  onEndpoint: ({ endpoint }) => void routes.push({ method: endpoint.method, path: endpoint.path })
})

const BAD_BODIES: ReadonlyArray<string | undefined> = [
  undefined,
  "",
  "{not json",
  "[]",
  "\"text\"",
  "null",
  "{}",
  JSON.stringify({ kind: 42, url: 5, ref: [], targetId: { $gt: "" }, name: "../../etc", fields: "x" }),
  JSON.stringify({ kind: "click", ref: "1".repeat(10_000), targetId: "\u0000" }),
  JSON.stringify({ url: "javascript:alert(1)", width: -1, height: 1e308, accept: "yes" })
]

const BAD_PARAMS = ["x", "..", "%00", "%E2%80%AE", "a".repeat(300)]

const fill = (path: string, value: string) => path.replace(/:[A-Za-z]+/g, value)

describe("hostile requests to the control API", () => {
  let gw: Gateway
  const auth = () => ({ authorization: `Bearer ${gw.token()}` })

  beforeAll(async () => {
    // No browser to reach (the relay is not connected): a request that passes validation fails fast.
    gw = await startGateway({ config: { browser: { defaultProfile: "relay" } } })
  }, 60_000)
  afterAll(async () => {
    await gw?.stop()
  })

  it("walks every route with bad bodies and bad parameters: JSON {_tag, message}, never a 500", async () => {
    expect(routes.length).toBeGreaterThan(30)
    const seen: Array<string> = []
    for (const route of routes) {
      const paths = route.path.includes(":") ? BAD_PARAMS.map((p) => fill(route.path, p)) : [route.path, `${route.path}?targetId=%00&limit=-1&profile=..&format=zzz`]
      for (const path of paths) {
        const bodies = route.method === "GET" || route.method === "DELETE" ? [undefined] : BAD_BODIES
        for (const body of bodies) {
          const r = await new Promise<{ status: number; text: string }>((resolve, reject) => {
            const req = http.request(
              {
                host: "127.0.0.1",
                port: gw.controlPort,
                method: route.method,
                path,
                headers: { ...auth(), ...(body !== undefined ? { "content-type": "application/json" } : {}) }
              },
              (res) => {
                let text = ""
                res.on("data", (d) => (text += d))
                res.on("end", () => resolve({ status: res.statusCode ?? 0, text }))
              }
            )
            req.on("error", reject)
            req.end(body)
          })
          const what = `${route.method} ${path.slice(0, 80)} ${String(body).slice(0, 60)} → ${r.status} ${r.text.slice(0, 200)}`
          expect(r.status, what).not.toBe(500)
          if (r.status >= 400) {
            const json = JSON.parse(r.text) as { _tag?: unknown; message?: unknown }
            expect(typeof json._tag, what).toBe("string")
            expect(typeof json.message, what).toBe("string")
            expect((json.message as string).length, what).toBeGreaterThan(0)
          }
          seen.push(what)
        }
      }
    }
    expect(pidAlive(gw.process.pid!)).toBe(true)
    expect((await gw.svc("status")).code).toBe(0)
    console.log(`walked ${routes.length} routes with ${seen.length} bad requests`)
  }, 300_000)

  it("an unknown route is a 404 saying so", async () => {
    for (const [method, path] of [["GET", "/nope"], ["POST", "/act/extra"], ["DELETE", "/"]] as const) {
      const r = await request(gw.controlPort, method, path, auth())
      expect(r.status).toBe(404)
      expect(r.json()).toMatchObject({ _tag: "NotFound", message: expect.stringContaining(path) })
    }
  })

  it("a body over the cap is refused before it is read, and the gateway does not grow", async () => {
    const rssOf = (pid: number) => {
      try {
        return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024
      } catch {
        return 0
      }
    }
    const before = rssOf(gw.process.pid!)
    const big = 64 * 1024 * 1024
    const declared = await new Promise<{ status: number; text: string }>((resolve) => {
      const req = http.request(
        {
          host: "127.0.0.1",
          port: gw.controlPort,
          method: "POST",
          path: "/act",
          headers: { ...auth(), "content-type": "application/json", "content-length": String(big) }
        },
        (res) => {
          let text = ""
          res.on("data", (d) => (text += d))
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text }))
        }
      )
      req.on("error", () => undefined)
      req.write("{")
    })
    expect(declared.status).toBe(413)
    expect(JSON.parse(declared.text)).toMatchObject({ _tag: "PayloadTooLarge" })

    // Chunked (no length): cut as it is read; the client sees a refusal or a closed connection, never a 200.
    const chunked = await new Promise<number | "closed">((resolve) => {
      const req = http.request(
        { host: "127.0.0.1", port: gw.controlPort, method: "POST", path: "/act", headers: { ...auth(), "content-type": "application/json" } },
        (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        }
      )
      req.on("error", () => resolve("closed"))
      const chunk = Buffer.alloc(256 * 1024, 0x20)
      let sent = 0
      const pump = () => {
        while (sent < big) {
          sent += chunk.length
          if (!req.write(chunk)) return void req.once("drain", pump)
        }
        req.end()
      }
      req.write('{"kind":"click","ref":"1","pad":"')
      pump()
    })
    expect(chunked === "closed" || (chunked >= 400 && chunked < 500)).toBe(true)
    expect(pidAlive(gw.process.pid!)).toBe(true)
    const after = rssOf(gw.process.pid!)
    if (before > 0) expect(after - before).toBeLessThan(48 * 1024 * 1024)
    expect((await gw.svc("status")).code).toBe(0)
  }, 60_000)
})

describe("hostile values with a browser", () => {
  let gw: Gateway

  beforeAll(async () => {
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } } })
    expect((await gw.svc("browser", "open", "about:blank")).code).toBe(0)
  }, 60_000)
  afterAll(async () => {
    await gw?.stop()
  })

  it("a locale of no known language is a 400 naming it, not a 500 or a locale taken and not used", async () => {
    // Well-formed, so only the language data can tell: Chromium 150 takes it and formats by no language.
    const auth = { authorization: `Bearer ${gw.token()}`, "content-type": "application/json" }
    const r = await request(gw.controlPort, "POST", "/set/locale", auth, { locale: "xxxxx" })
    expect(r.status, r.body).toBe(400)
    expect(r.json()).toEqual({
      _tag: "InvalidRequest",
      message: `set locale: "xxxxx" names no language the browser has data for; give one such as en-US, de-DE or fr`
    })
    const ok = await request(gw.controlPort, "POST", "/set/locale", auth, { locale: "de-CH" })
    expect(ok.status, ok.body).toBe(200)
  })

  it("opening a tab on a page that does not load says so (the tab is there, with its targetId); about: pages are refused", async () => {
    const r = await gw.svc("browser", "open", "http://127.0.0.1:9/nothing-listens-here")
    expect(r.code).not.toBe(0)
    expect(r.stderr).toMatch(/opened tab \[\d+\] [0-9A-F]{32}, but http:\/\/127\.0\.0\.1:9\/nothing-listens-here did not load: .*ERR_/)
    const targetId = /[0-9A-F]{32}/.exec(r.stderr)![0]
    const tabs = JSON.parse((await gw.svc("browser", "tabs", "--json")).stdout).tabs as Array<{ targetId: string }>
    expect(tabs.some((t) => t.targetId === targetId)).toBe(true)
    for (const url of ["about:config", "chrome://settings", "javascript:alert(1)"]) {
      const opened = await gw.svc("browser", "open", url)
      expect(opened.code, url).not.toBe(0)
      const nav = await gw.svc("browser", "navigate", url)
      expect(nav.code, url).not.toBe(0)
    }
  })

  it("a 50 MB evaluate result is cut, and the tab answers the next request at once", async () => {
    const big = await gw.svc("browser", "evaluate", "() => 'x'.repeat(50 * 1024 * 1024)", "--json")
    expect(big.code, big.stderr).toBe(0)
    const result = JSON.parse(big.stdout).result as string
    expect(result.length).toBeLessThan(200_000)
    expect(result).toContain("truncated")
    const next = await gw.svc("browser", "evaluate", "() => 1 + 1", "--json")
    expect(next.code, next.stderr).toBe(0)
    expect(JSON.parse(next.stdout).result).toBe(2)
    expect(next.ms).toBeLessThan(5_000)
  }, 60_000)
})
