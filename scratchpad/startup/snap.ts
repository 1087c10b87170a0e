import { Command, Options } from "@effect/cli"
import { HttpApi, HttpApiClient, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { NodeContext, NodeHttpClient, NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Layer, Schema } from "effect"
import * as v8 from "node:v8"

const Tab = Schema.Struct({ targetId: Schema.String, url: Schema.String })
class Tabs extends HttpApiGroup.make("tabs").add(HttpApiEndpoint.get("list", "/tabs").addSuccess(Schema.Array(Tab))) {}
class Api extends HttpApi.make("api").add(Tabs) {}

const json = Options.boolean("json")
const tabs = Command.make("tabs", { json }, ({ json }) => Effect.gen(function*() {
  const client = yield* HttpApiClient.make(Api, { baseUrl: "http://127.0.0.1:" + process.env.PORT })
  const r = yield* client.tabs.list()
  yield* Console.log(json, JSON.stringify(r))
}))
const cli = Command.run(Command.make("svc").pipe(Command.withSubcommands([Command.make("browser").pipe(Command.withSubcommands([tabs]))])), { name: "svc", version: "0" })
const main = () => cli(process.argv).pipe(Effect.provide(Layer.mergeAll(NodeContext.layer, NodeHttpClient.layer)), NodeRuntime.runMain)
if (v8.startupSnapshot?.isBuildingSnapshot()) v8.startupSnapshot.setDeserializeMainFunction(main)
else main()
