import { HttpApiBuilder } from "@effect/platform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Config, Console, Effect, Layer, Option } from "effect"
import * as crypto from "node:crypto"
import * as os from "node:os"
import { chooseBase } from "../browser/inspect/SafePaths.js"
import { BrowserServicesLive } from "../browser/layer.js"
import { ConfigStore } from "../config/ConfigStore.js"
import { defaultProfileName } from "../config/SvcConfig.js"
import { guard } from "../http/middleware.js"
import { NodeRegistry } from "../node/gateway/NodeRegistry.js"
import { type LocalAnswer, runNodeHostLoop, socketUrl } from "../node/host/NodeHost.js"
import { loadOrCreateIdentity } from "../node/host/identity.js"
import { NodeRunError, type NodeRunOptions } from "../node/NodeRunner.js"
import { redactSecrets } from "../domain/redact.js"
import { ControlApiLive } from "./layers.js"
import { RedactingLogger } from "./run.js"
import { lockStateDir } from "./stateLock.js"

// `svc node run`: this machine's browser control for a gateway elsewhere. The control API runs in this
// process with this machine's config and state dir (its managed profile launches here on demand), served
// to the node socket's requests without listening on any port; node/host/NodeHost.ts dials the gateway.

const envToken = Config.option(Config.string("SVC_GATEWAY_TOKEN")).pipe(
  Effect.map(Option.getOrUndefined),
  Effect.orElseSucceed(() => undefined)
)

const nodeHost = (options: NodeRunOptions) =>
  Effect.gen(function*() {
    const store = yield* ConfigStore
    const config = yield* store.get
    const url = yield* Effect.try({ try: () => socketUrl(options.gateway), catch: (e) => new NodeRunError((e as Error).message) })
    const token = options.token ?? (yield* envToken) ?? config.gateway?.auth?.token
    if (token === undefined) {
      return yield* Effect.fail(
        new NodeRunError("svc node run needs the gateway's token: --token <t>, or SVC_GATEWAY_TOKEN (gateway.auth.token on the gateway's machine)")
      )
    }
    // One user of this state dir's browsers at a time (a gateway or a node host).
    yield* lockStateDir(store.paths.stateDir, store.ports).pipe(Effect.mapError((e) => new NodeRunError(e.message)))
    const identity = yield* Effect.try({
      try: () => loadOrCreateIdentity(store.paths.stateDir),
      catch: (e) => new NodeRunError((e as Error).message)
    })
    // The local API keeps its guard (body cap, error shapes, Server-Timing); its credential never leaves this process.
    const local = crypto.randomBytes(24).toString("base64url")
    const { dispose, handler } = HttpApiBuilder.toWebHandler(
      Layer.mergeAll(ControlApiLive(), NodeHttpServer.layerContext).pipe(
        Layer.provide(NodeRegistry.Default),
        Layer.provide(BrowserServicesLive),
        Layer.provide(ConfigStore.Default),
        Layer.provide(RedactingLogger)
      ),
      { middleware: guard({ credentials: { token: local, password: undefined }, checkHost: false }) }
    )
    yield* Effect.addFinalizer(() => Effect.promise(dispose))
    const serve = async (request: { method: string; path: string; headers: Readonly<Record<string, string>>; body: Uint8Array }): Promise<LocalAnswer> => {
      const hasBody = request.method !== "GET" && request.method !== "HEAD" && request.body.byteLength > 0
      const response = await handler(
        new Request(`http://127.0.0.1${request.path}`, {
          method: request.method,
          headers: { ...request.headers, authorization: `Bearer ${local}` },
          ...(hasBody ? { body: request.body } : {})
        })
      )
      const headers: Record<string, string> = {}
      for (const name of ["content-type", "server-timing"]) {
        const value = response.headers.get(name)
        if (value !== null) headers[name] = value
      }
      return { status: response.status, headers, body: new Uint8Array(await response.arrayBuffer()) }
    }
    const profiles = async () => {
      const answer = await serve({ method: "GET", path: "/profiles", headers: {}, body: new Uint8Array() })
      const list = JSON.parse(Buffer.from(answer.body).toString("utf8")) as { profiles?: Array<{ name: string }> }
      return { profiles: (list.profiles ?? []).map((p) => p.name), defaultProfile: defaultProfileName(config) }
    }
    const browserProxy = config.nodeHost?.browserProxy?.enabled !== false
    yield* Console.log(
      `svc node ready: node ${identity.id} (${options.name ?? os.hostname()}), dialling ${redactSecrets(url)}; ` +
        (browserProxy ? `serving this machine's browser (default profile ${defaultProfileName(config)})` : "browser proxy off (nodeHost.browserProxy.enabled)")
    )
    return yield* runNodeHostLoop({
      gateway: url,
      token,
      name: options.name ?? os.hostname(),
      identity,
      browserProxy,
      serve,
      profiles,
      fileRoots: [store.paths.mediaDir, chooseBase()],
      log: (line) => console.log(line)
    })
  })

export const runNodeHost = (options: NodeRunOptions): Effect.Effect<void, NodeRunError> =>
  nodeHost(options).pipe(
    Effect.scoped,
    Effect.provide(RedactingLogger),
    Effect.provide(ConfigStore.Default),
    Effect.mapError((e) => (e instanceof NodeRunError ? e : new NodeRunError(e.message)))
  )
