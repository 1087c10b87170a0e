import { Command, Options } from "@effect/cli"
import { HttpApi, HttpApiClient, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { NodeContext, NodeHttpClient, NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Layer, Schema } from "effect"

const Tab = Schema.Struct({ targetId: Schema.String, url: Schema.String })
class Tabs extends HttpApiGroup.make("tabs").add(HttpApiEndpoint.get("list", "/tabs").addSuccess(Schema.Array(Tab))) {}
class Api extends HttpApi.make("api").add(Tabs) {}

const json = Options.boolean("json")
const tabs = Command.make("tabs", { json }, ({ json }) => Effect.gen(function*() {
  const client = yield* HttpApiClient.make(Api, { baseUrl: "http://127.0.0.1:1" })
  yield* Console.log(json)
  void client
}))
const cli = Command.run(Command.make("svc").pipe(Command.withSubcommands([Command.make("browser").pipe(Command.withSubcommands([tabs]))])), { name: "svc", version: "0" })
cli(process.argv).pipe(Effect.provide(Layer.mergeAll(NodeContext.layer, NodeHttpClient.layerUndici)), NodeRuntime.runMain)
