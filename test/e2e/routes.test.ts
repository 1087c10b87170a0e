import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { browserCli } from "../support/browserCli.js"
import { freeCdpPort, type Gateway, servePages, startGateway } from "../support/gateway.js"

// `svc browser route` through the real path (bin/svc → gateway → playwright-core → Chromium): requests the
// page makes are mocked, refused, or sent on with headers changed, in every tab, until removed; a page
// itself can be mocked; a route says how many requests it met; bad routes are refused with what to give.

const app = `<!doctype html><title>App</title><p>app</p>`

describe("svc browser route", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>
  const { evaluate, ok } = browserCli(() => gw)
  const fetchText = (path: string) =>
    evaluate(`() => fetch(${JSON.stringify(path)}).then(async (r) => r.status + " " + await r.text(), (e) => "failed: " + e.message)`)

  beforeAll(async () => {
    pages = await servePages({
      "/app": app,
      "/api/user": { type: "application/json", body: `{"name":"from the server"}` },
      "/echo": (req) => ({ type: "application/json", body: JSON.stringify({ test: req.headers["x-test"] ?? null, accept: req.headers.accept ?? null }) })
    })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } } })
    await ok("open", pages.url("/app"))
  })
  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
  })

  it("mocks, refuses and changes requests, lists them with their hits, and removes them", async () => {
    expect(await ok("route")).toBe("no routes")
    expect(await fetchText("/api/user")).toBe(`200 {"name":"from the server"}`)

    expect(await ok("route", "add", "**/api/user", "--body", `{"name":"Ada"}`, "--content-type", "application/json"))
      .toBe("added a route **/api/user: answered 200, application/json, 14 byte(s) (0 request(s) so far)")
    expect(await fetchText("/api/user")).toBe(`200 {"name":"Ada"}`)
    await ok("route", "add", "**/*.png", "--abort")
    expect(await fetchText("/pic.png")).toBe("failed: Failed to fetch")
    await ok("route", "add", "**/echo", "--header", "X-Test: yes: really", "--remove-header", "Accept")
    expect(JSON.parse((await fetchText("/echo")).slice(4))).toEqual({ test: "yes: really", accept: null })

    // In another tab of the profile too, and for a page itself.
    await ok("route", "add", "**/mocked", "--body", "<title>Mocked page</title><h1>Not on the server</h1>", "--content-type", "text/html")
    await ok("open", pages.url("/mocked"))
    expect(await evaluate("() => document.title + ' / ' + document.querySelector('h1').textContent")).toBe("Mocked page / Not on the server")
    expect(await fetchText("/api/user")).toBe(`200 {"name":"Ada"}`)

    expect((await ok("route")).split("\n")).toEqual([
      "**/api/user: answered 200, application/json, 14 byte(s) (2 request(s) so far)",
      "**/*.png: refused (1 request(s) so far)",
      "**/echo: sent on with X-Test: yes: really without Accept (1 request(s) so far)",
      "**/mocked: answered 200, text/html, 52 byte(s) (1 request(s) so far)"
    ])
    const routes = JSON.parse(await ok("route", "--json")).routes
    expect(routes[0]).toEqual({ pattern: "**/api/user", action: "fulfill", status: 200, contentType: "application/json", bodyBytes: 14, hits: 2 })

    // Adding a pattern again replaces its route.
    expect(await ok("route", "add", "**/api/user", "--status", "503")).toBe("replaced the route **/api/user: answered 503 (0 request(s) so far)")
    expect(await fetchText("/api/user")).toBe("503 ")
    expect(await ok("route", "remove", "**/api/user")).toBe("removed 1 route(s)")
    expect(await fetchText("/api/user")).toBe(`200 {"name":"from the server"}`)
    expect(await ok("route", "remove")).toBe("removed 3 route(s)")
    expect(await fetchText("/pic.png")).toBe("404 not found")
    expect(await ok("route")).toBe("no routes")
  })

  it("refuses a route that does nothing, a bad header and a pattern that is not there", async () => {
    const nothing = await gw.svc("browser", "route", "add", "**/x")
    expect(nothing.code).toBe(1)
    expect(nothing.stderr).toContain("route add **/x: say what the route does: a response (status, body, contentType), abort, or headers")
    const both = await gw.svc("browser", "route", "add", "**/x", "--abort", "--status", "200")
    expect(both.stderr).toContain("abort refuses the request: give it no status, body, content type or headers")
    const header = await gw.svc("browser", "route", "add", "**/x", "--header", "no colon here")
    expect(header.code).toBe(1)
    expect(header.stderr.trim()).toBe(`svc: invalid request: headers[0]: a header is written "Name: Value", e.g. "X-Test: 1"`)
    const missing = await gw.svc("browser", "route", "remove", "**/never")
    expect(missing.code).toBe(1)
    expect(missing.stderr.trim()).toBe(`svc: no route has the pattern "**/never"; there are none`)
  })
})
