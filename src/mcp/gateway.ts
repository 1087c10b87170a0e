import { Cause, Deferred, Duration, Effect, Exit, Fiber, Option } from "effect"
import { findConnection } from "../client/Connection.js"
import { type ControlClient, makeControlClient, makeControlClientAt } from "../client/ControlClient.js"
import { tcpConnects } from "../platform/tcpProbe.js"
import { runGateway } from "../gateway/run.js"
import { makeGatewayMcpHttp } from "./http.js"
import { McpRunError } from "./McpRunner.js"

// The gateway the MCP tools talk to: the one already running on this state dir, used as it is and left
// running; or, when none answers, one in this very process (no second node start, ~no IPC), which lives
// in the caller's scope: closing it stops the gateway and every browser the gateway launched.

export interface AttachedGateway {
  readonly client: ControlClient
  /** Whether this process runs the gateway (and stops it when the scope closes). */
  readonly owned: boolean
}

/** Whether the gateway behind this client answers. */
const answers = (client: ControlClient) => client.browser.profiles({ urlParams: {} }).pipe(Effect.as(client), Effect.option)

/**
 * The running gateway, if one answers on this state dir's control port. Nothing listening there (the usual
 * case for a first start) is told by a refused connection, without building the typed client; the client
 * of a gateway that listens is made for the connection already read.
 */
const reach = findConnection.pipe(
  Effect.option,
  Effect.flatMap(Option.match({
    onNone: () => Effect.succeedNone,
    onSome: (connection) =>
      Effect.flatMap(tcpConnects(Number(new URL(connection.baseUrl).port)), (open) =>
        open
          ? Effect.flatMap(makeControlClientAt(connection), ({ client }) => answers(client))
          : Effect.succeedNone)
  }))
)

const READY_TIMEOUT = Duration.seconds(30)

export const attachGateway = (options: { readonly profile: string | undefined }) =>
  Effect.gen(function*() {
    const running = yield* reach
    if (Option.isSome(running)) return { client: running.value, owned: false } satisfies AttachedGateway
    // Start the gateway here, its default browser spawned before the rest of it is built (another profile's
    // is launched by warmUp once the gateway answers). Its scope is the caller's. It says when it listens.
    const up = yield* Deferred.make<void>()
    const gateway = yield* Effect.forkScoped(
      runGateway({ port: undefined, startBrowser: options.profile === undefined }, {
        mcp: makeGatewayMcpHttp,
        onReady: Deferred.succeed(up, undefined)
      })
    )
    const waitReady = Effect.gen(function*() {
      const stopped = yield* Effect.raceFirst(Deferred.await(up).pipe(Effect.as(Option.none())), Effect.map(Fiber.await(gateway), Option.some))
      if (Option.isSome(stopped)) {
        return yield* Effect.fail(
          new McpRunError(Exit.isFailure(stopped.value) ? gatewayFailure(stopped.value) : "the gateway stopped before it answered")
        )
      }
      // Its token is in the state dir by now: the client is made once, for a gateway known to listen.
      return yield* makeControlClient.pipe(
        Effect.map((c) => c.client),
        Effect.mapError((e) => new McpRunError(`the gateway started, but its client could not be made: ${e.message}`))
      )
    })
    const client = yield* waitReady.pipe(
      Effect.timeoutFail({
        duration: READY_TIMEOUT,
        onTimeout: () => new McpRunError("the gateway did not answer within 30 s of starting")
      })
    )
    yield* Effect.forkScoped(warmUp(client, options.profile))
    yield* Effect.addFinalizer(() => Fiber.interrupt(gateway))
    return { client, owned: true } satisfies AttachedGateway
  })

/**
 * Get the first tool call ready while the client is still shaking hands: the profile's browser is started
 * (the gateway loads the automation library while Chromium starts), and the library is connected to it
 * through a trivial evaluate in its current tab. Nothing here is needed: a failure is ignored, and the tool
 * call that needs the step does it.
 */
const warmUp = (client: ControlClient, profile: string | undefined) => {
  const urlParams = profile !== undefined ? { profile } : {}
  return Effect.gen(function*() {
    yield* client.browser.start({ urlParams })
    const { tabs } = yield* client.tabs.list({ urlParams })
    const current = tabs.find((t) => t.current)
    if (current !== undefined) {
      yield* client.act.act({ urlParams, payload: { kind: "evaluate", fn: "() => 0", targetId: current.targetId } as never })
    }
  }).pipe(Effect.ignore)
}

const gatewayFailure = (exit: Exit.Failure<unknown, { readonly message: string }>) =>
  Option.match(Cause.failureOption(exit.cause), {
    onNone: () => "the gateway did not start",
    onSome: (e) => `the gateway did not start: ${e.message}`
  })
