import { Effect } from "effect"
import * as http from "node:http"
import type { AddressInfo, Socket } from "node:net"
import * as zlib from "node:zlib"
import { type WebSocket, WebSocketServer } from "ws"
import type { AxNode } from "../../src/browser/snapshot/AriaFormat.js"

// A fake Chromium DevTools endpoint on a loopback port: /json/version, /json/list and a browser websocket that
// answers the CDP methods the Cdp service uses. `behaviour` can be changed at any time to make it slow, hang,
// drop the socket or answer errors, so tests can pin the edge cases a real browser produces only sometimes.

export interface FakeTarget {
  targetId: string
  type: string
  title: string
  url: string
  /** What Accessibility.getFullAXTree answers for this target. */
  axNodes?: Array<AxNode>
  /** Iframe elements of this page: backendDOMNodeId -> the frame id DOM.describeNode reports. */
  iframes?: Record<number, string>
  /** Same-process frames: frame id -> the tree Accessibility.getFullAXTree({ frameId }) answers. Frames
   * missing here answer "not found", as out-of-process ones do: list them as `iframe` targets instead. */
  localFrames?: Record<string, Array<AxNode>>
  /** Page.getLayoutMetrics cssContentSize; the viewport is 800x600. */
  contentSize?: { width: number; height: number }
  /** How many Target.closeTarget calls this page answers with success and ignores, as Chromium now and then
   * does (Infinity: it never closes). */
  closesDropped?: number
}

export interface FakeCdpBehaviour {
  /** Delay before answering any /json/* request. */
  httpDelayMs: number
  /** Accept /json/* requests and never answer. */
  httpHang: boolean
  /** Answer /json/* with this status (and a non-JSON body). */
  httpStatus: number | undefined
  /** Answer /json/version with this body (status 200) instead of the browser's description. */
  versionBody: string | undefined
  /** Accept the TCP connection for the websocket upgrade and never complete the handshake. */
  upgradeHang: boolean
  /** Per-method delay before answering. */
  delays: Record<string, number>
  /** Methods never answered. */
  hang: Set<string>
  /** Methods on which the fake closes the socket instead of answering. */
  dropOn: Set<string>
  /** Methods answered with this protocol error. */
  errors: Record<string, { code: number; message: string }>
  /** Methods answered with this protocol error the next time only (the next `times` times, when given). */
  errorsOnce: Record<string, { code: number; message: string; times?: number }>
  /** Page.captureScreenshot answers this base64 instead of a PNG. */
  screenshotData: string | undefined
}

export interface FakeCall {
  readonly method: string
  readonly params: Record<string, unknown>
  readonly sessionId: string | undefined
}

export interface FakeCdp {
  readonly port: number
  /** The HTTP endpoint, including the path prefix and token when configured. */
  readonly httpUrl: string
  /** The browser websocket URL /json/version advertises. */
  readonly wsUrl: string
  readonly targets: Array<FakeTarget>
  readonly behaviour: FakeCdpBehaviour
  readonly calls: Array<FakeCall>
  /** Websocket connections accepted so far. */
  readonly connections: () => number
  /** Websocket connections currently open. */
  readonly openSockets: () => number
  /** Flat sessions attached and not yet detached. */
  readonly openSessions: () => number
  readonly httpRequests: () => number
  readonly close: () => Promise<void>
}

export interface FakeCdpOptions {
  readonly targets?: ReadonlyArray<FakeTarget>
  /** Serve /json/* and the websocket under this path (like a proxy in front of a remote browser). */
  readonly pathPrefix?: string
  /** Require ?token=<token> on HTTP and websocket requests. */
  readonly token?: string
  /** Host named in the advertised websocket URL (Chromium names the host it was reached by). */
  readonly advertisedHost?: string
}

const BROWSER_ID = "fake-browser-0001"

export const pageTarget = (targetId: string, url = "about:blank", title = url): FakeTarget => ({
  targetId,
  type: "page",
  title,
  url
})

// --- PNG --------------------------------------------------------------------------------------------------

