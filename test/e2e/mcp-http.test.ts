import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Gateway, isPng, request, servePages, startGateway } from "../support/gateway.js"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

// The MCP tools over Streamable HTTP on the gateway port (POST /mcp), driven by the official MCP SDK
// client's HTTP transport against a real gateway and Chromium: the same tools as `svc mcp`, behind the
// gateway token.

const form = `<!doctype html><title>Form</title>
<p id="status">idle</p>
<button onclick="document.getElementById('status').textContent = 'clicked ' + (++window.n)">Increment counter</button>
<script>window.n = 0</script>`

interface Result {
  readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string; readonly data?: string; readonly mimeType?: string }>
  readonly isError?: boolean
}
const textOf = (r: Result) => r.content.filter((c) => c.type === "text").map((c) => c.text).join("\n")

describe("MCP over Streamable HTTP on the gateway port", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>

  const connect = async (headers: Record<string, string>, query = "") => {
    const client = new Client({ name: "svc-e2e-http", version: "1.0.0" })
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${gw.port}/mcp${query}`), {
      requestInit: { headers }
    })
    await client.connect(transport)
    return {
      client,
      call: async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as Result
    }
  }

  beforeAll(async () => {
    pages = await servePages({ "/form": form })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc" } } })
  })

  afterAll(async () => {
    await gw?.svc("browser", "stop")
    await gw?.stop()
    await pages?.close()
  })

  it("serves the tools: navigate, snapshot, click by ref, screenshot as an image, errors as isError", async () => {
    const { client, call } = await connect({ authorization: `Bearer ${gw.token()}` })
    try {
      const names = (await client.listTools()).tools.map((t) => t.name)
      expect(names).toEqual(expect.arrayContaining(["browser_navigate", "browser_snapshot", "browser_click", "browser_take_screenshot", "browser"]))
      expect((await call("browser_navigate", { url: pages.url("/form") })).isError).toBeFalsy()
      const snap = await call("browser_snapshot")
      const ref = /button "Increment counter"[^\n]*?\[ref=([^\]\s]+)\]/.exec(textOf(snap))?.[1]
      expect(ref, textOf(snap)).toBeDefined()
      expect((await call("browser_click", { ref })).isError).toBeFalsy()
      const status = await call("browser_evaluate", { function: "() => document.getElementById('status').textContent" })
      expect(textOf(status)).toContain("clicked 1")
      const shot = await call("browser_take_screenshot")
      const image = shot.content.find((c) => c.type === "image")
      expect(image?.mimeType).toBe("image/png")
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "svc-mcp-http-")), "shot.png")
      fs.writeFileSync(file, Buffer.from(image!.data!, "base64"))
      expect(isPng(file)?.width).toBeGreaterThan(0)
      // A bad argument is the tool's error, naming it; an unknown tool is the protocol's.
      const bad = await call("browser_click", { ref: 12 })
      expect(bad.isError).toBe(true)
      expect(textOf(bad)).toMatch(/ref/)
      await expect(call("no_such_tool")).rejects.toThrow(/unknown tool/)
    } finally {
      await client.close()
    }
  })

  it("takes the session's browser profile from the URL it initializes on", async () => {
    const { client, call } = await connect({ authorization: `Bearer ${gw.token()}` }, "?profile=nosuch")
    try {
      const r = await call("browser_snapshot")
      expect(r.isError).toBe(true)
      expect(textOf(r)).toMatch(/nosuch/)
    } finally {
      await client.close()
    }
  })

  it("refuses without the gateway token, and a browser page of another origin", async () => {
    await expect(connect({})).rejects.toThrow()
    await expect(connect({ authorization: "Bearer wrong" })).rejects.toThrow()
    const initialize = {
      jsonrpc: "2.0", id: 1, method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } }
    }
    const token = `Bearer ${gw.token()}`
    expect((await request(gw.port, "POST", "/mcp", {}, initialize)).status).toBe(401)
    expect((await request(gw.port, "POST", "/mcp", { authorization: token, origin: "https://evil.example" }, initialize)).status).toBe(403)
    // A request of a session that does not exist asks the client to initialize again.
    const stale = await request(gw.port, "POST", "/mcp", { authorization: token, "mcp-session-id": "gone" }, {
      jsonrpc: "2.0", id: 2, method: "tools/list"
    })
    expect(stale.status).toBe(404)
    expect(stale.json().error.message).toMatch(/initialize again/)
    // Without a session id at all: a 400 that says to initialize first.
    const none = await request(gw.port, "POST", "/mcp", { authorization: token }, { jsonrpc: "2.0", id: 3, method: "tools/list" })
    expect(none.status).toBe(400)
    expect(none.json().error.message).toMatch(/initialize first/)
    // No event stream is offered.
    expect((await request(gw.port, "GET", "/mcp", { authorization: token })).status).toBe(405)
  })

  it("speaks JSON-RPC as the transport says: sessions, notifications, batches, versions, bad bodies", async () => {
    const token = `Bearer ${gw.token()}`
    const init = await request(gw.port, "POST", "/mcp", { authorization: token }, {
      jsonrpc: "2.0", id: 1, method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } }
    })
    expect(init.status).toBe(200)
    expect(init.json().result.protocolVersion).toBe("2025-06-18")
    const session = init.headers["mcp-session-id"] as string
    expect(session).toMatch(/^[0-9a-f-]{36}$/)
    const headers = { authorization: token, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" }
    // A notification has no answer.
    expect((await request(gw.port, "POST", "/mcp", headers, { jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202)
    // A batch is answered as one.
    const batch = await request(gw.port, "POST", "/mcp", headers, [
      { jsonrpc: "2.0", id: 2, method: "ping" },
      { jsonrpc: "2.0", id: 3, method: "nope" }
    ])
    expect(batch.json()).toEqual([
      { jsonrpc: "2.0", id: 2, result: {} },
      { jsonrpc: "2.0", id: 3, error: { code: -32601, message: expect.stringContaining("nope") } }
    ])
    const version = await request(gw.port, "POST", "/mcp", { ...headers, "mcp-protocol-version": "1999-01-01" }, {
      jsonrpc: "2.0", id: 4, method: "ping"
    })
    expect(version.status).toBe(400)
    expect(version.json().error.message).toMatch(/1999-01-01/)
    const junk = await request(gw.port, "POST", "/mcp", headers, "not a message")
    expect(junk.status).toBe(400)
    // The session ends on DELETE, after which it is gone.
    expect((await request(gw.port, "DELETE", "/mcp", headers)).status).toBe(204)
    expect((await request(gw.port, "POST", "/mcp", headers, { jsonrpc: "2.0", id: 5, method: "ping" })).status).toBe(404)
  })
})
