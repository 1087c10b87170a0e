import { Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { McpRunError, McpRunner } from "../../mcp/McpRunner.js"
import { commonOptions } from "./shared.js"

export const mcpCommand = Command.make(
  "mcp",
  {
    profile: commonOptions.profile,
    sandbox: Options.boolean("sandbox").pipe(
      Options.withDescription("a sandboxed session: the tools use the `sandbox` browser profile")
    )
  },
  // The runner is optional in the CLI's environment, so that the commands that never serve MCP need none.
  ({ profile, sandbox }) =>
    Effect.flatMap(Effect.serviceOption(McpRunner), (runner) =>
      Option.isSome(runner)
        ? runner.value.run({ profile: Option.getOrUndefined(profile), sandbox })
        : Effect.fail(new McpRunError("this runtime cannot serve MCP: run `svc mcp` (bin/svc)")))
).pipe(
  Command.withDescription(
    "serve MCP on stdin/stdout (browser_* tools); starts a gateway in this process when none is running, and stops it when stdin closes"
  )
)
