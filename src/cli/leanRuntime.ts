import {
  Cookies,
  Error as PlatformError,
  FileSystem,
  Headers,
  HttpClient,
  HttpClientError,
  type HttpClientRequest,
  HttpClientResponse,
  HttpIncomingMessage,
  Path,
  Terminal,
  UrlParams
} from "@effect/platform"
import type * as HttpBody from "@effect/platform/HttpBody"
import * as NodePath from "@effect/platform-node/NodePath"
import { Chunk, Context, Effect, Exit, Inspectable, Layer, Mailbox, Option, Stream } from "effect"
import type * as NodeFs from "node:fs"
import type * as NodeHttp from "node:http"
import { GatewayRunError, GatewayRunner } from "../gateway/GatewayRunner.js"

// The CLI's platform for the V8 start-up snapshot (src/entry/cli.ts). Everything here is evaluated while
// the snapshot is built, when `node:http`, `node:readline`, `node:child_process` and friends cannot be
// loaded, so every node builtin beyond `node:path`/`node:url` is loaded when it is first used, at run time.
// Where the CLI uses it, each service behaves like its @effect/platform-node counterpart (same errors,
// same reasons); the rest fails with a BadArgument that says so.

/** A node builtin, loaded on first use (never while the snapshot is being built). */
const builtin = <T>(id: string): T =>
  (typeof process.getBuiltinModule === "function" ? process.getBuiltinModule(id) : require(id)) as T

const fs = () => builtin<typeof NodeFs>("node:fs")

// ---------------------------------------------------------------------------------------------- FileSystem

const errnoReason = (code: string | undefined): PlatformError.SystemErrorReason => {
  switch (code) {
    case "ENOENT":
      return "NotFound"
    case "EACCES":
      return "PermissionDenied"
    case "EEXIST":
      return "AlreadyExists"
    case "EISDIR":
    case "ENOTDIR":
    case "ELOOP":
      return "BadResource"
    case "EBUSY":
      return "Busy"
    default:
      return "Unknown"
  }
}

const systemError = (method: string, path: string, err: NodeJS.ErrnoException) =>
  new PlatformError.SystemError({
    reason: errnoReason(err.code),
    module: "FileSystem",
    method,
    pathOrDescriptor: path,
    ...(err.syscall !== undefined ? { syscall: err.syscall } : {}),
    description: err.message,
    cause: err
  })

const badArgument = (module: "FileSystem" | "Terminal", method: string, cause: unknown, description?: string) =>
  new PlatformError.BadArgument({ module, method, cause, ...(description !== undefined ? { description } : {}) })

const unsupported = (method: string) =>
  badArgument(
    "FileSystem",
    method,
    undefined,
    `FileSystem.${method} is not available in the lean CLI runtime (src/cli/leanRuntime.ts); add it there if the CLI needs it`
  )

/**
 * One synchronous node call as an effect: an errno error becomes the SystemError platform-node makes of
 * it, anything else a BadArgument. Synchronous because a CLI run reads a file or two, and the first
 * asynchronous call would start libuv's thread pool (four threads), which is most of what a read costs.
 */
const fsSync = <A>(method: string, path: string, call: (fs: typeof NodeFs) => A) =>
  Effect.suspend(() => {
    try {
      return Effect.succeed(call(fs()))
    } catch (err) {
      const e = err as NodeJS.ErrnoException
      return Effect.fail<PlatformError.PlatformError>(
        typeof e?.code === "string" && typeof e.syscall === "string"
          ? systemError(method, path, e)
          : badArgument("FileSystem", method, err)
      )
    }
  })

