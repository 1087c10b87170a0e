import { Args, Command } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { AskRunner, type AskToolCall } from "../../agent/model/AskRunner.js"
import { CliFailure, commonOptions } from "./shared.js"

// `svc agent ask "<text>"`: one turn of the configured agent from the terminal, each tool call printed as
// it ends (name, short arguments, duration), then the reply. The turn runs in this process against the
// running gateway (src/agent/model/ask.ts).

const toolLine = (c: AskToolCall) => `→ ${c.name} ${c.args} (${Math.round(c.ms)} ms${c.isError ? ", error" : ""})`

const ask = Command.make(
  "ask",
  {
    text: Args.text({ name: "text" }).pipe(Args.withDescription("what you would text the agent")),
    profile: commonOptions.profile,
    json: commonOptions.json
  },
  ({ json, profile, text }) =>
    Effect.gen(function*() {
      const runner = yield* Effect.serviceOption(AskRunner)
      if (Option.isNone(runner)) return yield* Effect.fail(new CliFailure({ message: "this runtime cannot run the agent: run `svc agent ask` (bin/svc)" }))
      const result = yield* runner.value.ask({
        text,
        profile: Option.getOrUndefined(profile),
        onToolCall: (call) => (json ? Effect.void : Console.log(toolLine(call)))
      }).pipe(Effect.mapError((e) => new CliFailure({ message: e.message })))
      if (json) return yield* Console.log(JSON.stringify(result, null, 2))
      yield* Console.log(result.reply.join("\n\n"))
    })
).pipe(Command.withDescription("one turn of the configured agent (agent.provider) against the running gateway: prints each tool call and the reply"))

export const agentCommand = Command.make("agent").pipe(
  Command.withDescription("the agent that answers messages"),
  Command.withSubcommands([ask])
)
