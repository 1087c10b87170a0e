import { ConfigProvider, Console, Context, Deferred, Effect, Either, Fiber, Layer, Logger, Option } from "effect"
import { ConfigStore } from "../config/ConfigStore.js"
import { redactSecrets } from "../domain/redact.js"
import { defaultProfileName } from "../config/SvcConfig.js"
import { GatewayRunError, type GatewayRunOptions } from "./GatewayRunner.js"
import { BridgeHttpClientLive } from "../msgbridge/bridge/transport.js"
import { AgentLive } from "../agent/model/layer.js"
import { AgentStatus } from "../agent/model/AgentStatus.js"
import { BrowserManager } from "../browser/launch/BrowserManager.js"
import { Profiles } from "../browser/launch/Profiles.js"
import { webhookHandler } from "../msgbridge/webhook.js"
import { resolveAccounts } from "../msgbridge/channel/Accounts.js"
import { makeChannel } from "../msgbridge/channel/Channel.js"
import { makeChannels } from "../msgbridge/channel/Channels.js"
import { BrowserServicesLive } from "../browser/layer.js"
import { ControlServerLive, GatewayServerLive, type McpEndpoint } from "./layers.js"
import { RelayServerLive } from "../browser/relay/RelayServer.js"
import { checkConfigFile } from "./configFile.js"
import { lockStateDir } from "./stateLock.js"

const describeStartError = (e: unknown, ports: { gateway: number; control: number }): string => {
  const err = e as { _tag?: string; message?: string; cause?: { code?: string; message?: string } }
  if (err?._tag === "ServeError") {
    const code = err.cause?.code
    if (code === "EADDRINUSE") {
      return `cannot listen: port ${ports.gateway} or ${ports.control} is already in use (is another gateway running?); ` +
        "set gateway.port in svc.json or SVC_GATEWAY_PORT"
    }
    return `cannot listen: ${err.cause?.message ?? err.message ?? "unknown error"}`
  }
  return err?.message ?? String(e)
}

/** What the gateway serves that lives above it: the MCP endpoint (mcp/http.ts), given by whoever runs it. */
export interface GatewayExtras {
  readonly mcp?: (control: { readonly baseUrl: string; readonly headers: Readonly<Record<string, string>> }) => Effect.Effect<McpEndpoint>
  /** Run once both listeners are up (whoever runs the gateway in its own process learns it without asking). */
  readonly onReady?: Effect.Effect<void>
}

/**
 * The gateway in the foreground: both listeners up, then wait until interrupted (SIGINT/SIGTERM reach
 * the runtime as an interrupt), at which point every layer releases and every launched browser stops.
 */
const gateway = (options: GatewayRunOptions, extras: GatewayExtras) => Effect.gen(function*() {
  const store = yield* ConfigStore
  const t0 = performance.now()
  // One gateway per state dir: a second one would answer every webhook again.
  yield* lockStateDir(store.paths.stateDir, store.ports)
  yield* checkConfigFile(store.paths.configFile)
  const auth = yield* store.ensureAuth
  const config = yield* store.get
  const credentials = { token: auth.token, password: auth.password ?? config.gateway?.auth?.password }
  const bind = config.gateway?.bind ?? "127.0.0.1"
  const ports = store.ports
  if (auth.generated) {
    yield* Console.log(`svc: generated a gateway token and saved it in ${store.paths.configFile} (gateway.auth.token)`)
  }
  // The messaging bridge accounts, when configured: their webhooks live on the gateway port.
  const accounts = resolveAccounts(config)
  if (Either.isLeft(accounts)) return yield* Effect.fail(new GatewayRunError(accounts.left.message))
  // The agent (agent.provider): its browser tool calls this gateway's control port with the gateway token.
  const controlHeaders: Record<string, string> = auth.token !== undefined
    ? { authorization: `Bearer ${auth.token}` }
    : { "x-svc-password": auth.password ?? "" }
  // The browser services first, so that the default browser (when asked for) starts while the rest of the
  // gateway is built: Chromium takes a few hundred ms to open its DevTools port, mostly on other cores.
  const browser = yield* Layer.build(BrowserServicesLive)
  const browsers = Context.get(browser, BrowserManager)
  if (options.startBrowser) yield* startDefaultBrowser(browsers, Context.get(browser, Profiles))
  const agent = yield* Layer.build(
    AgentLive(config, store.paths.stateDir, { baseUrl: `http://127.0.0.1:${ports.control}`, headers: controlHeaders })
  )
  const channels = yield* Effect.forEach(accounts.right, (account) =>
    makeChannel(config, store.paths, account).pipe(
      Effect.provide(Layer.extendScope(Layer.merge(BridgeHttpClientLive, Layer.succeedContext(agent)))),
      Effect.mapError((e) => new GatewayRunError(`msgbridge (${account.keyPath}): ${e.message}`))
    ))
  const webhooks = channels.map((channel) => ({
    path: channel.webhookPath,
    handler: webhookHandler({
      password: channel.password,
      trustedProxies: config.gateway?.trustedProxies ?? [],
      handle: channel.handleWebhook
    })
  }))
  // MCP over Streamable HTTP on the gateway port: the tools call the control port as any client does.
  const mcp = extras.mcp === undefined
    ? undefined
    : yield* extras.mcp({ baseUrl: `http://127.0.0.1:${ports.control}`, headers: controlHeaders })
  const servers = Layer.mergeAll(
    ControlServerLive({ port: ports.control, credentials, channels: makeChannels(channels), agentStatus: Context.get(agent, AgentStatus) }),
    GatewayServerLive({ port: ports.gateway, bind, credentials, webhooks, ...(mcp !== undefined ? { mcp } : {}) }),
    RelayServerLive({ port: ports.relay, secrets: credentials })
  )
  yield* Layer.build(servers.pipe(Layer.provide(Layer.succeedContext(browser)))).pipe(
    Effect.mapError((e) => new GatewayRunError(describeStartError(e, ports)))
  )
  yield* Console.log(
    `svc gateway ready in ${Math.round(performance.now() - t0)} ms: gateway ${bind}:${ports.gateway}, ` +
      `control 127.0.0.1:${ports.control}, relay 127.0.0.1:${ports.relay}, default browser profile ${defaultProfileName(config)}` +
      (webhooks.length > 0 ? `, msgbridge webhook${webhooks.length > 1 ? "s" : ""} ${webhooks.map((w) => w.path).join(" ")}` : "")
  )
  // Run first when the gateway stops: the browsers quit while the rest shuts down.
  yield* Effect.addFinalizer(() => browsers.quitAll)
  if (extras.onReady !== undefined) yield* extras.onReady
  return yield* Effect.never
})