const toInfo = (stat: NodeFs.Stats): FileSystem.File.Info => ({
  type: stat.isFile()
    ? "File"
    : stat.isDirectory()
    ? "Directory"
    : stat.isSymbolicLink()
    ? "SymbolicLink"
    : stat.isBlockDevice()
    ? "BlockDevice"
    : stat.isCharacterDevice()
    ? "CharacterDevice"
    : stat.isFIFO()
    ? "FIFO"
    : stat.isSocket()
    ? "Socket"
    : "Unknown",
  mtime: Option.fromNullable(stat.mtime),
  atime: Option.fromNullable(stat.atime),
  birthtime: Option.fromNullable(stat.birthtime),
  dev: stat.dev,
  rdev: Option.fromNullable(stat.rdev),
  ino: Option.fromNullable(stat.ino),
  mode: stat.mode,
  nlink: Option.fromNullable(stat.nlink),
  uid: Option.fromNullable(stat.uid),
  gid: Option.fromNullable(stat.gid),
  size: FileSystem.Size(stat.size),
  blksize: Option.map(Option.fromNullable(stat.blksize), FileSystem.Size),
  blocks: Option.fromNullable(stat.blocks)
})

const unsupportedEffect = (method: string) => () => Effect.fail(unsupported(method))

/** What the CLI and @effect/cli read: access/exists, readFile/readFileString, stat, readDirectory, realPath. */
export const leanFileSystem: FileSystem.FileSystem = FileSystem.make({
  access: (path, options) =>
    fsSync("access", path, (fs) => {
      let mode = fs.constants.F_OK
      if (options?.readable) mode |= fs.constants.R_OK
      if (options?.writable) mode |= fs.constants.W_OK
      fs.accessSync(path, mode)
    }),
  readFile: (path) => fsSync("readFile", path, (fs): Uint8Array => fs.readFileSync(path)),
  stat: (path) => fsSync("stat", path, (fs) => toInfo(fs.statSync(path))),
  readDirectory: (path, options) =>
    fsSync("readDirectory", path, (fs) =>
      fs.readdirSync(path, { encoding: "utf8", recursive: options?.recursive ?? false })),
  realPath: (path) => fsSync("realPath", path, (fs) => fs.realpathSync(path)),
  chmod: unsupportedEffect("chmod"),
  chown: unsupportedEffect("chown"),
  copy: unsupportedEffect("copy"),
  copyFile: unsupportedEffect("copyFile"),
  link: unsupportedEffect("link"),
  makeDirectory: unsupportedEffect("makeDirectory"),
  makeTempDirectory: unsupportedEffect("makeTempDirectory"),
  makeTempDirectoryScoped: unsupportedEffect("makeTempDirectoryScoped"),
  makeTempFile: unsupportedEffect("makeTempFile"),
  makeTempFileScoped: unsupportedEffect("makeTempFileScoped"),
  open: unsupportedEffect("open"),
  readLink: unsupportedEffect("readLink"),
  remove: unsupportedEffect("remove"),
  rename: unsupportedEffect("rename"),
  symlink: unsupportedEffect("symlink"),
  truncate: unsupportedEffect("truncate"),
  utimes: unsupportedEffect("utimes"),
  watch: () => Stream.fail(unsupported("watch")),
  writeFile: unsupportedEffect("writeFile")
})

// ---------------------------------------------------------------------------------------------- Terminal

const defaultShouldQuit = (input: Terminal.UserInput) =>
  input.key.ctrl && (input.key.name === "c" || input.key.name === "d")

type Readline = typeof import("node:readline")

/** stdin as a readline interface for the duration of a scope (raw mode while it is a TTY). */
const withReadline = Effect.acquireRelease(
  Effect.sync(() => {
    const readline = builtin<Readline>("node:readline")
    const rl = readline.createInterface({ input: process.stdin, escapeCodeTimeout: 50 })
    readline.emitKeypressEvents(process.stdin, rl)
    if (process.stdin.isTTY) process.stdin.setRawMode(true)
    return rl
  }),
  (rl) =>
    Effect.sync(() => {
      if (process.stdin.isTTY) process.stdin.setRawMode(false)
      rl.close()
    })
)

