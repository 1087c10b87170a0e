import { Duration, Effect } from "effect"
import WebSocket from "ws"
import { redactSecrets } from "../../domain/redact.js"
import { VERSION } from "../../version.js"
import {
  encodeResponse,
  type ForwardedRequest,
  type GatewayMessage,
  type Hello,
  NODE_SOCKET_PATH,
  parseMessage,
  PROTOCOL
} from "../protocol.js"
import { answerFiles } from "./files.js"
import type { NodeIdentity } from "./identity.js"

// `svc node run`'s loop: dial the gateway, prove the identity, announce the browser and its profiles, and
// answer every forwarded request with this machine's own control API (served in this process, no port).
// A dropped connection is dialled again with backoff (0.5 s doubling to 15 s, a little jitter).

export interface LocalAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array
}

export interface NodeHostOptions {
  /** ws(s)://host:port, with or without the socket's path. */
  readonly gateway: string
  readonly token: string | undefined
  readonly name: string
  readonly identity: NodeIdentity
  /** nodeHost.browserProxy.enabled: serve the browser (default), or announce nothing and refuse requests. */
  readonly browserProxy: boolean
  /** The local control API. */
  readonly serve: (request: { readonly method: string; readonly path: string; readonly headers: Readonly<Record<string, string>>; readonly body: Uint8Array }) => Promise<LocalAnswer>
  /** The profiles to announce, asked at each connection. */
  readonly profiles: () => Promise<{ readonly profiles: ReadonlyArray<string>; readonly defaultProfile: string | undefined }>
  /** Where the files of answers may come from (media folder, temp root). */
  readonly fileRoots: ReadonlyArray<string>
  readonly log: (line: string) => void
}

/** The socket URL: the gateway's address with the node socket's path when it gives none. */
export const socketUrl = (gateway: string): string => {
  const u = new URL(gateway)
  if (u.protocol !== "ws:" && u.protocol !== "wss:") throw new Error(`--gateway must be a ws:// or wss:// URL, got ${redactSecrets(gateway)}`)
  if (u.pathname === "/" || u.pathname === "") u.pathname = NODE_SOCKET_PATH
  return u.href
}

const INITIAL_BACKOFF_MS = 500
const MAX_BACKOFF_MS = 15_000
/** The gateway pings every 10 s: this long without a word from it means the connection is dead. */
const GATEWAY_SILENT_MS = 35_000
const WELCOME_WITHIN_MS = 20_000

const json = (status: number, value: unknown): LocalAnswer => ({
  status,
  headers: { "content-type": "application/json" },
  body: Buffer.from(JSON.stringify(value), "utf8")
})

interface SessionEnd {
  /** The node was welcomed (the next failure starts the backoff afresh). */
  readonly welcomed: boolean
  readonly why: string
}

