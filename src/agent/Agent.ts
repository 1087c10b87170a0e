import { Context, type Effect, type Stream } from "effect"

/** What the agent is asked to answer: one inbound message and its context. */
export interface InboundContext {
  readonly channel: string
  readonly accountId: string
  readonly text: string
  readonly sender: string
  readonly chatGuid: string
  readonly isGroup: boolean
  /** Short id of the message, and the bridge guid (MessageSid / MessageSidFull). */
  readonly messageSid: string
  readonly messageSidFull: string
  readonly replyToId?: string | undefined
  readonly replyToIdFull?: string | undefined
  /** A system line instead of a user message (a tapback, a skipped attachment). */
  readonly system?: string | undefined
  /** The last messages of the chat before this one, oldest first (historyLimit / dmHistoryLimit). */
  readonly history?: ReadonlyArray<{ readonly sender: string; readonly text: string; readonly fromMe?: boolean }> | undefined
  /** Things the agent should know about the message (an attachment that was not downloaded, and why). */
  readonly notes?: ReadonlyArray<string> | undefined
  /** Media that came with the message, saved on this machine. */
  readonly media?: ReadonlyArray<{ readonly path: string; readonly mimeType?: string | undefined; readonly name: string; readonly size: number }> | undefined
}

/** An action the channel offers the agent, on or off (and why). */
export interface AgentActionInfo {
  readonly name: string
  readonly enabled: boolean
  readonly reason?: string | undefined
}

/**
 * What the agent may do besides replying: the channel's message actions (react, edit, unsend, reply,
 * effects, group management, attachments), with parameters as `svc message action` takes them. Placeholders
 * such as {{MessageSidFull}} in string parameters are expanded from the message being answered.
 */
export interface AgentTools {
  readonly actions: {
    readonly available: Effect.Effect<ReadonlyArray<AgentActionInfo>>
    readonly run: (name: string, params: Record<string, unknown>) => Effect.Effect<Record<string, unknown>, AgentError>
  }
}

/** Answers an inbound context with a stream of reply blocks. A language-model agent plugs in here. */
export class Agent extends Context.Tag("svc/Agent")<
  Agent,
  { readonly reply: (context: InboundContext, tools: AgentTools) => Stream.Stream<string, AgentError> }
>() {}

export class AgentError {
  readonly _tag = "AgentError"
  constructor(readonly message: string) {}
}
