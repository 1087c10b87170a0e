import { Context, type Effect } from "effect"

// `svc agent ask`: one turn of the configured agent from the terminal. The full runtime runs it in the CLI
// process against the gateway's control port (src/cli/agentAsk.ts); the lean CLI carries no agent code.
// Declarations only, so the lean bundle can name the service.

export interface AskToolCall {
  readonly name: string
  readonly args: string
  readonly ms: number
  readonly isError: boolean
}

export interface AskResult {
  readonly provider: string
  readonly model?: string | undefined
  readonly reply: ReadonlyArray<string>
  readonly toolCalls: ReadonlyArray<AskToolCall>
  readonly steps: number
  /** The gateway this run started (and stopped), or the one already running. */
  readonly gateway: "running" | "started"
}

export interface AskOptions {
  readonly text: string
  readonly profile: string | undefined
  /** Each tool call as it ends (for a live transcript). */
  readonly onToolCall: (call: AskToolCall) => Effect.Effect<void>
}

export class AskRunError {
  readonly _tag = "AskRunError"
  constructor(readonly message: string) {}
}

export class AskRunner extends Context.Tag("svc/AskRunner")<
  AskRunner,
  { readonly ask: (options: AskOptions) => Effect.Effect<AskResult, AskRunError> }
>() {}
