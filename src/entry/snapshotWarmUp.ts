import { FileSystem, HttpClient, HttpClientError } from "@effect/platform"
import { Console, Context, Effect } from "effect"
import { GatewayRunError, GatewayRunner } from "../gateway/GatewayRunner.js"
import { leanRuntimeContext } from "../cli/leanRuntime.js"
import { runCli } from "../cli/main.js"
import { deferFormDataGlobal } from "../platform/lean/webGlobals.js"
import { bufferedResponse } from "../platform/nodeResponse.js"

// Runs the CLI's common paths while the start-up snapshot is built, against canned answers and with
// output discarded, so that what they compile and memoise (the parser, the typed client, the schemas'
// decoders) is already in the snapshot. Nothing here touches a file, a socket, a timer or stdio, and
// nothing random is drawn: whatever state it leaves is saved for every later run.

const silentUnsafe = new Proxy({}, { get: () => () => {} }) as Console.UnsafeConsole
const silent = new Proxy({}, {
  get: (_, key) =>
    key === Console.TypeId ? Console.TypeId : key === "unsafe" ? silentUnsafe : key === "clear" || key === "groupEnd"
      ? Effect.void
      : () => Effect.void
}) as Console.Console

const tabs = new TextEncoder().encode(JSON.stringify({
  profile: "svc",
  tabs: [{ targetId: "WARMUP", title: "Warm-up", url: "about:blank", type: "page", current: true }]
}))

const answering = HttpClient.make((request) =>
  Effect.succeed(bufferedResponse(request, { status: 200, headers: { "content-type": "application/json" }, body: tabs }))
)
const refusing = HttpClient.make((request) =>
  Effect.fail(
    new HttpClientError.RequestError({ request, reason: "Transport", cause: new Error("connect ECONNREFUSED") })
  )
)

/** The lean runtime's context (as src/entry/cli.ts provides it), with canned files and answers. */
const platform = (client: HttpClient.HttpClient) =>
  leanRuntimeContext({ fullBundle: "/nonexistent/svc.cjs", execArgv: [] }).pipe(
    Context.add(
      FileSystem.FileSystem,
      FileSystem.makeNoop({
        readFileString: () => Effect.succeed('{"gateway":{"port":18789,"auth":{"token":"snapshot-warm-up-token"}}}')
      })
    ),
    Context.add(HttpClient.HttpClient, client),
    Context.add(GatewayRunner, { run: () => Effect.fail(new GatewayRunError("not during the warm-up")) })
  )

const runs: ReadonlyArray<readonly [ReadonlyArray<string>, HttpClient.HttpClient]> = [
  [["browser", "tabs", "--json"], answering],
  [["browser", "tabs"], answering],
  [["browser", "tabs", "--json"], refusing],
  [["--version"], answering]
]

export const warmUp: Effect.Effect<void> = Effect.acquireUseRelease(
  // Touching node's FormData would load node:http, which cannot be in a snapshot.
  Effect.sync(deferFormDataGlobal),
  () =>
    Effect.forEach(runs, ([args, client]) => runCli(["node", "svc", ...args]).pipe(Effect.provide(platform(client))), {
      discard: true
    }),
  (restore) => Effect.sync(restore)
).pipe(
  Effect.withConsole(silent),
  Effect.catchAllCause(() => Effect.void)
)
