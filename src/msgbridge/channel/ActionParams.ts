// The params of each message action as Schemas, and their decoding: unknown fields are refused, and a
// refusal names the first offending field in the words of the params, not of the Schema.

import { Effect, Either, ParseResult, Schema } from "effect"
import type { ActionName } from "./ActionAvailability.js"
import { ActionInvalidParams } from "./ActionErrors.js"

/** A message that replaces every default one for the field (a wrong type included), in the words of the params. */
const expected = (what: string) => ({ message: () => ({ message: `expected ${what}`, override: true }) })

const MessageId = Schema.Union(Schema.NonEmptyTrimmedString, Schema.NonNegativeInt).annotations(
  expected("a message id: a short id such as \"12\" or a full message guid")
)
const Text = Schema.NonEmptyString.annotations(expected("non-empty text"))
const NonEmpty = (what: string) => Schema.NonEmptyTrimmedString.annotations(expected(what))
const PartIndex = Schema.Int.pipe(Schema.between(0, 1000)).annotations(expected("the message part as a whole number, 0 or more (default 0)"))
const Flag = Schema.Boolean.annotations(expected("true or false"))
const TARGET = "a target: chat_guid:<guid>, chat_id:<id>, chat_identifier:<id>, a chat guid, a phone number or an e-mail address"
const CHAT = "a chat: a chat guid, chat_guid:<guid>, chat_id:<id> or chat_identifier:<id>"

/** Absent is absent, never `undefined` (exactOptionalPropertyTypes). */
const opt = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

/** Which chat a message is in: given (chatGuid or to), else looked up on the bridge. */
const ChatHint = {
  chatGuid: opt(NonEmpty(CHAT)),
  to: opt(NonEmpty(TARGET)),
  partIndex: opt(PartIndex)
}
const MediaFields = {
  path: opt(NonEmpty("an absolute path of a file under channels.msgbridge.mediaLocalRoots")),
  /** Alias of path. */
  media: opt(NonEmpty("an absolute path of a file under channels.msgbridge.mediaLocalRoots")),
  buffer: opt(NonEmpty("the file's bytes as base64")),
  filename: opt(NonEmpty("a file name such as photo.jpg"))
}
const GroupChat = NonEmpty(`a group ${CHAT}`)

/** The params of each action, as the agent tool and the CLI pass them (unknown fields are refused). */
export const ActionParams = {
  react: Schema.Struct({
    messageId: MessageId,
    emoji: NonEmpty("a reaction"),
    remove: opt(Flag),
    ...ChatHint
  }),
  edit: Schema.Struct({ messageId: MessageId, text: Text, ...ChatHint }),
  unsend: Schema.Struct({ messageId: MessageId, ...ChatHint }),
  reply: Schema.Struct({ messageId: MessageId, text: Text, ...ChatHint }),
  sendWithEffect: Schema.Struct({ text: Text, to: NonEmpty(TARGET), effectId: NonEmpty("an effect name such as slam or confetti, or a raw effect id") }),
  renameGroup: Schema.Struct({ chatGuid: GroupChat, displayName: Text }),
  setGroupIcon: Schema.Struct({ chatGuid: GroupChat, ...MediaFields }),
  addParticipant: Schema.Struct({ chatGuid: GroupChat, address: NonEmpty("a phone number or an e-mail address") }),
  removeParticipant: Schema.Struct({ chatGuid: GroupChat, address: NonEmpty("a phone number or an e-mail address") }),
  leaveGroup: Schema.Struct({ chatGuid: GroupChat }),
  sendAttachment: Schema.Struct({ to: NonEmpty(TARGET), ...MediaFields, asVoice: opt(Flag) })
} as const satisfies Record<ActionName, Schema.Schema.AnyNoContext>

type Params<N extends ActionName> = typeof ActionParams[N]["Type"]

const describeIssues = (issues: ReadonlyArray<ParseResult.ArrayFormatterIssue>): { field: string; text: string } => {
  const lines = issues.map((i) => {
    const field = i.path.map(String).join(".")
    if (field === "") return i.message
    return i.message.startsWith("is ") ? `${field} ${i.message}` : `${field}: ${i.message}`
  })
  return { field: issues[0]?.path.map(String).join(".") || "params", text: [...new Set(lines)].join("; ") }
}

export const decodeParams = <N extends ActionName>(action: N, params: unknown): Effect.Effect<Params<N>, ActionInvalidParams> => {
  const schema = ActionParams[action] as unknown as Schema.Schema<Params<N>, unknown>
  const input = params === undefined || params === null ? {} : params
  if (typeof input !== "object" || Array.isArray(input)) {
    return Effect.fail(new ActionInvalidParams({ action, field: "params", message: `${action}: params must be an object of named fields` }))
  }
  const decoded = Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "error" })(input)
  if (Either.isRight(decoded)) return Effect.succeed(decoded.right)
  const { field, text } = describeIssues(ParseResult.ArrayFormatter.formatErrorSync(decoded.left))
  return Effect.fail(new ActionInvalidParams({ action, field, message: `${action}: invalid params: ${text}` }))
}
