import {
  FileSystem,
  HttpApi,
  HttpApiClient,
  HttpApiEndpoint,
  HttpApiGroup,
  HttpApiSchema,
  HttpClient,
  HttpClientRequest,
  HttpClientResponse,
  HttpIncomingMessage,
  Terminal
} from "@effect/platform"
import { NodeFileSystem, NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Option, Schema } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { describeCliError } from "../../../src/cli/errors.js"
import { leanRuntimeLayer } from "../../../src/cli/leanRuntime.js"
import { GatewayRunner } from "../../../src/gateway/GatewayRunner.js"
import { leanFileSystem } from "../../../src/platform/lean/fileSystem.js"
import { leanHttpClient } from "../../../src/platform/lean/httpClient.js"
import { leanTerminal } from "../../../src/platform/lean/terminal.js"
import { deferFormDataGlobal } from "../../../src/platform/lean/webGlobals.js"
import { bufferedResponse } from "../../../src/platform/nodeResponse.js"

// The lean runtime must do what @effect/platform-node does for everything the CLI uses: each HTTP and
// file-system case runs against both and compares.

interface Seen {
  readonly method: string
  readonly url: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void

/** A loopback HTTP server for the scope; records what it was sent. */
const server = (handler: Handler) =>
  Effect.acquireRelease(
    Effect.async<{ readonly url: string; readonly port: number; readonly seen: Array<Seen>; readonly server: http.Server }>(
      (resume) => {
        const seen: Array<Seen> = []
        const s = http.createServer((req, res) => {
          let body = ""
          req.setEncoding("utf8")
          req.on("data", (c: string) => (body += c))
          req.on("end", () => {
            seen.push({ method: req.method!, url: req.url!, headers: req.headers, body })
            handler(req, res, body)
          })
        })
        s.listen(0, "127.0.0.1", () => {
          const port = (s.address() as AddressInfo).port
          resume(Effect.succeed({ url: `http://127.0.0.1:${port}`, port, seen, server: s }))
        })
      }
    ),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

const json = (res: http.ServerResponse, status: number, value: unknown, headers: http.OutgoingHttpHeaders = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers })
  res.end(JSON.stringify(value))
}

/** A port nothing listens on (bound, then released). */
const freePort = Effect.async<number>((resume) => {
  const s = http.createServer()
  s.listen(0, "127.0.0.1", () => {
    const port = (s.address() as AddressInfo).port
    s.close(() => resume(Effect.succeed(port)))
  })
})

const clients = {
  lean: Layer.succeed(HttpClient.HttpClient, leanHttpClient),
  node: NodeHttpClient.layer
} as const

/** Runs `f` with each client and returns both results, for a side-by-side comparison. */
const both = <A, E>(f: Effect.Effect<A, E, HttpClient.HttpClient>) =>
  Effect.all({
    lean: Effect.scoped(Effect.provide(f, clients.lean)),
    node: Effect.scoped(Effect.provide(f, clients.node))
  })

