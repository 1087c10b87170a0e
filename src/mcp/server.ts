import { McpServer } from "@effect/ai"
import type { FileSystem, HttpClient } from "@effect/platform"
import * as NodeSink from "@effect/platform-node/NodeSink"
import * as NodeStream from "@effect/platform-node/NodeStream"
import { Deferred, Effect, Layer } from "effect"
import { VERSION } from "../version.js"
import { attachGateway } from "./gateway.js"
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
    const ready = yield* Deferred.make<ToolEnv, McpRunError>()
    for (const tool of ALL_TOOLS) {
      yield* server.addTool({
        tool: tool.tool,
        handle: (payload) =>
          Deferred.await(ready).pipe(
            Effect.matchEffect({
              onFailure: (e) => Effect.succeed(failedResult(`svc mcp has no gateway: ${e.message}`)),
              onSuccess: (env) => tool.handle(payload, env)
            })
          )
      })
    }
    const attached = yield* Effect.either(attachGateway({ profile }))
    if (attached._tag === "Left") {
      // The server's layer removes the loggers that write to stdout: say it on stderr directly.
      yield* Effect.sync(() => process.stderr.write(`svc mcp: ${attached.left.message}\n`))
      yield* Deferred.fail(ready, attached.left)
    } else {
      yield* Deferred.succeed(ready, {
        client: attached.right.client,
        query: profile !== undefined ? { profile } : {},
        sandboxed,
        readFile: readLocalFile
      })
    }
    yield* stdinClosed
    const after = attached._tag === "Left"
      ? ""
      : attached.right.owned
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
