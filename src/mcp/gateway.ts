import { Cause, Duration, Effect, Exit, Fiber, Option } from "effect"
import { type ControlClient, makeControlClient } from "../client/ControlClient.js"
import { runGateway } from "../gateway/run.js"
import { McpRunError } from "./McpRunner.js"

// The gateway the MCP tools talk to: the one already running on this state dir, used as it is and left
// running; or, when none answers, one in this very process (no second node start, ~no IPC), which lives
// in the caller's scope: closing it stops the gateway and every browser the gateway launched.

export interface AttachedGateway {
  readonly client: ControlClient
  /** Whether this process runs the gateway (and stops it when the scope closes). */
  readonly owned: boolean
}

/** The running gateway, if one answers on this state dir's control port. */
const reach = makeControlClient.pipe(
  Effect.flatMap(({ client }) => client.browser.profiles({ urlParams: {} }).pipe(Effect.as(client))),
  Effect.option
)

const READY_TIMEOUT = Duration.seconds(30)

export const attachGateway = (options: { readonly profile: string | undefined }) =>
  Effect.gen(function*() {
    const running = yield* reach
    if (Option.isSome(running)) return { client: running.value, owned: false } satisfies AttachedGateway
    // Start the gateway here, with the browser launching as soon as it is up: the first tool call then finds
    // it ready or nearly so. Its scope is the caller's.
    const gateway = yield* Effect.forkScoped(runGateway({ port: undefined, startBrowser: options.profile === undefined }))
    const waitReady = Effect.gen(function*() {
      while (true) {
        const reached = yield* reach
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
    if (options.profile !== undefined) {
      // The chosen profile's browser, launched while the client is still shaking hands.
      yield* Effect.forkScoped(Effect.ignore(client.browser.start({ urlParams: { profile: options.profile } })))
    }
    yield* Effect.addFinalizer(() => Fiber.interrupt(gateway))
    return { client, owned: true } satisfies AttachedGateway
  })

const gatewayFailure = (exit: Exit.Failure<unknown, { readonly message: string }>) =>
  Option.match(Cause.failureOption(exit.cause), {
    onNone: () => "the gateway did not start",
    onSome: (e) => `the gateway did not start: ${e.message}`
  })
