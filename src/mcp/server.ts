import { McpServer } from "@effect/ai"
import type { FileSystem, HttpClient } from "@effect/platform"
import * as NodeSink from "@effect/platform-node/NodeSink"
import * as NodeStream from "@effect/platform-node/NodeStream"
import { Effect, Layer, Option } from "effect"
import { VERSION } from "../version.js"
import { type AttachedGateway, gatewayLink } from "./gateway.js"
import { gatewayGone } from "./failures.js"
import { McpRunError, type McpRunOptions, McpRunner } from "./McpRunner.js"
import { failedResult, readLocalFile, type ToolEnv } from "./tool.js"
import { ALL_TOOLS } from "./tools.js"

// `svc mcp`: MCP over stdio. The server answers the handshake at once while the gateway is found (or
// started in this process, its browser launching beside it); a tool called before that is ready waits for
// it. When stdin closes (the client went away) or a signal arrives, the scope closes: a gateway started
// here stops, and with it every browser it launched. stdout is the protocol: everything else is stderr.

/** Whatever this process (the gateway in it included) prints goes to stderr. */
const consoleToStderr = () => {
  const c = console as unknown as Record<string, unknown>
  for (const k of ["log", "info", "debug", "dir", "table", "trace"]) c[k] = console.error
}

/** Ends when stdin ends: the client closed its side. */
const stdinClosed = Effect.async<void>((resume) => {
  if (process.stdin.readableEnded || process.stdin.destroyed) return resume(Effect.void)
  const done = () => resume(Effect.void)
  process.stdin.once("end", done)
  process.stdin.once("close", done)
  return Effect.sync(() => {
    process.stdin.off("end", done)
    process.stdin.off("close", done)
  })
})

const profileOf = (options: McpRunOptions) =>
  options.sandbox && options.profile !== undefined && options.profile !== "sandbox"
    ? Effect.fail(
      new McpRunError(
        `--sandbox uses the \`sandbox\` browser profile; it cannot be combined with --browser-profile ${options.profile}`
      )
    )
    : Effect.succeed(options.sandbox ? "sandbox" : options.profile)

const serve = (profile: string | undefined, sandboxed: boolean) =>
  Effect.gen(function*() {
    const server = yield* McpServer.McpServer
    const query = profile !== undefined ? { profile } : {}
    const envOf = (attached: AttachedGateway): ToolEnv => ({ client: attached.client, query, sandboxed, readFile: readLocalFile })
    // Attaching starts now, beside the handshake; a tool called before it is done waits for it.
    const link = yield* gatewayLink({ profile })
    for (const tool of ALL_TOOLS) {
      yield* server.addTool({
        tool: tool.tool,
        handle: (payload) =>
          Effect.gen(function*() {
            const attached = yield* Effect.either(link.get)
            if (attached._tag === "Left") return failedResult(`svc mcp has no gateway: ${attached.left.message}`)
            const result = yield* tool.handle(payload, envOf(attached.right))
            if (!gatewayGone(result)) return result
            // The gateway went away (the session that started it exited, or it was restarted): the one running
            // now is used, or one is started here, and the call is made once more.
            const again = yield* Effect.either(link.reattach(attached.right))
            return again._tag === "Right" ? yield* tool.handle(payload, envOf(again.right)) : result
          })
      })
    }
    // The server's layer removes the loggers that write to stdout: a failure to attach is said on stderr directly.
    yield* Effect.forkScoped(Effect.ignore(Effect.tapError(link.get, (e) => Effect.sync(() => process.stderr.write(`svc mcp: ${e.message}\n`)))))
    yield* stdinClosed
    const now = yield* link.now
    const after = Option.isNone(now)
      ? ""
      : now.value.owned
      ? "; stopping the gateway it started and its browsers"
      : "; leaving the gateway running"
    yield* Effect.sync(() => process.stderr.write(`svc mcp: stdin closed${after}\n`))
  }).pipe(
    Effect.scoped,
    Effect.provide(
      McpServer.layerStdio({ name: "svc", version: VERSION, stdin: NodeStream.stdin, stdout: NodeSink.stdout })
    )
  )

export const runMcp = (options: McpRunOptions): Effect.Effect<void, McpRunError, FileSystem.FileSystem | HttpClient.HttpClient> =>
  Effect.suspend(() => {
    consoleToStderr()
    return Effect.flatMap(profileOf(options), (profile) => serve(profile, options.sandbox))
  })

/** The McpRunner of the full runtime: this process serves MCP (and runs the gateway when none is running). */
export const McpInProcess = Layer.effect(
  McpRunner,
  Effect.map(
    Effect.context<FileSystem.FileSystem | HttpClient.HttpClient>(),
    (context) => ({ run: (options: McpRunOptions) => Effect.provide(runMcp(options), context) })
  )
)