/** Output sizes and prompts on stdout; input (only @effect/cli's prompts and wizard read it) from stdin. */
export const leanTerminal: Terminal.Terminal = Terminal.Terminal.of({
  columns: Effect.sync(() => process.stdout.columns ?? 0),
  rows: Effect.sync(() => process.stdout.rows ?? 0),
  isTTY: Effect.sync(() => Boolean(process.stdout.isTTY)),
  readInput: Effect.gen(function*() {
    yield* withReadline
    const mailbox = yield* Mailbox.make<Terminal.UserInput>()
    const onKeypress = (s: string | undefined, k: { name?: string; ctrl?: boolean; meta?: boolean; shift?: boolean }) => {
      const input: Terminal.UserInput = {
        input: Option.fromNullable(s),
        key: { name: k.name ?? "", ctrl: !!k.ctrl, meta: !!k.meta, shift: !!k.shift }
      }
      mailbox.unsafeOffer(input)
      if (defaultShouldQuit(input)) mailbox.unsafeDone(Exit.void)
    }
    process.stdin.on("keypress", onKeypress)
    yield* Effect.addFinalizer(() => Effect.sync(() => process.stdin.off("keypress", onKeypress)))
    return mailbox as Mailbox.ReadonlyMailbox<Terminal.UserInput>
  }),
  readLine: Effect.scoped(
    Effect.flatMap(withReadline, (rl) =>
      Effect.async<string, Terminal.QuitException>((resume) => {
        const onLine = (line: string) => resume(Effect.succeed(line))
        rl.once("line", onLine)
        return Effect.sync(() => rl.off("line", onLine))
      }))
  ),
  display: (text) =>
    Effect.uninterruptible(
      Effect.async<void, PlatformError.PlatformError>((resume) => {
        process.stdout.write(text, (err) =>
          resume(
            err
              ? Effect.fail(badArgument("Terminal", "display", err, "Failed to write prompt to stdout"))
              : Effect.void
          ))
      })
    )
})

// ---------------------------------------------------------------------------------------------- HttpClient

/** What arrived before the body. */
interface ResponseHead {
  readonly status: number
  readonly statusText: string | undefined
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  readonly remoteAddress: string | undefined
}

/** Reads the whole body, failing once more than `maxBytes` arrived. */
type BodyReader = (maxBytes: bigint | undefined) => Effect.Effect<Uint8Array, unknown>

/** The response of one request. The body is read once, on first use, and kept (so it can be read again). */
class LeanResponse extends Inspectable.Class implements HttpClientResponse.HttpClientResponse {
  readonly [HttpClientResponse.TypeId]: HttpClientResponse.TypeId = HttpClientResponse.TypeId
  readonly [HttpIncomingMessage.TypeId]: HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId

  constructor(
    readonly request: HttpClientRequest.HttpClientRequest,
    private readonly head: ResponseHead,
    private readonly readBody: BodyReader
  ) {
    super()
  }

  private decodeError = (cause: unknown) =>
    new HttpClientError.ResponseError({ request: this.request, response: this, reason: "Decode", cause })

  get status(): number {
    return this.head.status
  }

  get headers(): Headers.Headers {
    return Headers.fromInput(this.head.headers as Record<string, string | ReadonlyArray<string>>)
  }

  get cookies(): Cookies.Cookies {
    const header = this.head.headers["set-cookie"]
    return Array.isArray(header) ? Cookies.fromSetCookie(header) : Cookies.empty
  }

  get remoteAddress(): Option.Option<string> {
    return Option.fromNullable(this.head.remoteAddress)
  }

