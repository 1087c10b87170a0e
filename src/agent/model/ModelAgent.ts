import type { LanguageModel } from "@effect/ai"
import { Clock, Console, Duration, Effect, Either, Stream } from "effect"
import { logText } from "../../platform/logText.js"
import type { AgentTools, InboundContext } from "../Agent.js"
import type { BrowserToolSession } from "../tool/BrowserTool.js"
import type { AgentStatusInfo } from "./AgentStatus.js"
import type { Conversations } from "./Conversations.js"
import { classifyFailure, type ModelFailure, UNAVAILABLE } from "./failures.js"
import { runTurn, type ToolCallEvent, type TurnResult } from "./loop.js"
import { systemPrompt, userText } from "./prompt.js"
import type { ModelSettings } from "./settings.js"
import { type BrowserRun, turnTools } from "./tools.js"

// The language-model agent behind the channel's Agent interface: each message is one turn of the loop
// (loop.ts) over the chat's saved conversation, its text streamed out as reply blocks; `/new` forgets the
// conversation. Failures never reach the person as more than one short line; a fatal one (a refused key,
// an unknown model) is kept for `svc status` and logged once.

export const NEW_CONVERSATION = "Started a new conversation."

const isNewCommand = (text: string) => /^\/new(\s|$)/i.test(text.trim())

export interface TurnEvents {
  readonly onText: (text: string) => Effect.Effect<void>
  readonly onToolCall?: ((event: ToolCallEvent) => Effect.Effect<void>) | undefined
}

export const makeModelAgent = (options: {
  readonly settings: ModelSettings
  readonly browser: BrowserRun
  readonly session: BrowserToolSession
  readonly conversations: Conversations
}) =>
  Effect.gen(function*() {
    const { settings, conversations } = options
    const model = yield* Effect.context<LanguageModel.LanguageModel>()
    let turns = 0
    let lastTurnAt: string | undefined
    let lastError: AgentStatusInfo["lastError"]
    // The gateway is stopping: its HTTP client goes away under a running turn. That turn must not answer
    // (the message is finished after the restart), so it waits for the process to end instead.
    let closing = false
    yield* Effect.addFinalizer(() => Effect.sync(() => void (closing = true)))

    /** Keep a failure for the status; log it unless it is the fatal one already logged. */
    const record = (failure: ModelFailure) =>
      Effect.gen(function*() {
        const repeated = lastError?.fatal === true && failure.fatal && lastError.message === failure.message
        lastError = { at: new Date(yield* Clock.currentTimeMillis).toISOString(), fatal: failure.fatal, message: failure.message }
        if (!repeated) yield* Console.error(`agent: ${failure.fatal ? "not available: " : ""}${logText(failure.message)}`)
      })

    /** One turn; the text comes out through events. Never fails: a failure is a last line for the person. */
    const turn = (context: InboundContext, tools: AgentTools | undefined, events: TurnEvents, chat: string | undefined) =>
      Effect.gen(function*() {
        const available = yield* turnTools({ browser: options.browser, session: options.session, actions: tools?.actions })
        const history = chat !== undefined ? yield* conversations.load(chat) : []
        const system = systemPrompt(context, {
          systemPrompt: settings.systemPrompt,
          now: new Date(yield* Clock.currentTimeMillis),
          tools: available.map((t) => t.name)
        })
        const result = yield* runTurn({
          system,
          history,
          user: userText(context),
          tools: available,
          maxSteps: settings.maxSteps,
          onText: events.onText,
          ...(events.onToolCall !== undefined ? { onToolCall: events.onToolCall } : {})
        }).pipe(
          Effect.provide(model),
          Effect.timeoutFail({ duration: Duration.millis(settings.timeoutMs), onTimeout: () => "timeout" as const }),
          Effect.either
        )
        if (closing) return yield* Effect.never
        turns++
        lastTurnAt = new Date(yield* Clock.currentTimeMillis).toISOString()
        if (Either.isLeft(result)) {
          if (result.left === "timeout") {
            yield* Console.error(`agent: a turn ran out of time (agent.timeoutMs ${settings.timeoutMs} ms)`)
            yield* events.onText(`I ran out of time on this one (${Math.round(settings.timeoutMs / 1000)} s, agent.timeoutMs) and stopped.`)
            return undefined
          }
          const failure = classifyFailure(result.left, settings)
          yield* record(failure)
          yield* events.onText(UNAVAILABLE)
          return undefined
        }
        if (lastError !== undefined && lastError.fatal) lastError = { ...lastError, fatal: false, message: `${lastError.message} (answered since)` }
        const done: TurnResult = result.right
        if (done.stoppedAtMaxSteps) {
          yield* events.onText(
            `I stopped after ${done.steps} tool steps, the limit for one message (agent.maxSteps ${settings.maxSteps}). Tell me to go on if you want more.`
          )
        }
        if (chat !== undefined) {
          yield* conversations.append(chat, done.turn).pipe(
            Effect.catchAll((e) => Console.error(`agent: ${logText(e.message)}`))
          )
        }
        return done
      })

    const reply = (context: InboundContext, tools: AgentTools): Stream.Stream<string, never> => {
      const chat = `${context.channel}:${context.accountId}:${context.chatGuid}`
      if (context.system === undefined && isNewCommand(context.text)) {
        return Stream.fromEffect(
          conversations.reset(chat).pipe(
            Effect.as(NEW_CONVERSATION),
            Effect.catchAll((e) => Effect.as(Console.error(`agent: ${logText(e.message)}`), "I could not forget our conversation (see the gateway log)."))
          )
        )
      }
      return Stream.asyncScoped<string>((emit) =>
        turn(context, tools, { onText: (text) => Effect.promise(() => emit.single(text)) }, chat).pipe(
          Effect.ensuring(Effect.promise(() => emit.end())),
          Effect.forkScoped
        )
      )
    }

    /** `svc agent ask`: one turn with the browser only, not kept. */
    const ask = (text: string, events: TurnEvents) =>
      turn(
        { channel: "cli", accountId: "cli", text, sender: "you", chatGuid: "cli", isGroup: false, messageSid: "", messageSidFull: "" },
        undefined,
        events,
        undefined
      )

    const status = Effect.sync((): AgentStatusInfo => ({
      provider: settings.provider,
      model: settings.model,
      apiKey: settings.apiKeySource,
      turns,
      ...(lastTurnAt !== undefined ? { lastTurnAt } : {}),
      ...(lastError !== undefined ? { lastError } : {})
    }))

    return { reply, ask, status } as const
  })

export type ModelAgent = Effect.Effect.Success<ReturnType<typeof makeModelAgent>>
