import { Command, Options, ValidationError } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { browserCommand } from "./commands/browser.js"
import { configCommand } from "./commands/config.js"
import { msgbridgeCommand } from "./commands/msgbridge.js"
import { onboardCommand } from "./commands/onboard.js"
import { messageCommand } from "./commands/message.js"
import { pairingCommand } from "./commands/pairing.js"
import { statusCommand } from "./commands/status.js"
import { GatewayRunner } from "../gateway/GatewayRunner.js"
import { describeCliError } from "./errors.js"
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
  Command.withSubcommands([gatewayCommand, browserCommand, configCommand, pairingCommand, messageCommand, statusCommand, onboardCommand, msgbridgeCommand])
)


const app = Command.run(svcCommand, { name: "svc", version: VERSION })

/**
 * Run the CLI on a full argv (`[node, script, ...args]`) and return the process exit code. Failures are
 * printed as one line on stderr; usage errors have already been printed with help by @effect/cli.
 */
export const runCli = (argv: ReadonlyArray<string>) =>
  app(argv).pipe(
    Effect.as(0),
    Effect.catchAll((e) =>
      ValidationError.isValidationError(e)
        ? Effect.succeed(2)
        : Console.error(`svc: ${describeCliError(e)}`).pipe(Effect.as(1))
    )
  )
