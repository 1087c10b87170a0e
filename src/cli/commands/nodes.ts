import { Args, Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { NodeId, type NodeInfo } from "../../domain/nodes.js"
import { NodeRunError, NodeRunner } from "../../node/NodeRunner.js"
import { callControl } from "./shared.js"

// `svc nodes list|approve|revoke` over the gateway's control API, and `svc node run` (the node host, run
// by the full runtime).

const json = Options.boolean("json").pipe(Options.withDescription("print the API's JSON"))
const idArg = Args.text({ name: "id" }).pipe(Args.withSchema(NodeId), Args.withDescription("the node's id, as `svc nodes list` shows it"))
const noOptions = { profile: Option.none<string>() }

const line = (n: NodeInfo) =>
  `${n.id}  ${n.status.padEnd(8)}  ${n.connected ? "connected   " : "disconnected"}  ${n.name}  ` +
  `[${n.capabilities.join(", ") || "no browser"}]${n.profiles.length > 0 ? `  profiles: ${n.profiles.join(", ")}` : ""}`

const list = Command.make("list", { json }, (args) =>
  callControl({ ...noOptions, json: args.json }, (c) => c.nodes.list(), (r) =>
    r.nodes.length === 0
      ? "no node has connected; start `svc node run --gateway ws://<this machine>:<gateway port>` on the machine with the browser"
      : r.nodes.map(line).join("\n"))
).pipe(Command.withDescription("the node hosts that connected: id, pending or approved, connected, name, capabilities, profiles"))

const approve = Command.make("approve", { json, id: idArg }, (args) =>
  callControl({ ...noOptions, json: args.json }, (c) => c.nodes.approve({ payload: { id: args.id } }), (r) => r.message)
).pipe(Command.withDescription("approve a pending node: its browser can then be used (once per node; it stays approved across restarts)"))

const revoke = Command.make("revoke", { json, id: idArg }, (args) =>
  callControl({ ...noOptions, json: args.json }, (c) => c.nodes.revoke({ payload: { id: args.id } }), (r) => r.message)
).pipe(Command.withDescription("forget a node's approval and disconnect it (it is pending again when it reconnects)"))

export const nodesCommand = Command.make("nodes").pipe(
  Command.withDescription("node hosts: other machines' browsers this gateway can drive"),
  Command.withSubcommands([list, approve, revoke])
)

const run = Command.make(
  "run",
  {
    gateway: Options.text("gateway").pipe(Options.withDescription("the gateway to dial: ws://<host>:<gateway port> (or wss://)")),
    token: Options.text("token").pipe(
      Options.withDescription("the gateway's token (default: env SVC_GATEWAY_TOKEN, else gateway.auth.token of this machine's svc.json)"),
      Options.optional
    ),
    name: Options.text("name").pipe(Options.withDescription("the name the gateway shows (default: this machine's host name)"), Options.optional)
  },
  (args) =>
    Effect.flatMap(Effect.serviceOption(NodeRunner), (runner) =>
      Option.isSome(runner)
        ? runner.value.run({ gateway: args.gateway, token: Option.getOrUndefined(args.token), name: Option.getOrUndefined(args.name) })
        : Effect.fail(new NodeRunError("this runtime cannot run the node host: run `svc node run` (bin/svc)")))
).pipe(
  Command.withDescription(
    "serve this machine's browser to a gateway: dial it (reconnecting with backoff), and run the browser control here until SIGINT or SIGTERM"
  )
)

export const nodeCommand = Command.make("node").pipe(
  Command.withDescription("the node host: this machine's browser for a gateway elsewhere"),
  Command.withSubcommands([run])
)
