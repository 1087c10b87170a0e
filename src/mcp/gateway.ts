import { Cause, Deferred, Duration, Effect, Exit, Fiber, Option, Schedule, Scope } from "effect"
import type { FileSystem, HttpClient } from "@effect/platform"
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
        const failure = Exit.isFailure(stopped.value) ? Cause.failureOption(stopped.value.cause) : Option.none()
        if (Option.isSome(failure) && failure.value.heldByOther) {
          // Another process took the state dir first (two MCP sessions started at once): use its gateway.
          const client = yield* reachOnceUp(failure.value.message)
          return { client, owned: false } satisfies AttachedGateway
        }
        return yield* Effect.fail(
          new McpRunError(Exit.isFailure(stopped.value) ? gatewayFailure(stopped.value) : "the gateway stopped before it answered")
        )
      }
      // Its token is in the state dir by now: the client is made once, for a gateway known to listen.
      const client = yield* makeControlClient.pipe(
        Effect.map((c) => c.client),
        Effect.mapError((e) => new McpRunError(`the gateway started, but its client could not be made: ${e.message}`))
      )
      yield* Effect.forkScoped(warmUp(client, options.profile))
      yield* Effect.addFinalizer(() => Fiber.interrupt(gateway))
      return { client, owned: true } satisfies AttachedGateway
    })
    return yield* waitReady.pipe(
      Effect.timeoutFail({
        duration: READY_TIMEOUT,
        onTimeout: () => new McpRunError("the gateway did not answer within 30 s of starting")
      })
    )
  })

/** The gateway another process holds the state dir for, once it answers (it may be starting right now). */
const reachOnceUp = (lockMessage: string) =>
  reach.pipe(
    Effect.flatMap(Option.match({ onNone: () => Effect.fail(new McpRunError(lockMessage)), onSome: Effect.succeed })),
    Effect.retry(Schedule.spaced(Duration.millis(100))),
    Effect.timeoutFail({
      duration: READY_TIMEOUT,
      onTimeout: () => new McpRunError(`${lockMessage}; it did not answer within 30 s`)
    })
  )

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

const attachedNow = (d: Deferred.Deferred<AttachedGateway, McpRunError>) =>
  Effect.flatMap(Deferred.poll(d), (o) => Option.isSome(o) ? Effect.option(o.value) : Effect.succeedNone)

/**
 * The gateway of an MCP session, for as long as the session lasts: attached at once (attachGateway), and
 * again when it stops answering (the session that started it exited, or it was restarted): then the one
 * running on the state dir is used, or one is started in this process. Gateways started here live in the
 * session's scope.
 */
export const gatewayLink = (options: { readonly profile: string | undefined }) =>
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    // What attaching needs, kept for the attachings later tool calls ask for.
    const context = yield* Effect.context<FileSystem.FileSystem | HttpClient.HttpClient>()
    const attach = attachGateway(options).pipe(Scope.extend(scope), Effect.provide(context))
    const attaching = () =>
      Effect.flatMap(Deferred.make<AttachedGateway, McpRunError>(), (d) => Effect.as(Effect.forkIn(Effect.intoDeferred(attach, d), scope), d))
    let current = yield* attaching()
    const once = yield* Effect.makeSemaphore(1)
    return {
      /** The session's gateway, once attached. */
      get: Effect.suspend(() => Deferred.await(current)),
      /** What the session has now, if it is attached. */
      now: Effect.suspend(() => attachedNow(current)),
      /** A gateway in place of `gone`, which stopped answering (one attaching for several callers). */
      reattach: (gone: AttachedGateway) =>
        once.withPermits(1)(Effect.gen(function*() {
          if (Option.exists(yield* attachedNow(current), (a) => a === gone)) current = yield* attaching()
          return yield* Deferred.await(current)
        }))
    }
  })
