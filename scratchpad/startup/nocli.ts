import { HttpApi, HttpApiClient, HttpApiEndpoint, HttpApiGroup, FetchHttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { Effect, Schema } from "effect"

const Tab = Schema.Struct({ targetId: Schema.String, url: Schema.String })
class Tabs extends HttpApiGroup.make("tabs").add(HttpApiEndpoint.get("list", "/tabs").addSuccess(Schema.Array(Tab))) {}
class Api extends HttpApi.make("api").add(Tabs) {}
const main = Effect.gen(function*() {
  const client = yield* HttpApiClient.make(Api, { baseUrl: "http://127.0.0.1:" + process.env.PORT })
  const r = yield* client.tabs.list()
  console.log(JSON.stringify(r))
})
Effect.runPromise(main.pipe(Effect.provide(process.env.FETCH ? FetchHttpClient.layer : NodeHttpClient.layer)))
