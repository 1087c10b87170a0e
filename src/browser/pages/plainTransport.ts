import * as http from "node:http"
import WebSocket from "ws"
import { isLoopbackHostname } from "../../platform/loopback.js"
import type { CdpEndpoint } from "../cdp/endpoints.js"
import { MAX_PAYLOAD } from "../cdp/socket/connection.js"
import type { CdpTransport } from "../relay/inProcess.js"

// The automation library's connection to a browser on this machine, over a websocket of svc's own without
// compression. The library's own websocket offers permessage-deflate, and Chromium takes it: every CDP
// message each way is then deflated and inflated, on the browser's main thread and on the gateway's, for a
// connection that never leaves the machine. Measured through `svc mcp` (medians of 5, three alternating
// rounds): navigations 15-30 ms and first snapshots 15-30 ms quicker on the bench's pages, about 45 ms less
// of the gateway's CPU during a cold start.

/**
 * The endpoint's browser websocket when it is one svc can dial plainly: a DevTools endpoint on this machine,
 * without credentials (those go the library's way, which sends them as a header). Undefined otherwise.
 */
const localEndpoint = (raw: string): URL | undefined => {
  try {
    const u = new URL(raw)
    if (!isLoopbackHostname(u.hostname) || u.username !== "" || u.password !== "") return undefined
    return u.protocol === "http:" || u.protocol === "ws:" ? u : undefined
  } catch {
    return undefined
  }
}

/** GET /json/version of a loopback DevTools endpoint: its browser websocket. */
const browserWebSocket = (base: URL, timeoutMs: number): Promise<string> =>
  new Promise((resolve, reject) => {
    const req = http.get(new URL("/json/version", base), { timeout: timeoutMs }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => {
        try {
          const ws = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { webSocketDebuggerUrl?: unknown }).webSocketDebuggerUrl
          if (res.statusCode === 200 && typeof ws === "string") resolve(ws)
          else reject(new Error(`/json/version answered ${res.statusCode} without a browser websocket`))
        } catch (e) {
          reject(e)
        }
      })
      res.on("error", reject)
    })
    req.on("timeout", () => req.destroy(new Error(`/json/version did not answer within ${timeoutMs} ms`)))
    req.on("error", reject)
  })

/**
 * A transport for the library to the browser of a loopback endpoint, once its websocket is open; undefined
 * for any other endpoint (the library then dials it itself). Rejects when the browser cannot be reached.
 */
export const openPlainTransport = async (
  raw: string,
  endpoint: Pick<CdpEndpoint, "timeoutMs" | "handshakeTimeoutMs" | "webSocketUrl">
): Promise<CdpTransport | undefined> => {
  const base = localEndpoint(raw)
  if (base === undefined) return undefined
  const url = base.protocol === "ws:" ? base.href : endpoint.webSocketUrl ?? await browserWebSocket(base, endpoint.timeoutMs)
  const target = localEndpoint(url)
  if (target === undefined) return undefined
  return await new Promise<CdpTransport>((resolve, reject) => {
    const ws = new WebSocket(url, {
      perMessageDeflate: false,
      maxPayload: MAX_PAYLOAD,
      handshakeTimeout: endpoint.handshakeTimeoutMs,
      // Named as the library names its own connection (svc's own CDP sockets send no such name).
      headers: { "User-Agent": "Playwright (svc)" }
    })
    let open = false
    const transport: CdpTransport = {
      send: (message) => {
        if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message))
      },
      close: () => ws.close()
    }
    ws.on("open", () => {
      open = true
      resolve(transport)
    })
    ws.on("error", (e) => {
      if (!open) reject(e)
    })
    // As the library's own transport does: each message in a task of its own.
    ws.on("message", (data: Buffer) => {
      let message: object
      try {
        message = JSON.parse(data.toString("utf8")) as object
      } catch {
        return
      }
      setImmediate(() => transport.onmessage?.(message))
    })
    ws.on("close", (_code, reason) => {
      if (!open) reject(new Error(`the browser closed its websocket (${reason.toString()})`))
      setImmediate(() => transport.onclose?.(reason.toString()))
    })
  })
}
