import { Redacted } from "effect"
import type { SvcConfig } from "../../config/SvcConfig.js"

// What the language-model agent runs with, read once from svc.json and the environment: the provider, its
// model and key (the env's key first: it is not written in a file), and the turn's bounds.

export type ModelProvider = "anthropic" | "openai"

export interface ModelSettings {
  readonly provider: ModelProvider
  readonly model: string
  /** Undefined: no key anywhere (a compatible server that needs none, or a 401 the status explains). */
  readonly apiKey: Redacted.Redacted<string> | undefined
  /** Where the key came from, for the status and errors (never the key). */
  readonly apiKeySource: string
  readonly apiUrl: string | undefined
  readonly systemPrompt: string | undefined
  readonly maxSteps: number
  readonly timeoutMs: number
  readonly maxOutputTokens: number
  readonly sandboxed: boolean
  readonly maxTurns: number
  readonly maxChars: number
}

export const DEFAULT_MODELS: Record<ModelProvider, string> = { anthropic: "claude-sonnet-4-5", openai: "gpt-5-mini" }
export const DEFAULT_MAX_STEPS = 12
export const DEFAULT_TIMEOUT_MS = 120_000
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096
export const DEFAULT_MAX_TURNS = 40
export const DEFAULT_MAX_CHARS = 60_000

const ENV_KEY: Record<ModelProvider, string> = { anthropic: "ANTHROPIC_API_KEY", openai: "OPENAI_API_KEY" }

/** The settings of a language-model provider, or undefined for `echo` (or no agent configured). */
export const modelSettings = (config: SvcConfig, env: Record<string, string | undefined>): ModelSettings | undefined => {
  const agent = config.agent
  const provider = agent?.provider
  if (provider === undefined || provider === "echo") return undefined
  const fromEnv = env[ENV_KEY[provider]]?.trim()
  const key = fromEnv !== undefined && fromEnv !== "" ? fromEnv : agent?.apiKey
  return {
    provider,
    model: agent?.model ?? DEFAULT_MODELS[provider],
    apiKey: key !== undefined ? Redacted.make(key) : undefined,
    apiKeySource: fromEnv !== undefined && fromEnv !== "" ? `env ${ENV_KEY[provider]}` : key !== undefined ? "agent.apiKey" : "none",
    apiUrl: agent?.apiUrl,
    systemPrompt: agent?.systemPrompt,
    maxSteps: agent?.maxSteps ?? DEFAULT_MAX_STEPS,
    timeoutMs: agent?.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxOutputTokens: agent?.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
    sandboxed: agent?.sandboxed ?? false,
    maxTurns: agent?.conversation?.maxTurns ?? DEFAULT_MAX_TURNS,
    maxChars: agent?.conversation?.maxChars ?? DEFAULT_MAX_CHARS
  }
}

/** The env variable a provider's key is read from. */
export const apiKeyEnv = (provider: ModelProvider): string => ENV_KEY[provider]
