import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { locateStatePaths } from "../../config/locate.js"
import { makePairingStore } from "../../msgbridge/store/PairingStore.js"
import { CliFailure } from "./shared.js"

// `svc pairing list|approve msgbridge`: reads and writes the pairing store in the state dir directly
// (locked, atomic), so it works whether or not the gateway runs, and never races it.

const channel = Args.choice([["msgbridge", "msgbridge"]] as const, { name: "channel" }).pipe(
  Args.withDescription("the messaging channel (msgbridge)")
)
const account = Options.text("account").pipe(
  Options.withDescription("the bridge account (channels.msgbridge.accounts.<id>; default: the channel's own)"),
  Options.optional
)

const storeFor = (accountId: Option.Option<string>) =>
  Effect.map(locateStatePaths, (paths) =>
    makePairingStore({
      credentialsDir: paths.credentialsDir,
      ...Option.match(accountId, { onNone: () => ({}), onSome: (accountId) => ({ accountId }) })
    }))

const age = (ms: number) =>
  ms < 60_000 ? `${Math.round(ms / 1000)}s` : ms < 3_600_000 ? `${Math.round(ms / 60_000)}m` : `${Math.round(ms / 3_600_000)}h`

const list = Command.make(
  "list",
  { channel, account, json: Options.boolean("json").pipe(Options.withDescription("print JSON")) },
  (args) =>
    Effect.gen(function*() {
      const store = yield* storeFor(args.account)
      const pending = yield* store.list().pipe(Effect.mapError((e) => new CliFailure({ message: e.message })))
      if (args.json) return yield* Console.log(JSON.stringify({ pending }, null, 2))
      yield* Console.log(
        pending.length === 0
          ? "no pending pairing requests"
          : pending.map((p) => `${p.code}  ${p.sender}  ${age(p.ageMs)} ago  (${p.chatGuid})`).join("\n")
      )
    })
).pipe(Command.withDescription("pending pairing codes, with sender and age (codes expire after 1 hour)"))

const approve = Command.make("approve", { channel, account, code: Args.text({ name: "CODE" }).pipe(Args.withDescription("the code the sender was given (any case)")) }, (args) =>
  Effect.gen(function*() {
    const store = yield* storeFor(args.account)
    const approved = yield* store.approve(args.code).pipe(Effect.mapError((e) => new CliFailure({ message: e.message })))
    yield* Console.log(`approved ${approved.sender}: their messages now reach the agent`)
  })).pipe(Command.withDescription("approve a pairing code: the sender joins the allowlist"))

export const pairingCommand = Command.make("pairing").pipe(
  Command.withDescription("pairing requests of messaging channels"),
  Command.withSubcommands([list, approve])
)
