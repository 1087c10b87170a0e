import { Context, Layer, Stream } from "effect"

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
  readonly history?: ReadonlyArray<{ readonly sender: string; readonly text: string }> | undefined
}

/** Answers an inbound context with a stream of reply blocks. A language-model agent plugs in here. */
export class Agent extends Context.Tag("svc/Agent")<
  Agent,
  { readonly reply: (context: InboundContext) => Stream.Stream<string, AgentError> }
>() {}

export class AgentError {
  readonly _tag = "AgentError"
  constructor(readonly message: string) {}
}

/** `agent.provider: "echo"`: replies `echo: <text>`; for tests and for trying the channel. */
export const EchoAgent = Layer.succeed(Agent, {
  reply: (context) => Stream.make(context.system !== undefined ? `echo: (${context.system})` : `echo: ${context.text}`)
})