/** One connection, from dialling to its close. */
const session = (options: NodeHostOptions, url: string) =>
  Effect.async<SessionEnd>((resume) => {
    const ws = new WebSocket(url, {
      headers: options.token !== undefined ? { authorization: `Bearer ${options.token}` } : {},
      handshakeTimeout: 10_000,
      maxPayload: 16 * 1024 * 1024
    })
    let welcomed = false
    let ended = false
    let lastHeard = Date.now()
    const end = (why: string) => {
      if (ended) return
      ended = true
      clearInterval(watchdog)
      ws.removeAllListeners()
      ws.on("error", () => {})
      ws.terminate()
      resume(Effect.succeed({ welcomed, why }))
    }
    const openedAt = Date.now()
    const watchdog = setInterval(() => {
      if (Date.now() - lastHeard > GATEWAY_SILENT_MS) end("the gateway went silent")
      // A gateway that took the socket but never welcomed this node (it was stopping, or is not svc).
      else if (!welcomed && Date.now() - openedAt > WELCOME_WITHIN_MS) end("the gateway did not welcome this node in time")
    }, 5_000)
    const send = (data: string | Buffer) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(data)
    }

    const answer = async (request: ForwardedRequest) => {
      let local: LocalAnswer
      let files: Array<{ readonly path: string; readonly data: Uint8Array }> = []
      if (!options.browserProxy) {
        local = json(403, {
          _tag: "Forbidden",
          message: `node ${options.identity.id} does not serve its browser (nodeHost.browserProxy.enabled is false in its svc.json)`
        })
      } else {
        try {
          const t0 = performance.now()
          local = await options.serve({
            method: request.method,
            path: request.path,
            headers: request.headers,
            body: Buffer.from(request.body, "base64")
          })
          // The time the node's own control API took, beside the parts it timed (the gateway adds the hop's).
          const served = `node;dur=${Math.round((performance.now() - t0) * 100) / 100}`
          const timing = local.headers["server-timing"]
          local = { ...local, headers: { ...local.headers, "server-timing": timing !== undefined ? `${timing}, ${served}` : served } }
          if (local.status < 300 && (local.headers["content-type"] ?? "").includes("json")) {
            files = answerFiles(JSON.parse(Buffer.from(local.body).toString("utf8")), options.fileRoots)
          }
        } catch (e) {
          local = json(500, { _tag: "InternalError", message: `the node could not serve the request: ${(e as Error).message}` })
        }
      }
      send(encodeResponse({ id: request.id, status: local.status, headers: local.headers }, local.body, files))
    }

    ws.on("message", (data, isBinary) => {
      lastHeard = Date.now()
      if (isBinary) return
      const message = parseMessage<GatewayMessage | { type: "ping" }>(data.toString())
      switch (message?.type) {
        case "ping":
          return send(JSON.stringify({ type: "pong" }))
        case "challenge": {
          const nonce = message.nonce
          void options.profiles().catch(() => ({ profiles: [], defaultProfile: undefined })).then((p) => {
            const hello: Hello = {
              type: "hello",
              protocol: PROTOCOL,
              publicKey: options.identity.publicKey,
              signature: options.identity.sign(nonce),
              name: options.name,
              version: VERSION,
              capabilities: options.browserProxy ? ["browser"] : [],
              profiles: options.browserProxy ? p.profiles : [],
              ...(options.browserProxy && p.defaultProfile !== undefined ? { defaultProfile: p.defaultProfile } : {})
            }
            send(JSON.stringify(hello))
          })
          return
        }
        case "welcome":
          welcomed = true
          return options.log(
            message.status === "approved"
              ? `svc node: connected to ${redactSecrets(url)} as node ${message.id} (approved)${options.browserProxy ? "" : "; browser proxy off (nodeHost.browserProxy.enabled)"}`
              : `svc node: connected to ${redactSecrets(url)} as node ${message.id}, ${message.message}`
          )
        case "approved":
          return options.log(`svc node: node ${options.identity.id} was approved: serving the gateway's requests`)
        case "request":
          void answer(message)
          return
      }
    })
    ws.on("unexpected-response", (_req, res) => {
      let text = ""
      res.on("data", (d: Buffer) => (text += d.toString()))
      res.on("end", () => {
        let message = text
        try {
          message = (JSON.parse(text) as { message?: string }).message ?? text
        } catch {
          // not JSON
        }
        end(`the gateway refused the connection (HTTP ${res.statusCode}): ${message.slice(0, 300)}`)
      })
      res.on("error", () => end(`the gateway refused the connection (HTTP ${res.statusCode})`))
    })
    ws.on("close", (code, reason) => end(`the connection closed (${code}${reason.length > 0 ? `: ${reason.toString()}` : ""})`))
    ws.on("error", (e) => end(redactSecrets(e.message)))
    return Effect.sync(() => end("stopping"))
  })

/** Dial, serve, dial again: until interrupted. */
export const runNodeHostLoop = (options: NodeHostOptions): Effect.Effect<never> =>
  Effect.gen(function*() {
    const url = socketUrl(options.gateway)
    let backoff = INITIAL_BACKOFF_MS
    let lastWhy = ""
    while (true) {
      const ended = yield* session(options, url)
      if (ended.welcomed) backoff = INITIAL_BACKOFF_MS
      const wait = Math.round(backoff * (0.8 + Math.random() * 0.4))
      // The same failure again and again is said once.
      if (ended.why !== lastWhy || ended.welcomed) {
        options.log(`svc node: ${ended.why}; connecting again in ${(wait / 1000).toFixed(1)} s (and with backoff after that)`)
      }
      lastWhy = ended.welcomed ? "" : ended.why
      yield* Effect.sleep(Duration.millis(wait))
      backoff = Math.min(MAX_BACKOFF_MS, backoff * 2)
    }
  })
