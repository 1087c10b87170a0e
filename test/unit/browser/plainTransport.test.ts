import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { WebSocketServer } from "ws"
import { openPlainTransport } from "../../../src/browser/pages/plainTransport.js"

// The library's uncompressed websocket to a browser on this machine. A browser svc has just launched is
// dialled at the websocket its launch already read, without asking /json/version again; any other
// endpoint is asked. A loopback HTTP + websocket server stands in for the browser's DevTools endpoint.

const servers: Array<http.Server> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))))
})

/** A DevTools-like endpoint: /json/version names its websocket, which echoes each message back. */
const devtools = async () => {
  const asked: Array<string> = []
  const server = http.createServer((req, res) => {
    asked.push(req.url ?? "")
    const { port } = server.address() as AddressInfo
    res.setHeader("content-type", "application/json")
    res.end(JSON.stringify({ webSocketDebuggerUrl: `ws://127.0.0.1:${port}/devtools/browser/abc` }))
  })
  const wss = new WebSocketServer({ server })
  wss.on("connection", (ws) => ws.on("message", (data) => ws.send(data.toString())))
  server.on("close", () => wss.close())
  servers.push(server)
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  const { port } = server.address() as AddressInfo
  return { port, asked }
}

const timeouts = { timeoutMs: 2_000, handshakeTimeoutMs: 2_000 }

/** Sends one message over the transport and waits for its echo. */
const echo = async (transport: NonNullable<Awaited<ReturnType<typeof openPlainTransport>>>) => {
  const back = new Promise<unknown>((resolve) => {
    transport.onmessage = resolve
  })
  transport.send({ id: 1, method: "Browser.getVersion" })
  return await back
}

describe("openPlainTransport", () => {
  it("asks /json/version for the browser websocket of an HTTP endpoint", async () => {
    const { port, asked } = await devtools()
    const transport = await openPlainTransport(`http://127.0.0.1:${port}`, timeouts)
    expect(asked).toEqual(["/json/version"])
    expect(await echo(transport!)).toEqual({ id: 1, method: "Browser.getVersion" })
    transport!.close()
  })

  it("dials a websocket already known without asking /json/version", async () => {
    const { port, asked } = await devtools()
    const transport = await openPlainTransport(`http://127.0.0.1:${port}`, {
      ...timeouts,
      webSocketUrl: `ws://127.0.0.1:${port}/devtools/browser/abc`
    })
    expect(asked).toEqual([])
    expect(await echo(transport!)).toEqual({ id: 1, method: "Browser.getVersion" })
    transport!.close()
  })

  it("leaves an endpoint on another machine to the library", async () => {
    expect(await openPlainTransport("http://192.0.2.1:9222", { ...timeouts, webSocketUrl: "ws://192.0.2.1:9222/devtools/browser/x" }))
      .toBeUndefined()
  })
})
