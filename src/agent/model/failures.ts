import type { AiError } from "@effect/ai"
import { Redacted } from "effect"
import type { ModelSettings } from "./settings.js"

// A provider's failure as svc words it: fatal (the key is refused, the model does not exist: nothing works
// until the config changes) or not (rate limits and outages outlived the retries, a dropped connection),
// with a message for the status and the log that never holds the key. The person only ever gets one line.

export interface ModelFailure {
  readonly fatal: boolean
  readonly message: string
}

export const UNAVAILABLE = "The agent is not available right now."

/** The key (and any bearer token) out of a text a provider or a library wrote. */
export const scrub = (text: string, settings: ModelSettings): string => {
  let out = text.replace(/(sk-[A-Za-z0-9_-]{2})[A-Za-z0-9_*.-]{6,}/g, "$1***").replace(/(bearer\s+)\S+/gi, "$1***")
  const key = settings.apiKey !== undefined ? Redacted.value(settings.apiKey) : ""
  if (key.length >= 4) out = out.split(key).join("***")
  return out.length > 300 ? `${out.slice(0, 299)}…` : out
}

/** The provider's own error message from an error body (`{error: {message}}`), if any. */
const providerMessage = (body: string | undefined): string | undefined => {
  if (body === undefined) return undefined
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } }
    return typeof parsed.error?.message === "string" ? parsed.error.message : undefined
  } catch {
    return body.trim() === "" ? undefined : body
  }
}

export const classifyFailure = (error: AiError.AiError, settings: ModelSettings): ModelFailure => {
  const where = `${settings.provider} ${settings.model}`
  switch (error._tag) {
    case "HttpResponseError": {
      const status = error.response.status
      const said = providerMessage(error.body)
      if (status === 401 || status === 403) {
        return {
          fatal: true,
          message: `${where}: the provider refused the API key (HTTP ${status}); set a valid key in ${
            settings.apiKeySource === "none" ? `the env (${settings.provider === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY"}) or agent.apiKey` : settings.apiKeySource
          }`
        }
      }
      if (status === 404 || (status === 400 && said !== undefined && /model/i.test(said))) {
        return {
          fatal: true,
          message: `${where}: the provider does not know this model (HTTP ${status}${said !== undefined ? `: ${scrub(said, settings)}` : ""}); check agent.model`
        }
      }
      return { fatal: false, message: `${where}: the provider answered HTTP ${status}${said !== undefined ? ` (${scrub(said, settings)})` : ""}` }
    }
    case "HttpRequestError":
      return { fatal: false, message: `${where}: the provider could not be reached (${scrub(error.description ?? error.reason, settings)}${settings.apiUrl !== undefined ? `, agent.apiUrl ${settings.apiUrl}` : ""})` }
    case "MalformedOutput":
      return { fatal: false, message: `${where}: the provider's answer could not be read (${scrub(error.description ?? "malformed", settings)})` }
    default:
      return { fatal: false, message: `${where}: ${scrub(error.message, settings)}` }
  }
}
