import * as http from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Gateway, request, startGateway } from "../support/gateway.js"

// What an agent calling the control API directly (not through the CLI, which checks its requests itself)
// gets for a request the schema refuses: a 400 whose message is one short line naming the field and what
// it takes, on every route, instead of the schema's type printed as a tree.

describe("the control API's 400 for a request its schema refuses", () => {
  let gw: Gateway
  const call = (method: string, path: string, body?: unknown) =>
    request(gw.controlPort, method, path, { authorization: `Bearer ${gw.token()}` }, body)

  beforeAll(async () => {
    gw = await startGateway({ config: { browser: { defaultProfile: "svc" } } })
  })
  afterAll(async () => {
    await gw?.stop()
  })

  const cases: Array<{ readonly what: string; readonly method: string; readonly path: string; readonly body?: unknown; readonly message: string | RegExp }> = [
    { what: "a click without its ref", method: "POST", path: "/act", body: { kind: "click" }, message: "ref: is missing" },
    { what: "a type without its text", method: "POST", path: "/act", body: { kind: "type", ref: "3" }, message: "text: is missing" },
    {
      what: "an unknown kind",
      method: "POST",
      path: "/act",
      body: { kind: "clack" },
      message: /^kind: expected one of click, type, typeFocused, press, clickAt, .*, close, got "clack"$/
    },
    { what: "a wrong type", method: "POST", path: "/act", body: { kind: "click", ref: 5 }, message: "ref: expected string, got 5" },
    { what: "no body fields at all", method: "POST", path: "/act", body: {}, message: "kind: is missing" },
    { what: "a nested field", method: "POST", path: "/act", body: { kind: "fill", fields: [{ ref: "1" }] }, message: "fields[0].type: is missing" },
    { what: "a query number out of range", method: "GET", path: "/snapshot?limit=0", message: 'limit: expected a whole number from 1 to 10000000, got "0"' },
    { what: "a query flag", method: "GET", path: "/snapshot?interactive=maybe", message: 'interactive: expected one of true, false, 1, 0, "", got "maybe"' },
    { what: "a query choice", method: "GET", path: "/snapshot?format=xx", message: 'format: expected one of ai, aria, role, got "xx"' },
    { what: "another route's payload", method: "POST", path: "/tabs/open", body: { url: 5 }, message: "url: expected string, got 5" },
    { what: "a path parameter", method: "DELETE", path: "/profiles/Bad%20Name", message: /^name: a profile name is 1-64 letters/ }
  ]

  it.each(cases)("$what: $method $path", async ({ body, message, method, path }) => {
    const r = await call(method, path, body)
    expect(r.status, r.body).toBe(400)
    // The message and its one issue: a few lines' worth, never the schema's type.
    expect(r.body.length, r.body).toBeLessThan(700)
    const json = r.json()
    expect(json._tag).toBe("HttpApiDecodeError")
    if (typeof message === "string") expect(json.message).toBe(message)
    else expect(json.message).toMatch(message)
    expect(json.message.length).toBeLessThan(300)
    expect(json.message).not.toMatch(/readonly|└─|\n/)
    // The typed client still decodes it: issues name the same field.
    expect(Array.isArray(json.issues)).toBe(true)
    expect(json.issues.length).toBeGreaterThan(0)
  })

  it("a body that is not JSON says so, instead of an empty 400", async () => {
    const r = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request({
        host: "127.0.0.1",
        port: gw.controlPort,
        method: "POST",
        path: "/act",
        headers: { authorization: `Bearer ${gw.token()}`, "content-type": "application/json" }
      }, (res) => {
        let text = ""
        res.on("data", (d) => (text += d))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }))
      })
      req.on("error", reject)
      req.end("{not json")
    })
    expect(r.status).toBe(400)
    expect(JSON.parse(r.body)).toMatchObject({ _tag: "HttpApiDecodeError", message: expect.stringMatching(/not valid JSON/) })
  })

  it("the CLI still names a refused argument in one line", async () => {
    const r = await gw.svc("browser", "snapshot", "--limit", "0")
    expect(r.code).toBe(1)
    expect(r.stderr.trim()).toBe("svc: invalid request: limit: expected a whole number from 1 to 10000000, got 0")
  })
})