  private bodyEffect: Effect.Effect<Uint8Array, HttpClientError.ResponseError> | undefined
  /** The whole body, honouring HttpIncomingMessage.MaxBodySize like the node platform. */
  get body(): Effect.Effect<Uint8Array, HttpClientError.ResponseError> {
    if (this.bodyEffect !== undefined) return this.bodyEffect
    const read = Effect.flatMap(HttpIncomingMessage.MaxBodySize, (max) =>
      Effect.mapError(this.readBody(Option.getOrUndefined(max)), this.decodeError))
    return (this.bodyEffect = Effect.runSync(Effect.cached(read)))
  }

  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpClientError.ResponseError> {
    return Effect.map(this.body, (bytes) =>
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer)
  }

  get text(): Effect.Effect<string, HttpClientError.ResponseError> {
    return Effect.map(this.body, (bytes) => new TextDecoder().decode(bytes))
  }

  get json(): Effect.Effect<unknown, HttpClientError.ResponseError> {
    return Effect.tryMap(this.text, {
      try: (text) => (text === "" ? null : JSON.parse(text) as unknown),
      catch: this.decodeError
    })
  }

  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpClientError.ResponseError> {
    return Effect.flatMap(this.text, (text) =>
      Effect.try({ try: () => UrlParams.fromInput(new URLSearchParams(text)), catch: this.decodeError }))
  }

  /** The body as one chunk once it has all arrived (the CLI reads small JSON bodies). */
  get stream(): Stream.Stream<Uint8Array, HttpClientError.ResponseError> {
    return Stream.fromEffect(this.body)
  }

  get formData(): Effect.Effect<FormData, HttpClientError.ResponseError> {
    return Effect.flatMap(this.body, (bytes) =>
      Effect.tryPromise({
        try: () => {
          const headers = new globalThis.Headers()
          for (const [k, v] of Object.entries(this.head.headers)) {
            for (const value of typeof v === "string" ? [v] : v ?? []) headers.append(k, value)
          }
          return new Response(bytes, {
            headers,
            status: this.status,
            ...(this.head.statusText ? { statusText: this.head.statusText } : {})
          }).formData()
        },
        catch: this.decodeError
      }))
  }

  toJSON(): unknown {
    return HttpIncomingMessage.inspect(this, {
      _id: "@effect/platform/HttpClientResponse",
      request: this.request.toJSON(),
      status: this.status
    })
  }
}

/** The body of a node response, read to the end. */
const readIncoming = (source: NodeHttp.IncomingMessage): BodyReader => (limit) =>
  Effect.async<Uint8Array, unknown>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const cleanup = () => {
      source.off("data", onData)
      source.off("end", onEnd)
      source.off("error", onError)
      source.off("close", onClose)
    }
    const fail = (cause: unknown) => {
      cleanup()
      resume(Effect.fail(cause))
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (limit !== undefined && BigInt(size) > limit) {
        source.destroy()
        return fail(new Error(`the response body is larger than ${limit} bytes`))
      }
      chunks.push(chunk)
    }
    const onEnd = () => {
      cleanup()
      resume(Effect.succeed(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)))
    }
    const onError = (err: Error) => fail(err)
    const onClose = () => {
      if (!source.complete) fail(new Error("the connection closed before the response body was complete"))
    }
    source.on("data", onData)
    source.once("end", onEnd)
    source.once("error", onError)
    source.once("close", onClose)
    return Effect.sync(() => {
      cleanup()
      source.destroy()
    })
  })

/** A response whose body is already here: for clients that are not node:http (tests, the snapshot warm-up). */
export const bufferedResponse = (
  request: HttpClientRequest.HttpClientRequest,
  options: { readonly status: number; readonly headers?: Record<string, string>; readonly body?: Uint8Array }
): HttpClientResponse.HttpClientResponse =>
  new LeanResponse(
    request,
    { status: options.status, statusText: undefined, headers: options.headers ?? {}, remoteAddress: undefined },
    (limit) =>
      limit !== undefined && BigInt(options.body?.length ?? 0) > limit
        ? Effect.fail(new Error(`the response body is larger than ${limit} bytes`))
        : Effect.succeed(options.body ?? new Uint8Array(0))
  )

