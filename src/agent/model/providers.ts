import type { LanguageModel } from "@effect/ai"
import { HttpClient } from "@effect/platform"
import { Duration, Effect, Layer, Schedule } from "effect"
import type { ModelSettings } from "./settings.js"

// The provider's LanguageModel, chosen from the settings: @effect/ai's Anthropic (Messages API) or OpenAI
// (Responses API) client over the process's HttpClient. 429 and 5xx answers (and dropped connections) are
// retried here with jittered exponential backoff; the turn's timeout bounds the whole.
//
// The providers' modules are loaded when a model is first used, not when the process starts: their
// generated API schemas take about 175 ms to build, on every gateway and `svc mcp` start that needs no model.

/** Backoff of a rate-limited or failing provider: 0.5 s, 1 s, 2 s, 4 s, 8 s (jittered), then give up. */
export const providerRetry = Schedule.exponential(Duration.millis(500), 2).pipe(Schedule.jittered, Schedule.intersect(Schedule.recurs(5)))

const retrying = (schedule: Schedule.Schedule<unknown, unknown>) => (client: HttpClient.HttpClient) =>
  HttpClient.retryTransient(client, { schedule, times: 5 })

export const languageModelLayer = (
  settings: ModelSettings,
  schedule: Schedule.Schedule<unknown, unknown> = providerRetry
): Layer.Layer<LanguageModel.LanguageModel, never, HttpClient.HttpClient> => {
  const client = {
    ...(settings.apiKey !== undefined ? { apiKey: settings.apiKey } : {}),
    ...(settings.apiUrl !== undefined ? { apiUrl: settings.apiUrl.replace(/\/+$/, "") } : {}),
    transformClient: retrying(schedule)
  }
  switch (settings.provider) {
    case "anthropic":
      return Layer.unwrapEffect(Effect.promise(async () => {
        const [AnthropicClient, AnthropicLanguageModel] = await Promise.all([
          import("@effect/ai-anthropic/AnthropicClient"),
          import("@effect/ai-anthropic/AnthropicLanguageModel")
        ])
        return AnthropicLanguageModel.layer({ model: settings.model, config: { max_tokens: settings.maxOutputTokens } }).pipe(
          Layer.provide(AnthropicClient.layer(client))
        )
      }))
    case "openai":
      return Layer.unwrapEffect(Effect.promise(async () => {
        const [OpenAiClient, OpenAiLanguageModel] = await Promise.all([
          import("@effect/ai-openai/OpenAiClient"),
          import("@effect/ai-openai/OpenAiLanguageModel")
        ])
        return OpenAiLanguageModel.layer({ model: settings.model, config: { max_output_tokens: settings.maxOutputTokens } }).pipe(
          Layer.provide(OpenAiClient.layer(client))
        )
      }))
  }
}
