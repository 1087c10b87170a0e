import { OpenApi } from "@effect/platform"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ControlApi } from "../../src/api/ControlApi.js"
import { baseEnv, freeGatewayPort, type Gateway, makeStateDir, request, runSvc, startGateway } from "../support/gateway.js"
import { coverageProblems, definedRoutes, structuralProblems } from "../support/openApi.js"

// The control API's OpenAPI document as a client gets it: from a real gateway at GET /openapi.json,
// behind the same guard as every route, and from `svc api spec` (with or without a gateway). Both are
// the document generated from the one API definition, and it has every route the server serves.

const TOKEN = "openapi-e2e-token-0123456789abcdef"
const PASSWORD = "openapi e2e password"

/** GET /openapi.json, its body decoded as a whole (a character is never cut at a chunk boundary). */
const getDocument = async (port: number, headers: Record<string, string>) => {
  const r = await fetch(`http://127.0.0.1:${port}/openapi.json`, { headers })
  return { status: r.status, contentType: r.headers.get("content-type"), text: await r.text() }
}

describe("GET /openapi.json and svc api spec", () => {
  let gw: Gateway
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "svc-openapi-"))

  beforeAll(async () => {
    gw = await startGateway({
      config: { gateway: { auth: { token: TOKEN, password: PASSWORD } }, browser: { defaultProfile: "relay" } }
    })
  }, 60_000)
  afterAll(async () => {
    await gw?.stop()
    fs.rmSync(scratch, { recursive: true, force: true })
  })

  it("answers the document to the token or the password: JSON, every route with its schemas", async () => {
    const r = await getDocument(gw.controlPort, { authorization: `Bearer ${TOKEN}` })
    expect(r.status, r.text.slice(0, 300)).toBe(200)
    expect(r.contentType).toMatch(/^application\/json/)
    const doc = JSON.parse(r.text)
    expect(doc).toMatchObject({ openapi: "3.1.0", info: { title: "svc control API" } })
    // Generated from the one definition: what this process derives from the source is what the gateway serves.
    expect(doc).toEqual(OpenApi.fromApi(ControlApi))
    const routes = definedRoutes()
    expect(routes.length).toBeGreaterThan(40)
    expect(coverageProblems(doc, routes)).toEqual([])
    expect(structuralProblems(doc)).toEqual([])

    const byPassword = await getDocument(gw.controlPort, { "x-svc-password": PASSWORD })
    expect(byPassword.status).toBe(200)
    expect(byPassword.text).toBe(r.text)
  })

  it("is guarded like every route: 401 without credentials, 403 for a Host that is not loopback", async () => {
    const none = await request(gw.controlPort, "GET", "/openapi.json")
    expect(none.status).toBe(401)
    expect(none.json()).toEqual({ _tag: "Unauthorized", message: expect.stringContaining("Authorization: Bearer") })
    const wrong = await request(gw.controlPort, "GET", "/openapi.json", { authorization: "Bearer nope" })
    expect(wrong.status).toBe(401)
    expect(wrong.json()).toMatchObject({ _tag: "Unauthorized" })
    const rebound = await request(gw.controlPort, "GET", "/openapi.json", {
      authorization: `Bearer ${TOKEN}`,
      host: "attacker.example:80"
    })
    expect(rebound.status).toBe(403)
    expect(rebound.json()).toMatchObject({ _tag: "Forbidden" })
  })

  it("svc api spec prints the same document, with the gateway running and without one", async () => {
    const served = JSON.parse((await getDocument(gw.controlPort, { authorization: `Bearer ${TOKEN}` })).text)
    const printed = await gw.svc("api", "spec")
    expect(printed.code, printed.stderr).toBe(0)
    expect(printed.stdout).toMatch(/^\{\n {2}"openapi": "3\.1\.0",/)
    expect(JSON.parse(printed.stdout)).toEqual(served)

    // A state dir whose gateway is not running: the CLI generates the document itself.
    const alone = await runSvc(["api", "spec"], baseEnv(makeStateDir(), await freeGatewayPort()))
    expect(alone.code, alone.stderr).toBe(0)
    expect(JSON.parse(alone.stdout)).toEqual(served)
  })

  it("svc api spec --out replaces the file whole, and says why when it cannot", async () => {
    const file = path.join(scratch, "openapi.json")
    fs.writeFileSync(file, "old")
    const wrote = await gw.svc("api", "spec", "--out", file)
    expect(wrote.code, wrote.stderr).toBe(0)
    expect(wrote.stdout.trim()).toBe(`wrote the OpenAPI document to ${file}`)
    const served = JSON.parse((await getDocument(gw.controlPort, { authorization: `Bearer ${TOKEN}` })).text)
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual(served)
    expect(fs.readdirSync(scratch)).toEqual(["openapi.json"])

    const missing = path.join(scratch, "no-such-dir", "openapi.json")
    const refused = await gw.svc("api", "spec", "--out", missing)
    expect(refused.code).toBe(1)
    expect(refused.stderr.trim()).toBe(`svc: cannot write ${missing}: there is no directory ${path.dirname(missing)}`)
    expect(fs.readdirSync(scratch)).toEqual(["openapi.json"])
  })
})
