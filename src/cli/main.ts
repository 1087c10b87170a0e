import { Command, Options, ValidationError } from "@effect/cli"
import { Terminal } from "@effect/platform"
import { Cause, Config, Console, Effect, Exit, Option } from "effect"
import { apiCommand } from "./commands/api.js"
import { browserCommand } from "./commands/browser.js"
import { configCommand } from "./commands/config.js"
import { msgbridgeCommand } from "./commands/msgbridge.js"
import { onboardCommand } from "./commands/onboard.js"
import { messageCommand } from "./commands/message.js"
import { mcpCommand } from "./commands/mcp.js"
import { nodeCommand, nodesCommand } from "./commands/nodes.js"
import { agentCommand } from "./commands/agent.js"
import { pairingCommand } from "./commands/pairing.js"
import { statusCommand } from "./commands/status.js"
import { GatewayRunner } from "../gateway/GatewayRunner.js"
import { CliFailure } from "./commands/shared.js"
import { type CliErrorJson, cliErrorTag, describeCliError } from "./errors.js"
import { makeHelpConsole, withOuterConsole } from "./helpOutput.js"
import { commandTree } from "./suggest.js"
import { describeUsageError } from "./usage.js"
import { VERSION } from "../version.js"

const gatewayRun = Command.make(
  "run",
  {
    port: Options.integer("port").pipe(
      Options.withDescription("gateway port (default gateway.port, env SVC_GATEWAY_PORT, or 18789)"),
      Options.optional
    ),
    startBrowser: Options.boolean("start-browser").pipe(
      Options.withDescription("start the default profile's browser as soon as the gateway is ready")
    )
  },
  ({ port, startBrowser }) =>
    Effect.flatMap(GatewayRunner, (runner) => runner.run({ port: Option.getOrUndefined(port), startBrowser }))
).pipe(Command.withDescription("run the gateway in the foreground until SIGINT or SIGTERM"))

const gatewayCommand = Command.make("gateway").pipe(
  Command.withDescription("the gateway process"),
  Command.withSubcommands([gatewayRun])
)

export const svcCommand = Command.make("svc").pipe(
  Command.withDescription("svc: a gateway that lets AI agents drive a browser and talk over messaging"),
  Command.withSubcommands([gatewayCommand, browserCommand, configCommand, pairingCommand, messageCommand, statusCommand, onboardCommand, msgbridgeCommand, apiCommand, mcpCommand, nodeCommand, nodesCommand, agentCommand]),
  // Commands print with the console runCli was given; only @effect/cli's own output goes through helpOutput.
  Command.transformHandler(withOuterConsole)
)

const app = Command.run(svcCommand, { name: "svc", version: VERSION })

const tree = commandTree(svcCommand)

/** `--json` among the options (before any `--`): failures are then printed as JSON on stdout. */
const wantsJson = (argv: ReadonlyArray<string>) => {
  for (const word of argv.slice(2)) {
    if (word === "--") return false
    if (word === "--json") return true
  }
  return false
}

/** Colour codes go unless stdout is a terminal and NO_COLOR is unset (https://no-color.org). */
const plainOutput = Effect.gen(function*() {
  const noColor = yield* Config.string("NO_COLOR").pipe(Config.option, Effect.orElseSucceed(() => Option.none()))
  if (Option.isSome(noColor) && noColor.value !== "") return true
  const terminal = yield* Effect.serviceOption(Terminal.Terminal)
  return Option.isNone(terminal) ? true : !(yield* terminal.value.isTTY)
})

const printFailure = (json: boolean, failure: CliErrorJson) =>
  json
    ? Console.log(JSON.stringify({ error: failure }, null, 2))
    : Console.error(`svc: ${failure.message}`)

/** A failure as `--json` shows it (see CliErrorJson). */
const failureOf = (e: unknown): CliErrorJson =>
  e instanceof CliFailure
    ? { _tag: e.tag ?? e._tag, message: e.message, status: e.status ?? null }
    : { _tag: cliErrorTag(e), message: describeCliError(e), status: null }

/**
 * Run the CLI on a full argv (`[node, script, ...args]`) and return the process exit code: 0, 1 when the
 * command failed, 2 for a usage error. A failure is one line on stderr, or with `--json` a JSON object
 * `{"error": {"_tag", "message", "status"}}` on stdout.
 */
export const runCli = (argv: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const json = wantsJson(argv)
    const outer = yield* Console.consoleWith(Effect.succeed)
    const help = makeHelpConsole(outer, plainOutput)
    const exit = yield* app(argv).pipe(Effect.withConsole(help.console), Effect.exit)
    if (Exit.isSuccess(exit)) return 0
    const failure = Cause.failureOption(exit.cause)
    // Only defects and interruption are left: no failure value (the cast is sound).
    if (Option.isNone(failure)) return yield* Effect.failCause(exit.cause as Cause.Cause<never>)
    const e = failure.value
    if (!ValidationError.isValidationError(e)) {
      yield* printFailure(json, failureOf(e))
      return 1
    }
    const printed = help.errors.join("\n").trim().replace(/\s*\n\s*/g, " | ")
    const usage = describeUsageError(tree, argv.slice(2), e._tag, printed)
    yield* printFailure(json, { _tag: usage.tag, message: usage.message, status: null })
    return 2
  })