/**
 * `--start-browser`: the default profile's browser starts in the background and says how it went. A managed
 * one is waited for until its process is spawned: the steps before that are on this thread, and the rest of
 * the gateway is then built while Chromium starts on other cores. Any other kind is not waited for at all.
 */
const startDefaultBrowser = (browsers: BrowserManager, profiles: Profiles) =>
  Effect.gen(function*() {
    const gatewayScope = yield* Effect.scope
    const started = Effect.flatMap(
      Effect.either(browsers.start(undefined)),
      Either.match({
        onLeft: (e) => Console.error(`svc: the browser did not start: ${e.message}`),
        onRight: (r) =>
          Console.log(`svc: browser ${r.status.profile} running (pid ${r.status.pid ?? "-"}, ${r.status.cdpUrl ?? "-"})`)
      })
    )
    // Told of the spawn only while this waits: the listener goes with this inner scope, the start does not.
    yield* Effect.scoped(Effect.gen(function*() {
      const spawned = yield* Deferred.make<void>()
      yield* browsers.whileStarting(() => Deferred.succeed(spawned, undefined))
      const start = yield* Effect.forkIn(started, gatewayScope)
      const profile = yield* Effect.option(profiles.resolve(undefined))
      if (Option.isSome(profile) && profile.value.driver === "managed" && !profile.value.attachOnly) {
        yield* Effect.raceFirst(Deferred.await(spawned), Fiber.await(start))
      }
    }))
  })

/** Log messages with credentials and tokens in the URLs they quote hidden (the gateway's stdout is often kept). */
const redactLogMessage = (message: unknown): unknown =>
  typeof message === "string"
    ? redactSecrets(message)
    : Array.isArray(message)
    ? message.map(redactLogMessage)
    : message
export const RedactingLogger = Logger.replace(
  Logger.prettyLoggerDefault,
  Logger.mapInputOptions(Logger.prettyLoggerDefault, (o) => ({ ...o, message: redactLogMessage(o.message) }))
)

export const runGateway = (options: GatewayRunOptions, extras: GatewayExtras = {}): Effect.Effect<void, GatewayRunError> =>
  gateway(options, extras).pipe(
    Effect.scoped,
    Effect.provide(RedactingLogger),
    Effect.provide(ConfigStore.Default),
    Effect.mapError((e) => (e instanceof GatewayRunError ? e : new GatewayRunError(e.message))),
    options.port === undefined
      ? (self) => self
      : Effect.withConfigProvider(
        ConfigProvider.fromMap(new Map([["SVC_GATEWAY_PORT", String(options.port)]])).pipe(
          ConfigProvider.orElse(() => ConfigProvider.fromEnv())
        )
      )
  )