describe("lean HttpClient", () => {
  it.scoped("GET: status, headers, JSON body, like the node client", () =>
    Effect.gen(function*() {
      const s = yield* server((_req, res) => json(res, 200, { tabs: [1, 2] }, { "x-answer": "42", "set-cookie": ["a=1", "b=2"] }))
      const get = Effect.gen(function*() {
        const response = yield* HttpClient.get(`${s.url}/tabs`, {
          urlParams: { profile: "work" },
          headers: { authorization: "Bearer t0k3n" }
        })
        return {
          status: response.status,
          answer: response.headers["x-answer"],
          contentType: response.headers["content-type"],
          cookies: Object.keys(response.cookies.cookies).sort(),
          body: yield* response.json,
          again: yield* response.text
        }
      })
      const { lean, node } = yield* both(get)
      expect(lean).toEqual({
        status: 200,
        answer: "42",
        contentType: "application/json",
        cookies: ["a", "b"],
        body: { tabs: [1, 2] },
        again: JSON.stringify({ tabs: [1, 2] })
      })
      expect(node.status).toBe(lean.status)
      expect(node.body).toEqual(lean.body)
      expect(node.cookies).toEqual(lean.cookies)
      const [leanSeen, nodeSeen] = s.seen
      expect(leanSeen!.url).toBe("/tabs?profile=work")
      expect(leanSeen!.headers.authorization).toBe("Bearer t0k3n")
      expect(nodeSeen!.url).toBe(leanSeen!.url)
      // One connection per request: nothing keeps the CLI's process alive after the answer.
      expect(leanSeen!.headers.connection).toBe("close")
    }))

  it.scoped("POST: a JSON body with its content type and length", () =>
    Effect.gen(function*() {
      const s = yield* server((_req, res, body) => json(res, 201, { echoed: JSON.parse(body) }))
      const post = HttpClientRequest.post(`${s.url}/tabs/open`).pipe(
        HttpClientRequest.bodyUnsafeJson({ url: "https://example.com/ü" }),
        HttpClient.execute,
        Effect.flatMap((r) => Effect.map(r.json, (body) => ({ status: r.status, body })))
      )
      const { lean, node } = yield* both(post)
      expect(lean).toEqual({ status: 201, body: { echoed: { url: "https://example.com/ü" } } })
      expect(node).toEqual(lean)
      const [leanSeen, nodeSeen] = s.seen
      expect(leanSeen!.method).toBe("POST")
      expect(leanSeen!.headers["content-type"]).toBe("application/json")
      expect(leanSeen!.headers["content-length"]).toBe(String(Buffer.byteLength(leanSeen!.body)))
      expect(nodeSeen!.body).toBe(leanSeen!.body)
    }))

  it.scoped("a streamed body is sent whole", () =>
    Effect.gen(function*() {
      const s = yield* server((_req, res, body) => json(res, 200, { length: body.length }))
      const response = yield* HttpClientRequest.post(s.url).pipe(
        HttpClientRequest.bodyText("x".repeat(100_000)),
        HttpClient.execute,
        Effect.flatMap((r) => r.json),
        Effect.provide(clients.lean)
      )
      expect(response).toEqual({ length: 100_000 })
    }))

  it.live("connection refused is a RequestError (Transport), which the CLI reports as the gateway not running", () =>
    Effect.gen(function*() {
      const port = yield* freePort
      const get = Effect.flip(HttpClient.get(`http://127.0.0.1:${port}/tabs`))
      const { lean, node } = yield* both(get)
      expect(lean._tag).toBe("RequestError")
      expect(lean.reason).toBe("Transport")
      expect((lean.cause as NodeJS.ErrnoException).code).toBe("ECONNREFUSED")
      expect([node._tag, node.reason]).toEqual([lean._tag, lean.reason])
      const line = describeCliError(lean, {
        baseUrl: `http://127.0.0.1:${port}`,
        controlPort: port,
        headers: {},
        configFile: "/x/svc.json"
      })
      expect(line).toContain(`127.0.0.1:${port}`)
      expect(line).toContain("svc gateway run")
    }))

  it.scoped("a body that is not JSON is a ResponseError (Decode); an empty one is null", () =>
    Effect.gen(function*() {
      const s = yield* server((req, res) => {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(req.url === "/empty" ? "" : "{not json")
      })
      const read = (p: string) => Effect.flatMap(HttpClient.get(`${s.url}${p}`), (r) => Effect.either(r.json))
      const bad = yield* both(read("/bad"))
      expect(bad.lean._tag).toBe("Left")
      if (bad.lean._tag === "Left") expect([bad.lean.left._tag, bad.lean.left.reason]).toEqual(["ResponseError", "Decode"])
      expect(bad.node._tag).toBe("Left")
      const empty = yield* both(read("/empty"))
      expect(empty.lean).toEqual(empty.node)
      expect(empty.lean._tag === "Right" && empty.lean.right).toBe(null)
    }))

  it.scoped("honours HttpIncomingMessage.MaxBodySize", () =>
    Effect.gen(function*() {
      const s = yield* server((_req, res) => res.end("y".repeat(5000)))
      const read = Effect.flatMap(HttpClient.get(s.url), (r) => Effect.flip(r.text)).pipe(
        HttpIncomingMessage.withMaxBodySize(Option.some(1000))
      )
      const { lean, node } = yield* both(read)
      expect([lean._tag, lean.reason]).toEqual(["ResponseError", "Decode"])
      expect([node._tag, node.reason]).toEqual([lean._tag, lean.reason])
    }))

  it.live("interrupting a request closes its connection", () =>
    Effect.gen(function*() {
      let closed = false
      const s = yield* server(() => {})
      s.server.on("connection", (socket) => socket.on("close", () => (closed = true)))
      const fiber = yield* Effect.fork(Effect.provide(HttpClient.get(s.url), clients.lean))
      while (s.seen.length === 0) yield* Effect.sleep("5 millis")
      yield* Fiber.interrupt(fiber)
      while (!closed) yield* Effect.sleep("5 millis")
      expect(closed).toBe(true)
    }).pipe(Effect.scoped, Effect.timeout("5 seconds")))

  it.scoped("serves HttpApiClient: decoded success, declared errors by status, path and payload", () =>
    Effect.gen(function*() {
      class Missing extends Schema.TaggedError<Missing>()("Missing", { message: Schema.String }, HttpApiSchema.annotations({ status: 404 })) {}
      const Item = Schema.Struct({ id: Schema.String, n: Schema.Number })
      class Items extends HttpApiGroup.make("items")
        .add(HttpApiEndpoint.get("get", "/items/:id").setPath(Schema.Struct({ id: Schema.String })).addSuccess(Item))
        .add(HttpApiEndpoint.post("create", "/items").setPayload(Item).addSuccess(Item, { status: 201 }))
      {}
      class Api extends HttpApi.make("api").add(Items).addError(Missing) {}
      const s = yield* server((req, res, body) => {
        if (req.method === "POST") return json(res, 201, JSON.parse(body))
        if (req.url === "/items/a") return json(res, 200, { id: "a", n: 1 })
        json(res, 404, { _tag: "Missing", message: "no such item" })
      })
      const calls = Effect.gen(function*() {
        const client = yield* HttpApiClient.make(Api, { baseUrl: s.url })
        return {
          found: yield* client.items.get({ path: { id: "a" } }),
          missing: yield* Effect.flip(client.items.get({ path: { id: "b" } })),
          created: yield* client.items.create({ payload: { id: "c", n: 3 } })
        }
      })
      const { lean, node } = yield* both(calls)
      expect(lean.found).toEqual({ id: "a", n: 1 })
      expect(lean.missing).toBeInstanceOf(Missing)
      expect(lean.missing.message).toBe("no such item")
      expect(lean.created).toEqual({ id: "c", n: 3 })
      expect(node).toEqual(lean)
    }))

  it.effect("bufferedResponse reads like a network response", () =>
    Effect.gen(function*() {
      const request = HttpClientRequest.get("http://127.0.0.1:1/x")
      const response = bufferedResponse(request, {
        status: 200,
        headers: { "content-type": "application/json" },
        body: new TextEncoder().encode('{"a":1}')
      })
      expect(HttpClientResponse.TypeId in response).toBe(true)
      expect(yield* response.json).toEqual({ a: 1 })
      expect(new Uint8Array(yield* response.arrayBuffer)).toEqual(new TextEncoder().encode('{"a":1}'))
      expect(response.headers["content-type"]).toBe("application/json")
    }))
})