const CRC_TABLE = (() => {
  const t = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    t[n] = c >>> 0
  }
  return t
})()

const crc32 = (buf: Buffer): number => {
  let c = 0xffffffff
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

const chunk = (type: string, data: Buffer): Buffer => {
  const len = Buffer.alloc(4)
  len.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, "latin1"), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([len, body, crc])
}

/** A valid grey PNG of the given size. */
export const fakePng = (width: number, height: number): Buffer => {
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr[8] = 8 // bit depth
  ihdr[9] = 0 // greyscale
  const raw = Buffer.alloc((width + 1) * height, 0x80)
  for (let y = 0; y < height; y++) raw[y * (width + 1)] = 0 // filter: none
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", zlib.deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0))
  ])
}

// --- AX trees ---------------------------------------------------------------------------------------------

/** A page whose AX tree is a root with `count` buttons named "Button <i>". */
export const buttonsPage = (count: number): Array<AxNode> => {
  const kids = Array.from({ length: count }, (_, i) => `b${i}`)
  return [
    { nodeId: "root", ignored: false, role: { value: "RootWebArea" }, name: { value: "Buttons" }, childIds: kids },
    ...kids.map((id, i): AxNode => ({
      nodeId: id,
      parentId: "root",
      ignored: false,
      role: { value: "button" },
      name: { value: `Button ${i}` }
    }))
  ]
}

// --- Server -----------------------------------------------------------------------------------------------

