// A fake bridge server on a loopback port, following ../shared/BRIDGE-API.md: password on the query
// string only, the {status, message, data|error} envelope, Private-API routes failing with 500 when the
// helper is not connected. Every call is recorded (without the password) for assertions.

import { Effect } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

export interface FakeServerInfo {
  os_version: string
  server_version: string
  private_api: boolean
  helper_connected: boolean
}

export interface FakeChat {
  guid: string
  style: number // 43 group, 45 DM
  chatIdentifier: string
  displayName?: string
  originalROWID?: number
  participants: Array<{ address: string }>
}

export interface RecordedCall {
  method: string
  /** Decoded path, e.g. "/api/v1/chat/iMessage;-;+15551230001/typing". */
  path: string
  /** Query parameters without the password. */
  query: Record<string, string>
  /** Whether the request carried a password in a header (it never should). */
  passwordHeader: boolean
  /** JSON body, when there was one. */
  body?: unknown
  /** Multipart text fields. */
  fields?: Record<string, string>
  /** Multipart files: name and size. */
  files?: Record<string, { name: string; size: number }>
  /** Multipart files: their bytes and declared content type. */
  fileData?: Record<string, { bytes: Uint8Array; type: string }>
  at: number
}

export interface InjectedFailure {
  /** Exact decoded path to fail, e.g. "/api/v1/message/text". */
  path: string
  method?: string
  /** Status of the error envelope (ignored when hang). */
  status?: number
  /** How many of the next matching calls fail (default 1). */
  times?: number
  /** Never answer the matching calls (the client must time out). */
  hang?: boolean
  message?: string
}

export interface FakeBridgeOptions {
  password?: string
  serverInfo?: Partial<FakeServerInfo>
  chats?: Array<FakeChat>
  /** Messages served by message/query and message/:guid (bridge message objects). */
  messages?: Array<Record<string, unknown>>
  /** Attachment guid → size in bytes served by attachment/:guid/download. */
  attachments?: Record<string, number>
}

export interface DownloadRecord {
  guid: string
  size: number
  bytesWritten: number
  /** The client closed the connection before the whole file was sent. */
  aborted: boolean
  finished: boolean
}

export interface FakeBridge {
  readonly url: string
  readonly port: number
  readonly password: string
  readonly calls: Array<RecordedCall>
  readonly chats: Array<FakeChat>
  readonly messages: Array<Record<string, unknown>>
  readonly attachments: Record<string, number>
  readonly downloads: Array<DownloadRecord>
  serverInfo: FakeServerInfo
  /** Send Content-Length on downloads (default true); false streams chunked, so only a streaming cap can stop it. */
  downloadContentLength: boolean
  /** Calls to a path (and method, if given), in order. */
  callsTo(path: string, method?: string): Array<RecordedCall>
  failNext(failure: InjectedFailure): void
  close(): Promise<void>
}

const json = (res: http.ServerResponse, status: number, payload: unknown) => {
  const body = JSON.stringify(payload)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
  res.end(body)
}
const ok = (res: http.ServerResponse, data: unknown, message = "Success") => json(res, 200, { status: 200, message, data })
const fail = (res: http.ServerResponse, status: number, message: string, type = "Error") =>
  json(res, status, { status, message, error: { type, message } })

const readBody = (req: http.IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const parts: Array<Buffer> = []
    req.on("data", (c: Buffer) => parts.push(c))
    req.on("end", () => resolve(Buffer.concat(parts)))
    req.on("error", reject)
  })

const REACTIONS = ["love", "like", "dislike", "laugh", "emphasize", "question"]