describe("lean FileSystem", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-lean-fs-"))
  const file = path.join(dir, "svc.json")
  fs.writeFileSync(file, '{"gateway":{"port":18789}}\n')

  const withBoth = <A, E>(f: (fs: FileSystem.FileSystem) => Effect.Effect<A, E>) =>
    Effect.all({
      lean: f(leanFileSystem),
      node: Effect.flatMap(Effect.provide(FileSystem.FileSystem, NodeFileSystem.layer), f)
    })

  it.effect("readFileString and exists, like the node file system", () =>
    Effect.gen(function*() {
      const read = yield* withBoth((fs) => fs.readFileString(file))
      expect(read.lean).toBe('{"gateway":{"port":18789}}\n')
      expect(read.node).toBe(read.lean)
      const exists = yield* withBoth((fs) => Effect.all([fs.exists(file), fs.exists(path.join(dir, "nope"))]))
      expect(exists.lean).toEqual([true, false])
      expect(exists.node).toEqual(exists.lean)
    }))

  it.effect("a missing file is the same SystemError (NotFound), which the CLI treats as no config", () =>
    Effect.gen(function*() {
      const missing = path.join(dir, "missing.json")
      const { lean, node } = yield* withBoth((fs) => Effect.flip(fs.readFileString(missing)))
      const pick = (e: typeof lean) => e._tag === "SystemError" ? [e._tag, e.reason, e.module, e.method, e.pathOrDescriptor] : [e._tag]
      expect(pick(lean)).toEqual(["SystemError", "NotFound", "FileSystem", "readFile", missing])
      expect(pick(node)).toEqual(pick(lean))
      const dirRead = yield* withBoth((fs) => Effect.flip(fs.readFileString(dir)))
      expect(pick(dirRead.lean)).toEqual(pick(dirRead.node))
    }))

  it.effect("stat, readDirectory and realPath", () =>
    Effect.gen(function*() {
      const info = yield* withBoth((fs) => Effect.all([fs.stat(file), fs.stat(dir)]))
      expect(info.lean.map((i) => i.type)).toEqual(["File", "Directory"])
      expect(info.lean[0].size).toBe(info.node[0].size)
      const listing = yield* withBoth((fs) => fs.readDirectory(dir))
      expect(listing.lean).toEqual(["svc.json"])
      const real = yield* withBoth((fs) => fs.realPath(file))
      expect(real.lean).toBe(real.node)
    }))

  it.effect("what the CLI does not use fails with a BadArgument naming the lean runtime", () =>
    Effect.gen(function*() {
      const e = yield* Effect.flip(leanFileSystem.writeFileString(path.join(dir, "x"), "x"))
      expect(e._tag).toBe("BadArgument")
      expect(e.message).toContain("lean CLI runtime")
      expect(fs.existsSync(path.join(dir, "x"))).toBe(false)
    }))
})

