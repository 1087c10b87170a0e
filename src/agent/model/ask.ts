import type { FileSystem, HttpClient } from "@effect/platform"
import { Effect, Either, Layer } from "effect"
import * as fs from "node:fs/promises"
import { makeControlClient } from "../../client/ControlClient.js"
import { locateStatePaths } from "../../config/locate.js"
import { parseConfigText } from "../../config/parse.js"
import { type AskOptions, type AskResult, AskRunError, AskRunner, type AskToolCall } from "./AskRunner.js"
import { makeConfiguredModelAgent } from "./layer.js"
import { modelSettings } from "./settings.js"

// `svc agent ask` in this process: the configured agent (svc.json's agent.*, the env's key), its browser
// tool calls going to the gateway already running on this state dir, like any other client of its control
// port. Nothing is kept: one turn, no conversation, no message actions (there is no chat).
// Why here and not a control route: the CLI prints each tool call as it ends, and the model's key stays
// in the process of the person who asked; the gateway only does browser work, which it needs anyway.

const configOf = Effect.gen(function*() {
  const paths = yield* locateStatePaths
  const text = yield* Effect.promise(() => fs.readFile(paths.configFile, "utf8").catch(() => ""))
  const parsed = parseConfigText(text, paths.configFile)
  if (Either.isLeft(parsed)) return yield* Effect.fail(new AskRunError(`${parsed.left.file} is not valid: ${parsed.left.problems.join("; ")}`))
  return { config: parsed.right, stateDir: paths.stateDir }
})

const ask = (options: AskOptions) =>
  Effect.gen(function*() {
    const { config, stateDir } = yield* configOf
    const settings = modelSettings(config, process.env)
    const noGateway = (why: string) =>
      new AskRunError(`no gateway answers on this state dir (${why}); start one with \`svc gateway run\` (the agent's browser runs there)`)
    const { client } = yield* makeControlClient.pipe(Effect.mapError((e) => noGateway(e.message)))
    const reply: Array<string> = []
    const toolCalls: Array<AskToolCall> = []
    if (settings === undefined) {
      // agent.provider echo: what a message would get.
      return { provider: "echo", reply: [`echo: ${options.text}`], toolCalls, steps: 0, gateway: "running" } satisfies AskResult
    }
    yield* client.browser.profiles({ urlParams: {} }).pipe(Effect.mapError((e) => noGateway((e as { message?: string }).message ?? "no answer")))
    const agent = yield* makeConfiguredModelAgent(config, stateDir, client, options.profile)
    if (agent === undefined) return yield* Effect.fail(new AskRunError("no language-model agent is configured (agent.provider)"))
    const done = yield* agent.ask(options.text, {
      onText: (text) => Effect.sync(() => void reply.push(text)),
      onToolCall: (call) => Effect.zipRight(Effect.sync(() => void toolCalls.push(call)), options.onToolCall(call))
    })
    return {
      provider: settings.provider,
      model: settings.model,
      reply,
      toolCalls,
      steps: done?.steps ?? 0,
      gateway: "running"
    } satisfies AskResult
  }).pipe(Effect.scoped)

/** The AskRunner of the full runtime. */
export const AskInProcess = Layer.effect(
  AskRunner,
  Effect.map(
    Effect.context<FileSystem.FileSystem | HttpClient.HttpClient>(),
    (context) => ({ ask: (options: AskOptions) => Effect.provide(ask(options), context) })
  )
)
