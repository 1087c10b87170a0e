import { Schema } from "effect"

// The messaging routes of the control API (`svc message …`), transport-neutral.

const NonEmpty = (what: string) =>
  Schema.String.pipe(Schema.minLength(1), Schema.annotations({ message: () => `${what} must not be empty` }))

export const MessageChannel = Schema.Literal("msgbridge").annotations({
  message: () => "the only messaging channel is msgbridge"
})

export const SendMessageRequest = Schema.Struct({
  channel: Schema.optionalWith(MessageChannel, { exact: true }),
  account: Schema.optionalWith(NonEmpty("account"), { exact: true }),
  /** chat_guid:<guid>, chat_id:<id>, chat_identifier:<id>, an E.164 number or an e-mail address. */
  to: NonEmpty("to"),
  text: NonEmpty("text")
})
export type SendMessageRequest = typeof SendMessageRequest.Type

export const SentMessage = Schema.Struct({ messageId: Schema.String, messageGuid: Schema.String })

export const SendMessageResult = Schema.Struct({
  account: Schema.String,
  chatGuid: Schema.NullOr(Schema.String),
  /** Chunks delivered. */
  sent: Schema.Number,
  messages: Schema.Array(SentMessage)
})
export type SendMessageResult = typeof SendMessageResult.Type

export const MessageActionRequest = Schema.Struct({
  channel: Schema.optionalWith(MessageChannel, { exact: true }),
  account: Schema.optionalWith(NonEmpty("account"), { exact: true }),
  action: NonEmpty("action"),
  /** The action's parameters; each action checks its own. */
  params: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Unknown }), { exact: true })
})
export type MessageActionRequest = typeof MessageActionRequest.Type

/** What an action did: always `action` and `ok`; sends add messageGuid / messageId / chatGuid. */
export const MessageActionResult = Schema.Record({ key: Schema.String, value: Schema.Unknown })
