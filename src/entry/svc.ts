import { NodeContext, NodeHttpClient, NodeRuntime } from "@effect/platform-node"
import { Cause, Effect, Exit, Layer } from "effect"
import { GatewayRunner } from "../gateway/GatewayRunner.js"
import { runCli } from "../cli/main.js"
import { runGateway } from "../gateway/run.js"
import { McpInProcess } from "../mcp/server.js"
import { makeGatewayMcpHttp } from "../mcp/http.js"
import { runNodeHost } from "../gateway/nodeRun.js"
import { NodeRunner } from "../node/NodeRunner.js"
import { AskInProcess } from "../agent/model/ask.js"

// The full entry (dist/svc.cjs): the CLI on the node platform, with the gateway in this process.
// bin/svc sends `svc gateway ...`, `svc node ...` and `svc mcp` here; the other commands start from the lean entry (src/entry/cli.ts).

const GatewayInProcess = Layer.succeed(GatewayRunner, { run: (options) => runGateway(options, { mcp: makeGatewayMcpHttp }) })
const NodeInProcess = Layer.succeed(NodeRunner, { run: (options) => runNodeHost(options) })

const platform = Layer.mergeAll(NodeContext.layer, NodeHttpClient.layer)
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

/** Calls `then` once everything written to stdout and stderr so far has been handed to the system. */
const flushed = (then: () => void) => process.stdout.write("", () => process.stderr.write("", then))

// SIGINT/SIGTERM interrupt the program (the gateway's scopes close); that ends with 0. Otherwise the
// code is runCli's, and a defect (a bug) is 1 after runMain's report. runMain exits at once after a signal
// or with a failure code; a command that succeeded has stopped all it started (its scopes are closed), so
// it exits as soon as its output is flushed, without the runtime freeing its memory first (about 20 ms at
// the end of `svc mcp`).
NodeRuntime.runMain(program, {
  teardown: (exit, onExit) => {
    const code = Exit.isSuccess(exit)
      ? (typeof exit.value === "number" ? exit.value : 0)
      : Cause.isInterruptedOnly(exit.cause)
      ? 0
      : 1
    onExit(code)
    if (code === 0) flushed(() => process.exit(0))
  }
})