export const startFakeBridge = async (options: FakeBridgeOptions = {}): Promise<FakeBridge> => {
  const password = options.password ?? "s3cret pw&=?"
  const calls: Array<RecordedCall> = []
  const failures: Array<InjectedFailure & { remaining: number }> = []
  const downloads: Array<DownloadRecord> = []
  const hanging = new Set<http.ServerResponse>()
  let counter = 0

  const state: FakeBridge = {
    url: "",
    port: 0,
    password,
    calls,
    chats: [...(options.chats ?? [])],
    messages: [...(options.messages ?? [])],
    attachments: { ...options.attachments },
    downloads,
    serverInfo: {
      os_version: "15.3.1",
      server_version: "1.9.9",
      private_api: true,
      helper_connected: true,
      ...options.serverInfo
    },
    downloadContentLength: true,
    callsTo: (path, method) => calls.filter((c) => c.path === path && (method === undefined || c.method === method)),
    failNext: (f) => {
      failures.push({ ...f, remaining: f.times ?? 1 })
    },
    close: () => Promise.resolve()
  }

  const privateApiUsable = () => state.serverInfo.private_api && state.serverInfo.helper_connected
  const needsPrivateApi = (res: http.ServerResponse) => {
    if (privateApiUsable()) return false
    fail(res, 500, "iMessage Error", "iMessage Error")
    return true
  }

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://fake")
    const path = decodeURIComponent(url.pathname)
    const method = req.method ?? "GET"
    const query: Record<string, string> = {}
    for (const [k, v] of url.searchParams) if (k !== "password") query[k] = v
    const passwordHeader = req.headers["password"] !== undefined || req.headers["authorization"] !== undefined

    const raw = await readBody(req)
    const call: RecordedCall = { method, path, query, passwordHeader, at: Date.now() }
    const contentType = req.headers["content-type"] ?? ""
    if (contentType.startsWith("multipart/form-data")) {
      const form = await new Response(raw, { headers: { "content-type": contentType } }).formData()
      const fields: Record<string, string> = {}
      const files: Record<string, { name: string; size: number }> = {}
      const fileData: Record<string, { bytes: Uint8Array; type: string }> = {}
      for (const [k, v] of form.entries()) {
        if (typeof v === "string") fields[k] = v
        else {
          files[k] = { name: (v as File).name, size: (v as Blob).size }
          fileData[k] = { bytes: new Uint8Array(await (v as Blob).arrayBuffer()), type: (v as Blob).type }
        }
      }
      call.fields = fields
      call.files = files
      call.fileData = fileData
    } else if (raw.length > 0) {
      try {
        call.body = JSON.parse(raw.toString("utf8"))
      } catch {
        call.body = raw.toString("utf8")
      }
    }
    calls.push(call)

    if (url.searchParams.get("password") !== password) {
      return fail(res, 401, "You are not authorized to access this resource", "Unauthorized")
    }

    const injected = failures.find((f) => f.remaining > 0 && f.path === path && (f.method === undefined || f.method === method))
    if (injected !== undefined) {
      injected.remaining--
      if (injected.hang === true) {
        hanging.add(res)
        res.on("close", () => hanging.delete(res))
        return
      }
      const status = injected.status ?? 500
      return fail(res, status, injected.message ?? (status === 504 ? "Gateway Timeout" : "iMessage Error"))
    }

    const body = (call.body ?? {}) as Record<string, unknown>
    const fields = call.fields ?? {}
    const api = "/api/v1"
    let m: RegExpExecArray | null

    if (method === "GET" && path === `${api}/ping`) return ok(res, "pong", "Ping received!")
    if (method === "GET" && path === `${api}/server/info`) return ok(res, { ...state.serverInfo, detected_imessage: "me@example.com" })

    if (method === "POST" && path === `${api}/message/text`) {
      if (typeof body.chatGuid !== "string") return fail(res, 400, "chatGuid is required", "Validation Error")
      if (body.method !== "apple-script" && body.method !== "private-api") return fail(res, 400, "bad method", "Validation Error")
      if (body.method === "apple-script" && typeof body.tempGuid !== "string") return fail(res, 400, "tempGuid is required", "Validation Error")
      if ((body.effectId !== undefined || body.subject !== undefined || body.selectedMessageGuid !== undefined) && body.method !== "private-api") {
        return fail(res, 400, "effects, subjects and replies need the private-api method", "Validation Error")
      }
      if (body.method === "private-api" && needsPrivateApi(res)) return
      return ok(res, {
        guid: `msg-${++counter}`,
        tempGuid: body.tempGuid,
        text: body.message,
        isFromMe: true,
        dateCreated: Date.now(),
        chats: [{ guid: body.chatGuid }]
      }, "Message sent!")
    }

    if (method === "POST" && path === `${api}/message/attachment`) {
      if (fields.chatGuid === undefined || call.files?.attachment === undefined) return fail(res, 400, "chatGuid and attachment are required", "Validation Error")
      if (fields.method === "private-api" && needsPrivateApi(res)) return
      return ok(res, { guid: `msg-${++counter}`, tempGuid: fields.tempGuid, attachments: [{ guid: `at-${counter}`, transferName: fields.name }] }, "Attachment sent!")
    }

    if (method === "POST" && path === `${api}/chat/new`) {
      if (!Array.isArray(body.addresses) || body.addresses.length === 0) return fail(res, 400, "addresses is required", "Validation Error")
      if (needsPrivateApi(res)) return
      const address = String(body.addresses[0])
      const guid = `${typeof body.service === "string" ? body.service : "iMessage"};-;${address}`
      state.chats.push({ guid, style: 45, chatIdentifier: address, participants: [{ address }] })
      return ok(res, { guid, style: 45, chatIdentifier: address, participants: [{ address }] }, "Chat created!")
    }

    if (method === "POST" && path === `${api}/chat/query`) {
      const limit = typeof body.limit === "number" ? body.limit : 1000
      const offset = typeof body.offset === "number" ? body.offset : 0
      const withParticipants = Array.isArray(body.with) && body.with.includes("participants")
      const page = state.chats.slice(offset, offset + limit).map((c) => (withParticipants ? c : { ...c, participants: undefined }))
      return json(res, 200, { status: 200, message: "Success", data: page, metadata: { count: page.length, total: state.chats.length, offset, limit } })
    }

    if (method === "POST" && path === `${api}/message/query`) {
      const after = typeof body.after === "number" ? body.after : 0
      const limit = typeof body.limit === "number" ? body.limit : 100
      const sorted = state.messages
        .filter((msg) => typeof msg.dateCreated === "number" && msg.dateCreated > after)
        .sort((a, b) => (body.sort === "DESC" ? -1 : 1) * ((a.dateCreated as number) - (b.dateCreated as number)))
      return ok(res, sorted.slice(0, limit))
    }

    if (method === "POST" && path === `${api}/message/react`) {
      if (needsPrivateApi(res)) return
      const reaction = String(body.reaction ?? "")
      if (!REACTIONS.includes(reaction.replace(/^-/, ""))) return fail(res, 400, "bad reaction", "Validation Error")
      return ok(res, { guid: `msg-${++counter}`, associatedMessageGuid: body.selectedMessageGuid, associatedMessageType: reaction })
    }

    if ((m = /^\/api\/v1\/message\/([^/]+)\/(edit|unsend)$/.exec(path)) && method === "POST") {
      if (needsPrivateApi(res)) return
      return ok(res, { guid: m[1] })
    }

    if ((m = /^\/api\/v1\/message\/([^/]+)$/.exec(path)) && method === "GET") {
      const found = state.messages.find((msg) => msg.guid === m![1])
      if (found === undefined) return fail(res, 404, "Message does not exist!", "Not Found")
      const withs = (url.searchParams.get("with") ?? "").split(",")
      const out: Record<string, unknown> = { ...found }
      if (!withs.includes("chats") && !withs.includes("chat")) delete out.chats
      if (!withs.includes("attachment") && !withs.includes("attachments")) delete out.attachments
      return ok(res, out)
    }

    if ((m = /^\/api\/v1\/attachment\/([^/]+)\/download$/.exec(path)) && method === "GET") {
      const size = state.attachments[m[1]!]
      if (size === undefined) return fail(res, 404, "Attachment does not exist!", "Not Found")
      const rec: DownloadRecord = { guid: m[1]!, size, bytesWritten: 0, aborted: false, finished: false }
      downloads.push(rec)
      res.writeHead(200, {
        "content-type": "application/octet-stream",
        ...(state.downloadContentLength ? { "content-length": size } : {})
      })
      res.on("close", () => {
        if (!rec.finished) rec.aborted = true
      })
      const block = Buffer.alloc(64 * 1024, 7)
      const pump = () => {
        while (rec.bytesWritten < size && !res.destroyed) {
          const n = Math.min(block.length, size - rec.bytesWritten)
          rec.bytesWritten += n
          if (!res.write(n === block.length ? block : block.subarray(0, n))) {
            res.once("drain", pump)
            return
          }
        }
        if (rec.bytesWritten >= size && !res.destroyed) {
          rec.finished = true
          res.end()
        }
      }
      pump()
      return
    }

    if ((m = /^\/api\/v1\/chat\/([^/]+)\/(typing|read|leave|icon|participant\/add|participant\/remove)$/.exec(path))) {
      const action = m[2]
      if (action === "typing" && method !== "POST" && method !== "DELETE") return fail(res, 404, "Not found")
      if (action !== "typing" && method !== "POST") return fail(res, 404, "Not found")
      if (needsPrivateApi(res)) return
      if (action === "icon" && call.files?.icon === undefined) return fail(res, 400, "icon is required", "Validation Error")
      if (action.startsWith("participant") && typeof body.address !== "string") return fail(res, 400, "address is required", "Validation Error")
      return ok(res, action === "typing" || action === "read" ? null : { guid: m[1] })
    }

    if ((m = /^\/api\/v1\/chat\/([^/]+)$/.exec(path)) && method === "PUT") {
      if (needsPrivateApi(res)) return
      if (typeof body.displayName !== "string") return fail(res, 400, "displayName is required", "Validation Error")
      return ok(res, { guid: m[1], displayName: body.displayName })
    }

    return fail(res, 404, `no route for ${method} ${path}`, "Not Found")
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) fail(res, 500, String(e))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      })
  })
  return state
}

/** The fake bridge as a scoped resource: closed when the scope ends. */
export const fakeBridge = (options: FakeBridgeOptions = {}) =>
  Effect.acquireRelease(
    Effect.promise(() => startFakeBridge(options)),
    (bridge) => Effect.promise(() => bridge.close())
  )

/** POST a webhook payload (as the bridge server does: JSON, no auth header) to a URL. */
export const postWebhook = async (
  url: string,
  payload: unknown,
  init: { headers?: Record<string, string>; rawBody?: string } = {}
): Promise<{ status: number; body: string }> => {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...init.headers },
    body: init.rawBody ?? JSON.stringify(payload)
  })
  return { status: res.status, body: await res.text() }
}

/** A `new-message` webhook as the bridge sends it: a DM from `sender`, with its chat. */
export const newMessageWebhook = (guid: string, text: string, sender = "+15551230001", extra: Record<string, unknown> = {}) => ({
  type: "new-message",
  data: {
    guid,
    text,
    handle: { address: sender, service: "iMessage" },
    isFromMe: false,
    attachments: [],
    dateCreated: Date.now(),
    chats: [{ guid: `iMessage;-;${sender}`, style: 45, chatIdentifier: sender, displayName: "" }],
    ...extra
  }
})
