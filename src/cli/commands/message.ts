import { Args, Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { callControl, CliFailure } from "./shared.js"

// `svc message send` and `svc message action`: through the running gateway's msgbridge accounts.

const channel = Options.choice("channel", ["msgbridge"]).pipe(
  Options.withDescription("the messaging channel (msgbridge)"),
  Options.withDefault("msgbridge" as const)
)
const account = Options.text("account").pipe(
  Options.withDescription("the bridge account (channels.msgbridge.accounts.<id>; default: the channel's own)"),
  Options.optional
)
const json = Options.boolean("json").pipe(Options.withDescription("print the API's JSON"))
const noProfile = { profile: Option.none<string>() }
const accountField = (a: Option.Option<string>) => Option.match(a, { onNone: () => ({}), onSome: (account) => ({ account }) })

const send = Command.make(
  "send",
  {
    channel,
    account,
    json,
    to: Options.text("to").pipe(
      Options.withDescription("chat_guid:<guid>, chat_id:<id>, chat_identifier:<id>, an E.164 number or an e-mail address")
    ),
    text: Options.text("text").pipe(Options.withDescription("the message (chunked like a reply)"))
  },
  (args) =>
    callControl(
      { ...noProfile, json: args.json },
      (client) => client.messaging.send({ payload: { channel: args.channel, to: args.to, text: args.text, ...accountField(args.account) } }),
      (r) =>
        `sent to ${r.chatGuid ?? args.to}` +
        (r.messages.length > 0 ? ` (message${r.messages.length > 1 ? "s" : ""} ${r.messages.map((m) => m.messageId).join(", ")})` : "")
    )
).pipe(Command.withDescription("send a text through the running gateway"))

/** `key=value` → value: true/false become booleans, everything else stays text (ids stay strings). */
export const parseParams = (pairs: ReadonlyArray<string>, jsonText: Option.Option<string>) =>
  Effect.gen(function*() {
    let params: Record<string, unknown> = {}
    if (Option.isSome(jsonText)) {
      let parsed: unknown
      try {
        parsed = JSON.parse(jsonText.value)
      } catch {
        return yield* new CliFailure({ message: "--params is not JSON: pass an object, e.g. --params '{\"messageId\":\"12\"}'" })
      }
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
        return yield* new CliFailure({ message: "--params must be a JSON object" })
      }
      params = { ...(parsed as Record<string, unknown>) }
    }
    for (const pair of pairs) {
      const at = pair.indexOf("=")
      if (at <= 0) return yield* new CliFailure({ message: `"${pair}" is not key=value (e.g. messageId=12 emoji=love)` })
      const key = pair.slice(0, at)
      const value = pair.slice(at + 1)
      params[key] = value === "true" ? true : value === "false" ? false : value
    }
    return params
  })

const action = Command.make(
  "action",
  {
    channel,
    account,
    json,
    name: Args.text({ name: "action" }).pipe(
      Args.withDescription(
        "react, edit, unsend, reply, sendWithEffect, renameGroup, setGroupIcon, addParticipant, removeParticipant, leaveGroup, sendAttachment"
      )
    ),
    pairs: Args.text({ name: "key=value" }).pipe(Args.withDescription("a parameter of the action, e.g. messageId=12"), Args.repeated),
    params: Options.text("params").pipe(Options.withDescription("the parameters as one JSON object"), Options.optional)
  },
  (args) =>
    Effect.gen(function*() {
      const params = yield* parseParams(args.pairs, args.params)
      return yield* callControl(
        { ...noProfile, json: args.json },
        (client) =>
          client.messaging.action({ payload: { channel: args.channel, action: args.name, params, ...accountField(args.account) } }),
        (r) =>
          `${args.name}: done` +
          (typeof r.messageId === "string" ? ` (message ${r.messageId}${typeof r.messageGuid === "string" ? `, ${r.messageGuid}` : ""})` : "")
      )
    })
).pipe(Command.withDescription("run a message action (messageId: a short id or the full guid)"))

export const messageCommand = Command.make("message").pipe(
  Command.withDescription("send messages and run message actions through the running gateway"),
  Command.withSubcommands([send, action])
)
