import { Context, Effect, Layer } from "effect"

// What `svc status` says about the agent: its provider and model, and the last failure that makes it
// unable to answer (a refused key, an unknown model) or the last transient one.

export interface AgentStatusInfo {
  readonly provider: string
  readonly model?: string | undefined
  /** Where the API key comes from (never the key). */
  readonly apiKey?: string | undefined
  readonly turns: number
  readonly lastTurnAt?: string | undefined
  readonly lastError?: { readonly at: string; readonly fatal: boolean; readonly message: string } | undefined
}

export class AgentStatus extends Context.Tag("svc/AgentStatus")<AgentStatus, { readonly status: Effect.Effect<AgentStatusInfo> }>() {}

export const EchoAgentStatus = Layer.succeed(AgentStatus, { status: Effect.succeed({ provider: "echo", turns: 0 }) })
