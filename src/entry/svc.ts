import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Effect, Exit, Layer } from "effect"
import { GatewayRunner } from "../gateway/GatewayRunner.js"
import { runCli } from "../cli/main.js"
import { runGateway } from "../gateway/run.js"
import { McpInProcess } from "../mcp/server.js"
import { makeGatewayMcpHttp } from "../mcp/http.js"
import { runNodeHost } from "../gateway/nodeRun.js"
import { NodeRunner } from "../node/NodeRunner.js"
import { AskInProcess } from "../agent/model/ask.js"
import { KeepAliveHttp } from "../platform/keepAliveHttp.js"

// The full entry (dist/svc.cjs): the CLI on the node platform, with the gateway in this process.
// bin/svc sends `svc gateway ...`, `svc node ...` and `svc mcp` here; the other commands start from the lean entry (src/entry/cli.ts).

const GatewayInProcess = Layer.succeed(GatewayRunner, { run: (options) => runGateway(options, { mcp: makeGatewayMcpHttp }) })
const NodeInProcess = Layer.succeed(NodeRunner, { run: (options) => runNodeHost(options) })

// Keep-alive: `svc mcp` and the node host call the same control port many times (a connection per call cost
// each MCP tool call about 0.5 ms of CPU on each side).
const platform = Layer.mergeAll(NodeContext.layer, KeepAliveHttp)
const program = runCli(process.argv).pipe(
  Effect.provide(
    Layer.mergeAll(
      platform,
      GatewayInProcess,
      NodeInProcess,
      McpInProcess.pipe(Layer.provide(platform)),
      AskInProcess.pipe(Layer.provide(platform))
    )
  )
)

// SIGINT/SIGTERM interrupt the program (the gateway's scopes close); that ends with 0. Otherwise the
// code is runCli's, and a defect (a bug) is 1 after runMain's report. A command that ended has stopped
// what it started (its scopes are closed): the process exits once its output is written, rather than when
// the last of the libraries' timers and sockets lets go (20-60 ms after an MCP session's stdin closed).
const exitOnceWritten = (code: number) =>
  process.stdout.write("", () => process.stderr.write("", () => process.exit(code)))

NodeRuntime.runMain(program, {
  teardown: (exit, onExit) => {
    const code = Exit.isSuccess(exit)
      ? (typeof exit.value === "number" ? exit.value : 0)
      : Cause.isInterruptedOnly(exit.cause)
      ? 0
      : 1
    onExit(code)
    exitOnceWritten(code)
  }
})
