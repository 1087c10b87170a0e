import { type AiError, LanguageModel, Prompt, Tool, type Toolkit } from "@effect/ai"
import { Effect, Schema } from "effect"
import type { Turn } from "./Conversations.js"
import type { TurnTool } from "./tools.js"

// One turn of the agent: ask the model; say its text; run the tools it called, in order, and give their
// results back; again, until it stops calling tools or `maxSteps` tool rounds are done. The turn's
// messages (the person's, the model's, the tool results) are returned for the conversation store; a
// round cut short by maxSteps still gets results, so the saved conversation stays one a provider accepts.

export interface ToolCallEvent {
  readonly name: string
  /** The call's arguments, shortened for a log line. */
  readonly args: string
  readonly ms: number
  readonly isError: boolean
}

export interface TurnOptions {
  readonly system: string
  readonly history: ReadonlyArray<Turn>
  readonly user: string
  readonly tools: ReadonlyArray<TurnTool>
  readonly maxSteps: number
  /** The model's text of each step, as it comes (a reply block). */
  readonly onText: (text: string) => Effect.Effect<void>
  readonly onToolCall?: (event: ToolCallEvent) => Effect.Effect<void>
}

export interface TurnResult {
  readonly turn: Turn
  /** Tool rounds run. */
  readonly steps: number
  /** The model still called tools when maxSteps rounds were done. */
  readonly stoppedAtMaxSteps: boolean
}

/** Any JSON object: the tools decode their own arguments (a bad one is a tool error the model can fix). */
const AnyObject = Schema.Struct({}, { key: Schema.String, value: Schema.Unknown })

/** @effect/ai tools carrying each tool's JSON Schema; the calls are resolved by runTurn, not by a handler. */
const toolkitOf = (tools: ReadonlyArray<TurnTool>) => {
  const defs = Object.fromEntries(
    tools.map((t) => [t.name, Tool.make(t.name, { description: t.description }).setParameters(AnyObject.annotations({ jsonSchema: t.jsonSchema }))])
  )
  return { tools: defs, handle: () => Effect.die("tool calls are resolved by the agent loop") } as unknown as Toolkit.WithHandler<Record<string, Tool.Any>>
}

const encodePrompt = Schema.encodeSync(Prompt.Prompt)

/** A call's arguments in one short line. */
export const shortArgs = (params: unknown, max = 120): string => {
  const text = JSON.stringify(params) ?? ""
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

export const runTurn = (options: TurnOptions): Effect.Effect<TurnResult, AiError.AiError, LanguageModel.LanguageModel> =>
  Effect.gen(function*() {
    const model = yield* LanguageModel.LanguageModel
    const toolkit = toolkitOf(options.tools)
    const byName = new Map(options.tools.map((t) => [t.name, t]))
    // The prompt is decoded once and grown by each round's own messages (re-decoding the whole encoded
    // conversation every round would cost more each round); encoded once at the end for the store.
    const history: Array<Prompt.MessageEncoded> = [{ role: "system", content: options.system }, ...options.history.flat()]
    const kept = history.length
    let prompt = Prompt.make([...history, { role: "user", content: options.user }])
    const finish = (extra: ReadonlyArray<Prompt.MessageEncoded>, stoppedAtMaxSteps: boolean): TurnResult => ({
      turn: [...encodePrompt(Prompt.fromMessages(prompt.content.slice(kept))).content, ...extra],
      steps,
      stoppedAtMaxSteps
    })
    let steps = 0
    while (true) {
      const response = yield* model.generateText({ prompt, toolkit, disableToolCallResolution: true })
      prompt = Prompt.merge(prompt, Prompt.fromResponseParts(response.content))
      const text = response.text.trim()
      if (text !== "") yield* options.onText(text)
      const calls = response.toolCalls
      if (calls.length === 0) return finish([], false)
      if (steps >= options.maxSteps) {
        // The model wants more than the limit allows: its calls are answered, not run.
        return finish([{
          role: "tool",
          content: calls.map((c) => ({
            type: "tool-result",
            id: c.id,
            name: c.name,
            isFailure: true,
            result: `not run: this message's limit of ${options.maxSteps} tool rounds (agent.maxSteps) was reached`,
            providerExecuted: false
          }))
        }], true)
      }
      steps++
      const results: Array<Prompt.ToolResultPartEncoded> = []
      for (const call of calls) {
        const tool = byName.get(call.name)
        const t0 = performance.now()
        const out = tool === undefined
          ? { text: `there is no tool "${call.name}"; the tools are: ${[...byName.keys()].join(", ")}`, isError: true }
          : yield* tool.run(call.params)
        if (options.onToolCall !== undefined) {
          yield* options.onToolCall({ name: call.name, args: shortArgs(call.params), ms: performance.now() - t0, isError: out.isError })
        }
        results.push({ type: "tool-result", id: call.id, name: call.name, isFailure: out.isError, result: out.text, providerExecuted: false })
      }
      prompt = Prompt.merge(prompt, Prompt.make([{ role: "tool", content: results }]))
    }
  })
