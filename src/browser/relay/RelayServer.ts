import { Data, Effect, Layer, Runtime } from "effect"
import * as http from "node:http"
import type { Duplex } from "node:stream"
import { type RawData, WebSocket, WebSocketServer } from "ws"
import { checkCdpClient, checkExtensionOrigin, checkExtensionToken, type RelaySecrets, type Verdict } from "./auth.js"
import { LocalRelay } from "./LocalRelay.js"
import { type Client, type Peer, RelayHub } from "./RelayHub.js"

// The relay's listener on 127.0.0.1:<relay port>. To a CDP client it looks like a browser: /json/version
// (with a webSocketDebuggerUrl only while the extension is connected), /json/list, the browser websocket
// /devtools/browser/<id> and page websockets /devtools/page/<targetId>. The extension dials /extension.

export class RelayListenError extends Data.TaggedError("RelayListenError")<{ readonly message: string }> {}

export interface RelayServerOptions {
  readonly port: number
  readonly secrets: RelaySecrets
}

const BROWSER_PATH = "/devtools/browser/svc-relay"
/** A full-page screenshot is one frame of base64. */
const MAX_PAYLOAD = 256 * 1024 * 1024

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" })
  res.end(JSON.stringify(body))
}

const refuseUpgrade = (socket: Duplex, verdict: Extract<Verdict, { ok: false }>) => {
  const body = JSON.stringify({ _tag: verdict.status === 401 ? "Unauthorized" : "Forbidden", message: verdict.message })
  socket.end(
    `HTTP/1.1 ${verdict.status} ${verdict.status === 401 ? "Unauthorized" : "Forbidden"}\r\n` +
      `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
  )
}

const peerOf = (ws: WebSocket): Peer => ({
  send: (message) => {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message))
  },
  close: (code, reason) => ws.close(code, reason.slice(0, 120))
})

/** The relay server and its hub, listening until `close`. */
export const startRelay = (options: RelayServerOptions & { readonly log: (line: string) => void }) =>
  new Promise<{ readonly hub: RelayHub; readonly server: http.Server; readonly close: () => Promise<void> }>(
    (resolve, reject) => {
      const hub = new RelayHub({ log: options.log })
      const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: MAX_PAYLOAD })
      const wsBase = `ws://127.0.0.1:${options.port}`

      const server = http.createServer((req, res) => {
        const url = new URL(req.url ?? "/", "http://relay")
        const verdict = checkCdpClient(req, url, options.secrets)
        if (!verdict.ok) return json(res, verdict.status, { _tag: verdict.status === 401 ? "Unauthorized" : "Forbidden", message: verdict.message })
        const path = url.pathname.replace(/\/+$/, "")
        if (req.method !== "GET" && req.method !== "PUT") return json(res, 405, { _tag: "MethodNotAllowed", message: "GET only" })
        if (path === "/json/version") {
          const v = hub.version()
          return json(res, 200, {
            Browser: v.product,
            "Protocol-Version": "1.3",
            "User-Agent": v.userAgent,
            ...(hub.extensionConnected ? { webSocketDebuggerUrl: `${wsBase}${BROWSER_PATH}` } : {})
          })
        }
        if (path === "/json" || path === "/json/list") {
          return json(
            res,
            200,
            hub.targetInfos().map((t) => ({
              id: t.targetId,
              type: t.type,
              title: t.title,
              url: t.url,
              description: "",
              webSocketDebuggerUrl: `${wsBase}/devtools/page/${t.targetId}`
            }))
          )
        }
        return json(res, 404, { _tag: "NotFound", message: `no route ${url.pathname} on the svc relay` })
      })

      server.on("upgrade", (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
        socket.on("error", () => undefined)
        const url = new URL(req.url ?? "/", "http://relay")
        if (url.pathname === "/extension") {
          const place = checkExtensionOrigin(req)
          if (!place.ok) return refuseUpgrade(socket, place)
          wss.handleUpgrade(req, socket, head, (ws) => {
            // Accepted to say why, so the extension can show it: a wrong token gets a close with the reason.
            const token = checkExtensionToken(url, options.secrets)
            if (!token.ok) {
              ws.close(4001, token.message.slice(0, 120))
              return
            }
            const peer = peerOf(ws)
            ws.on("message", (data: RawData) => hub.extensionMessage(peer, data.toString()))
            ws.on("close", () => hub.extensionClosed(peer))
            ws.on("error", () => undefined)
            hub.connectExtension(peer)
          })
          return
        }
        const page = /^\/devtools\/page\/([^/]+)$/.exec(url.pathname)
        if (url.pathname !== BROWSER_PATH && !url.pathname.startsWith("/devtools/browser/") && page === null) {
          return refuseUpgrade(socket, { ok: false, status: 403, message: `no websocket ${url.pathname} on the svc relay` })
        }
        const verdict = checkCdpClient(req, url, options.secrets)
        if (!verdict.ok) return refuseUpgrade(socket, verdict)
        wss.handleUpgrade(req, socket, head, (ws) => {
          const peer = peerOf(ws)
          const client: Client | undefined = hub.connectClient(peer, page?.[1])
          if (client === undefined) {
            ws.close(4004, "no such tab is shared with svc")
            return
          }
          ws.on("message", (data: RawData) => hub.clientMessage(client, data.toString()))
          ws.on("close", () => hub.clientClosed(client))
          ws.on("error", () => undefined)
        })
      })

      server.once("error", (e: NodeJS.ErrnoException) =>
        reject(
          new RelayListenError({
            message: e.code === "EADDRINUSE"
              ? `cannot listen: the relay port ${options.port} (gateway port + 3) is already in use; set gateway.port in svc.json or SVC_GATEWAY_PORT`
              : `cannot listen on the relay port ${options.port}: ${e.message}`
          })
        )
      )
      server.listen(options.port, "127.0.0.1", () =>
        resolve({
          hub,
          server,
          close: () =>
            new Promise<void>((done) => {
              hub.close()
              for (const ws of wss.clients) ws.terminate()
              server.close(() => done())
              server.closeAllConnections()
            })
        }))
    }
  )

/** The relay inside the gateway: listening while the layer's scope is open, and reached in-process by its browser services. */
export const RelayServerLive = (options: RelayServerOptions): Layer.Layer<never, RelayListenError, LocalRelay> =>
  Layer.scopedDiscard(
    Effect.gen(function*() {
      const runtime = yield* Effect.runtime<never>()
      const log = (line: string) => Runtime.runFork(runtime)(Effect.logInfo(line))
      const relay = yield* Effect.acquireRelease(
        Effect.tryPromise({
          try: () => startRelay({ ...options, log }),
          catch: (e) => e instanceof RelayListenError ? e : new RelayListenError({ message: String(e) })
        }),
        (relay) => Effect.promise(relay.close)
      )
      yield* (yield* LocalRelay).serve({ hub: relay.hub, port: options.port, secrets: options.secrets })
    })
  )