const transportError = (request: HttpClientRequest.HttpClientRequest, cause: unknown) =>
  new HttpClientError.RequestError({ request, reason: "Transport", cause })

/** The request body as bytes (the CLI sends small JSON bodies). */
const bodyBytes = (
  request: HttpClientRequest.HttpClientRequest,
  body: HttpBody.HttpBody
): Effect.Effect<{ bytes: unknown; headers: Record<string, string> }, HttpClientError.RequestError> => {
  switch (body._tag) {
    case "Empty":
      return Effect.succeed({ bytes: undefined, headers: {} })
    case "Uint8Array":
    case "Raw":
      return Effect.succeed({ bytes: body.body, headers: {} })
    case "Stream":
      return Stream.runCollect(body.stream).pipe(
        Effect.map((chunks) => ({ bytes: Buffer.concat(Chunk.toReadonlyArray(chunks)), headers: {} })),
        Effect.mapError((cause) => transportError(request, cause))
      )
    case "FormData":
      return Effect.tryPromise({
        try: async () => {
          const encoded = new Response(body.formData)
          const headers: Record<string, string> = {}
          encoded.headers.forEach((value, key) => (headers[key] = value))
          return { bytes: Buffer.from(await encoded.arrayBuffer()), headers }
        },
        catch: (cause) => transportError(request, cause)
      })
  }
}

/**
 * One connection per request (no agent, no keep-alive), so nothing holds the process open once the
 * answer has been read.
 */
export const leanHttpClient: HttpClient.HttpClient = HttpClient.make((request, url, signal) =>
  Effect.flatMap(bodyBytes(request, request.body), ({ bytes, headers }) =>
    Effect.async<HttpClientResponse.HttpClientResponse, HttpClientError.RequestError>((resume) => {
      let nodeRequest: NodeHttp.ClientRequest
      try {
        const http = builtin<typeof NodeHttp>(url.protocol === "https:" ? "node:https" : "node:http")
        nodeRequest = http.request(url, {
          agent: false,
          method: request.method,
          headers: { ...request.headers, ...headers },
          signal
        })
      } catch (cause) {
        return resume(Effect.fail(transportError(request, cause)))
      }
      const onError = (cause: Error) => resume(Effect.fail(transportError(request, cause)))
      nodeRequest.once("error", onError)
      nodeRequest.once("response", (response) => {
        nodeRequest.off("error", onError)
        // A late socket error is reported through the response body; never let it crash the process.
        nodeRequest.on("error", () => {})
        const head = {
          status: response.statusCode!,
          statusText: response.statusMessage,
          headers: response.headers,
          remoteAddress: response.socket?.remoteAddress
        }
        resume(Effect.succeed(new LeanResponse(request, head, readIncoming(response))))
      })
      nodeRequest.end(bytes as Uint8Array | undefined)
      return Effect.sync(() => nodeRequest.destroy())
    }))
)

// ---------------------------------------------------------------------------------------------- web globals

/**
 * HttpApiClient tests `payload instanceof FormData` on every request, and node's `FormData` global loads
 * its whole fetch implementation (undici, and with it `node:http`) on first touch: about 20 ms of a CLI
 * run, and fatal while the snapshot is built. Until something really needs FormData, the global is a
 * stand-in that answers `instanceof` for plain values without loading anything and constructs the real
 * one on `new`. Returns a function that puts the original property back.
 */