export const startFakeCdp = async (options: FakeCdpOptions = {}): Promise<FakeCdp> => {
  const prefix = (options.pathPrefix ?? "").replace(/\/+$/, "")
  const targets: Array<FakeTarget> = [...(options.targets ?? [pageTarget("PAGE-1")])]
  const behaviour: FakeCdpBehaviour = {
    httpDelayMs: 0,
    httpHang: false,
    httpStatus: undefined,
    versionBody: undefined,
    upgradeHang: false,
    delays: {},
    hang: new Set(),
    dropOn: new Set(),
    errors: {},
    errorsOnce: {},
    screenshotData: undefined
  }
  const calls: Array<FakeCall> = []
  const sessions = new Map<string, string>() // sessionId -> targetId
  const sockets = new Set<Socket>()
  const clients = new Set<WebSocket>()
  let connections = 0
  let httpRequests = 0
  let nextId = 1

  const tokenOk = (u: URL) => options.token === undefined || u.searchParams.get("token") === options.token

  const server = http.createServer((req, res) => {
    httpRequests++
    const u = new URL(req.url ?? "/", "http://fake")
    if (behaviour.httpHang) return // never answer; closed with the server
    const answer = () => {
      if (!tokenOk(u)) {
        res.writeHead(401).end("token required")
        return
      }
      if (behaviour.httpStatus !== undefined) {
        res.writeHead(behaviour.httpStatus).end("nope")
        return
      }
      const json = (body: unknown) => {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body))
      }
      if (u.pathname === `${prefix}/json/version`) {
        if (behaviour.versionBody !== undefined) {
          res.writeHead(200, { "content-type": "application/json" }).end(behaviour.versionBody)
          return
        }
        return json({
          Browser: "FakeChrome/1.0",
          "Protocol-Version": "1.3",
          "User-Agent": "fake",
          webSocketDebuggerUrl: wsUrl
        })
      }
      if (u.pathname === `${prefix}/json/list` || u.pathname === `${prefix}/json`) {
        return json(targets.map((t) => ({ id: t.targetId, type: t.type, title: t.title, url: t.url })))
      }
      res.writeHead(404).end("not found")
    }
    if (behaviour.httpDelayMs > 0) setTimeout(answer, behaviour.httpDelayMs)
    else answer()
  })
  server.on("connection", (s) => {
    sockets.add(s)
    s.on("close", () => sockets.delete(s))
  })

  const wss = new WebSocketServer({ noServer: true })
  server.on("upgrade", (req, socket, head) => {
    const u = new URL(req.url ?? "/", "http://fake")
    if (behaviour.upgradeHang) return // keep the socket, never answer
    if (u.pathname !== `${prefix}/devtools/browser/${BROWSER_ID}` || !tokenOk(u)) {
      socket.end("HTTP/1.1 404 Not Found\r\n\r\n")
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      connections++
      clients.add(ws)
      ws.on("close", () => clients.delete(ws))
      ws.on("message", (data) => onMessage(ws, JSON.parse(String(data))))
    })
  })

  const info = (t: FakeTarget) => ({
    targetId: t.targetId,
    type: t.type,
    title: t.title,
    url: t.url,
    attached: false,
    canAccessOpener: false
  })

  const onMessage = (
    ws: WebSocket,
    msg: { id: number; method: string; params?: Record<string, unknown>; sessionId?: string }
  ) => {
    const params = msg.params ?? {}
    calls.push({ method: msg.method, params, sessionId: msg.sessionId })
    if (behaviour.dropOn.has(msg.method)) {
      ws.terminate()
      return
    }
    if (behaviour.hang.has(msg.method)) return
    const reply = (body: { result: unknown } | { error: { code: number; message: string } }) => {
      const send = () => {
        if (ws.readyState === ws.OPEN) {
          ws.send(JSON.stringify({ id: msg.id, ...(msg.sessionId ? { sessionId: msg.sessionId } : {}), ...body }))
        }
      }
      const delay = behaviour.delays[msg.method] ?? 0
      if (delay > 0) setTimeout(send, delay)
      else send()
    }
    const injected = behaviour.errors[msg.method]
    if (injected !== undefined) return reply({ error: injected })
    const once = behaviour.errorsOnce[msg.method]
    if (once !== undefined) {
      if ((once.times ?? 1) > 1) behaviour.errorsOnce[msg.method] = { ...once, times: once.times! - 1 }
      else delete behaviour.errorsOnce[msg.method]
      return reply({ error: { code: once.code, message: once.message } })
    }
    const noTarget = { error: { code: -32602, message: "No target with given id found" } }
    const byId = (id: unknown) => targets.find((t) => t.targetId === id)
    const sessionTarget = msg.sessionId === undefined ? undefined : byId(sessions.get(msg.sessionId))

    switch (msg.method) {
      case "Browser.getVersion":
        return reply({ result: { product: "FakeChrome/1.0", protocolVersion: "1.3", revision: "0", userAgent: "fake", jsVersion: "0" } })
      case "Target.getTargets":
        return reply({ result: { targetInfos: targets.map(info) } })
      case "Target.getTargetInfo": {
        const t = byId(params.targetId)
        return reply(t ? { result: { targetInfo: info(t) } } : noTarget)
      }
      case "Target.createTarget": {
        const t = pageTarget(`PAGE-${++nextId}`, String(params.url), "")
        targets.unshift(t)
        return reply({ result: { targetId: t.targetId } })
      }
      case "Target.activateTarget": {
        const i = targets.findIndex((t) => t.targetId === params.targetId)
        if (i < 0) return reply(noTarget)
        targets.unshift(...targets.splice(i, 1))
        return reply({ result: {} })
      }
      case "Target.closeTarget": {
        const i = targets.findIndex((t) => t.targetId === params.targetId)
        if (i < 0) return reply(noTarget)
        const t = targets[i]!
        if ((t.closesDropped ?? 0) > 0) t.closesDropped = t.closesDropped! - 1
        else targets.splice(i, 1)
        return reply({ result: { success: true } })
      }
      case "Target.attachToTarget": {
        const t = byId(params.targetId)
        if (!t) return reply(noTarget)
        const sessionId = `S${++nextId}-${t.targetId}`
        sessions.set(sessionId, t.targetId)
        return reply({ result: { sessionId } })
      }
      case "Target.detachFromTarget": {
        const ok = sessions.delete(String(params.sessionId))
        return reply(ok ? { result: {} } : { error: { code: -32602, message: "No session with given id" } })
      }
      case "Accessibility.getFullAXTree": {
        if (!sessionTarget) return reply({ error: { code: -32601, message: "'Accessibility.getFullAXTree' wasn't found" } })
        if (params.frameId === undefined) return reply({ result: { nodes: sessionTarget.axNodes ?? [] } })
        const local = sessionTarget.localFrames?.[String(params.frameId)]
        return reply(
          local
            ? { result: { nodes: local } }
            : { error: { code: -32602, message: "Frame with the given frameId is not found." } }
        )
      }
      case "DOM.describeNode": {
        const frameId = sessionTarget?.iframes?.[Number(params.backendNodeId)]
        return reply({
          result: {
            node: {
              nodeId: 0,
              backendNodeId: params.backendNodeId,
              nodeType: 1,
              nodeName: "IFRAME",
              localName: "iframe",
              nodeValue: "",
              ...(frameId === undefined ? {} : { frameId })
            }
          }
        })
      }
      case "Page.bringToFront": {
        if (!sessionTarget) return reply({ error: { code: -32601, message: "'Page.bringToFront' wasn't found" } })
        targets.unshift(...targets.splice(targets.indexOf(sessionTarget), 1))
        return reply({ result: {} })
      }
      case "Page.getLayoutMetrics": {
        if (!sessionTarget) return reply({ error: { code: -32601, message: "'Page.getLayoutMetrics' wasn't found" } })
        const size = sessionTarget.contentSize ?? { width: 800, height: 600 }
        const viewport = { pageX: 0, pageY: 0, clientWidth: 800, clientHeight: 600 }
        return reply({
          result: {
            layoutViewport: viewport,
            cssLayoutViewport: viewport,
            visualViewport: { offsetX: 0, offsetY: 0, pageX: 0, pageY: 0, clientWidth: 800, clientHeight: 600, scale: 1 },
            cssVisualViewport: { offsetX: 0, offsetY: 0, pageX: 0, pageY: 0, clientWidth: 800, clientHeight: 600, scale: 1 },
            contentSize: { x: 0, y: 0, ...size },
            cssContentSize: { x: 0, y: 0, ...size }
          }
        })
      }
      case "Page.captureScreenshot": {
        if (!sessionTarget) return reply({ error: { code: -32601, message: "'Page.captureScreenshot' wasn't found" } })
        if (behaviour.screenshotData !== undefined) return reply({ result: { data: behaviour.screenshotData } })
        const clip = params.clip as { width: number; height: number } | undefined
        const png = fakePng(clip ? Math.ceil(clip.width) : 800, clip ? Math.ceil(clip.height) : 600)
        return reply({ result: { data: png.toString("base64") } })
      }
      default:
        return reply({ error: { code: -32601, message: `'${msg.method}' wasn't found` } })
    }
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  const query = options.token === undefined ? "" : `?token=${encodeURIComponent(options.token)}`
  const host = options.advertisedHost ?? `127.0.0.1:${port}`
  const wsUrl = `ws://${host}${prefix}/devtools/browser/${BROWSER_ID}${options.advertisedHost ? "" : query}`
  const httpUrl = `http://127.0.0.1:${port}${prefix}${query}`

  return {
    port,
    httpUrl,
    wsUrl,
    targets,
    behaviour,
    calls,
    connections: () => connections,
    openSockets: () => clients.size,
    openSessions: () => sessions.size,
    httpRequests: () => httpRequests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of clients) c.terminate()
        for (const s of sockets) s.destroy()
        wss.close()
        server.close(() => resolve())
      })
  }
}

/** The fake as a scoped resource. */
export const fakeCdp = (options: FakeCdpOptions = {}) =>
  Effect.acquireRelease(
    Effect.promise(() => startFakeCdp(options)),
    (fake) => Effect.promise(() => fake.close())
  )

/** A loopback port with nothing listening on it. */
export const closedPort = async (): Promise<number> => {
  const s = http.createServer()
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve))
  const port = (s.address() as AddressInfo).port
  await new Promise<void>((resolve) => s.close(() => resolve()))
  return port
}
