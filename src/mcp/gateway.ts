import { Cause, Duration, Effect, Exit, Fiber, Option } from "effect"
import { type ControlClient, makeControlClient } from "../client/ControlClient.js"
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

/** The running gateway, if one answers on this state dir's control port. */
const reach = makeControlClient.pipe(
  Effect.option,
  Effect.flatMap(Option.match({ onNone: () => Effect.succeedNone, onSome: ({ client }) => answers(client) }))
)

const READY_TIMEOUT = Duration.seconds(30)

export const attachGateway = (options: { readonly profile: string | undefined }) =>
  Effect.gen(function*() {
    const running = yield* reach
    if (Option.isSome(running)) return { client: running.value, owned: false } satisfies AttachedGateway
    // Start the gateway here, its default browser launching as soon as it listens (another profile's is
    // launched by warmUp once the gateway answers). Its scope is the caller's.
    const gateway = yield* Effect.forkScoped(runGateway({ port: undefined, startBrowser: options.profile === undefined }, { mcp: makeGatewayMcpHttp }))
    const waitReady = Effect.gen(function*() {
      // The client is made once the gateway has written its token, then asked until the gateway answers.
      let client: ControlClient | undefined
      while (true) {
        if (client === undefined) client = yield* makeControlClient.pipe(Effect.map((c) => c.client), Effect.orElseSucceed(() => undefined))
        const reached = client === undefined ? Option.none() : yield* answers(client)
        if (Option.isSome(reached)) return reached.value
        const exit = yield* gateway.poll
        if (Option.isSome(exit)) {
          return yield* Effect.fail(
            new McpRunError(Exit.isFailure(exit.value) ? gatewayFailure(exit.value) : "the gateway stopped before it answered")
          )
        }
        yield* Effect.sleep(Duration.millis(10))
      }
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
