import { Effect } from "effect"
import { GatewayRunError, type GatewayRunner } from "../gateway/GatewayRunner.js"
import { McpRunError, type McpRunner } from "../mcp/McpRunner.js"
import { NodeRunError, type NodeRunner } from "../node/NodeRunner.js"
import { builtin } from "../platform/builtin.js"

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
  run: ({ port, startBrowser }) => {
    const args = ["gateway", "run"]
    if (port !== undefined) args.push("--port", String(port))
    if (startBrowser) args.push("--start-browser")
    return handOver(fullBundle, execArgv, args, (why) => new GatewayRunError(`cannot start the gateway (${fullBundle}): ${why}`))
  }
})

/** `svc mcp` from the lean runtime: the full bundle serves MCP on the same stdio (bin/svc goes there directly). */
export const handOverMcpRunner = (fullBundle: string, execArgv: ReadonlyArray<string>): McpRunner["Type"] => ({
  run: ({ profile, sandbox }) => {
    const args = ["mcp"]
    if (profile !== undefined) args.push("--browser-profile", profile)
    if (sandbox) args.push("--sandbox")
    return handOver(fullBundle, execArgv, args, (why) => new McpRunError(`cannot start the MCP server (${fullBundle}): ${why}`))
  }
})

/** `svc node run` from the lean runtime: the full bundle runs the node host (bin/svc goes there directly). */
export const handOverNodeRunner = (fullBundle: string, execArgv: ReadonlyArray<string>): NodeRunner["Type"] => ({
  run: ({ gateway, name, token }) => {
    const args = ["node", "run", "--gateway", gateway]
    if (token !== undefined) args.push("--token", token)
    if (name !== undefined) args.push("--name", name)
    return handOver(fullBundle, execArgv, args, (why) => new NodeRunError(`cannot start the node host (${fullBundle}): ${why}`))
  }
})

/** Run the full bundle with `args` in the foreground, as if exec'd. */
const handOver = <E>(
  fullBundle: string,
  execArgv: ReadonlyArray<string>,
  args: ReadonlyArray<string>,
  failure: (message: string) => E
) =>
    Effect.async<void, E>((resume) => {
      const { spawn } = builtin<typeof import("node:child_process")>("node:child_process")
      const child = spawn(process.execPath, [...execArgv, fullBundle, ...args], { stdio: "inherit", detached: true })
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
        resume(Effect.fail(failure(err.message)))
      })
      child.once("exit", (code, signal) => {
        stopForwarding()
        if (signal !== null) process.kill(process.pid, signal)
        else if (code !== 0) process.exit(code ?? 1)
        else resume(Effect.void)
      })
    })