describe("lean Terminal", () => {
  it.effect("columns, rows and isTTY come from stdout", () =>
    Effect.gen(function*() {
      expect(yield* leanTerminal.columns).toBe(process.stdout.columns ?? 0)
      expect(yield* leanTerminal.rows).toBe(process.stdout.rows ?? 0)
      expect(yield* leanTerminal.isTTY).toBe(Boolean(process.stdout.isTTY))
    }))

  it.effect("display writes the text to stdout as is", () =>
    Effect.gen(function*() {
      const written: Array<string> = []
      const original = process.stdout.write
      process.stdout.write = ((chunk: string, cb?: (err?: Error | null) => void) => {
        written.push(String(chunk))
        cb?.()
        return true
      }) as typeof process.stdout.write
      yield* Effect.ensuring(
        leanTerminal.display("\u001b[1mBold?\u001b[0m (y/n) "),
        Effect.sync(() => (process.stdout.write = original))
      )
      expect(written).toEqual(["\u001b[1mBold?\u001b[0m (y/n) "])
    }))

  it.effect("the runtime layer provides every service the CLI needs", () =>
    Effect.gen(function*() {
      const services = yield* Effect.all([FileSystem.FileSystem, Terminal.Terminal, HttpClient.HttpClient, GatewayRunner])
      expect(services[0]).toBe(leanFileSystem)
      expect(services[1]).toBe(leanTerminal)
      expect(services[2]).toBe(leanHttpClient)
    }).pipe(Effect.provide(leanRuntimeLayer({ fullBundle: "/nowhere/svc.cjs", execArgv: [] }))))
})

describe("FormData stand-in", () => {
  it("answers instanceof for plain values without touching node's lazy global; `new` gets the real one", () => {
    const RealFormData = globalThis.FormData
    const original = Object.getOwnPropertyDescriptor(globalThis, "FormData")!
    let loads = 0
    // Node defines FormData as a getter that loads fetch on first use; stand in for it, counting uses.
    Object.defineProperty(globalThis, "FormData", {
      configurable: true,
      enumerable: false,
      get: () => {
        loads++
        return RealFormData
      },
      set: () => {}
    })
    try {
      const restore = deferFormDataGlobal()
      expect(({ url: "x" }) instanceof FormData).toBe(false)
      expect((null as unknown) instanceof FormData).toBe(false)
      expect((new Uint8Array(1) as unknown) instanceof FormData).toBe(false)
      expect(loads).toBe(0)
      const form = new FormData()
      form.append("a", "1")
      expect(loads).toBe(1)
      expect(form).toBeInstanceOf(RealFormData)
      expect(form instanceof FormData).toBe(true)
      expect(form.get("a")).toBe("1")
      restore()
    } finally {
      Object.defineProperty(globalThis, "FormData", original)
    }
  })

  it("restore puts the original property back when nothing needed FormData", () => {
    const RealFormData = globalThis.FormData
    const original = Object.getOwnPropertyDescriptor(globalThis, "FormData")!
    const getter = () => RealFormData
    Object.defineProperty(globalThis, "FormData", { configurable: true, enumerable: false, get: getter })
    try {
      const restore = deferFormDataGlobal()
      expect(Object.getOwnPropertyDescriptor(globalThis, "FormData")!.get).not.toBe(getter)
      restore()
      expect(Object.getOwnPropertyDescriptor(globalThis, "FormData")!.get).toBe(getter)
    } finally {
      Object.defineProperty(globalThis, "FormData", original)
    }
  })
})