export const deferFormDataGlobal = (): (() => void) => {
  const original = Object.getOwnPropertyDescriptor(globalThis, "FormData")
  if (original === undefined || original.get === undefined || !original.configurable) return () => {}
  const restore = () => Object.defineProperty(globalThis, "FormData", original)
  type Constructor = new(...args: Array<unknown>) => object
  let real: Constructor | undefined
  const load = (): Constructor => {
    if (real === undefined) {
      restore()
      real = (globalThis as unknown as { FormData: Constructor }).FormData
    }
    return real
  }
  const StandIn = function FormData(...args: Array<unknown>) {
    return new (load())(...args)
  }
  Object.defineProperty(StandIn, Symbol.hasInstance, {
    value: (value: unknown) =>
      typeof value === "object" && value !== null &&
      Object.prototype.toString.call(value) === "[object FormData]" && value instanceof load()
  })
  Object.defineProperty(globalThis, "FormData", {
    configurable: true,
    enumerable: original.enumerable ?? false,
    get: () => real ?? StandIn,
    set: (value) => Object.defineProperty(globalThis, "FormData", { value, writable: true, configurable: true })
  })
  return () => {
    if (real === undefined) restore()
  }
}

// ---------------------------------------------------------------------------------------------- GatewayRunner

/**
 * `svc gateway run` from the lean runtime: the snapshot carries no gateway code, so run the full bundle
 * in the foreground as if exec'd. It inherits stdio; this process ends the way it ends (same exit code, or
 * the same signal). The child gets a process group of its own and every SIGINT/SIGTERM/SIGHUP is
 * forwarded to it exactly once: in the terminal's group it would get Ctrl-C twice (from the terminal and
 * from us), and a second SIGINT ends a gateway that is still closing its scopes.
 */
export const handOverGatewayRunner = (
  fullBundle: string,
  execArgv: ReadonlyArray<string>
): GatewayRunner["Type"] => ({
  run: ({ port, startBrowser }) =>
    Effect.async<void, GatewayRunError>((resume) => {
      const { spawn } = builtin<typeof import("node:child_process")>("node:child_process")
      const args = [...execArgv, fullBundle, "gateway", "run"]
      if (port !== undefined) args.push("--port", String(port))
      if (startBrowser) args.push("--start-browser")
      const child = spawn(process.execPath, args, { stdio: "inherit", detached: true })
      const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const
      const forward = (signal: NodeJS.Signals) => {
        child.kill(signal)
      }
      for (const signal of signals) process.on(signal, forward)
      const stopForwarding = () => {
        for (const signal of signals) process.off(signal, forward)
      }
      child.once("error", (err) => {
        stopForwarding()
        resume(Effect.fail(new GatewayRunError(`cannot start the gateway (${fullBundle}): ${err.message}`)))
      })
      child.once("exit", (code, signal) => {
        stopForwarding()
        if (signal !== null) process.kill(process.pid, signal)
        else if (code !== 0) process.exit(code ?? 1)
        else resume(Effect.void)
      })
    })
})

/** node:path as the Path service, taken out of its layer once (at build time, in the snapshot). */
const nodePath: Path.Path = Effect.runSync(Effect.provide(Path.Path, NodePath.layer))

export interface LeanRuntimeOptions {
  /** dist/svc.cjs, which `svc gateway run` hands over to. */
  readonly fullBundle: string
  /** The node options to run it with (not the snapshot's). */
  readonly execArgv: ReadonlyArray<string>
}

/**
 * FileSystem, Path, Terminal and HttpClient for the CLI inside the start-up snapshot, and the GatewayRunner
 * that hands over to the full bundle. A plain context: providing it builds nothing, where a layer would
 * build a memo map, a scope and a fiber per layer on every run.
 */
export const leanRuntimeContext = (options: LeanRuntimeOptions) =>
  Context.make(FileSystem.FileSystem, leanFileSystem).pipe(
    Context.add(Path.Path, nodePath),
    Context.add(Terminal.Terminal, leanTerminal),
    Context.add(HttpClient.HttpClient, leanHttpClient),
    Context.add(GatewayRunner, handOverGatewayRunner(options.fullBundle, options.execArgv))
  )

/** The same services as a layer. */
export const leanRuntimeLayer = (options: LeanRuntimeOptions) =>
  Layer.succeedContext(leanRuntimeContext(options))
