// The bridge server's wire shapes (../shared/BRIDGE-API.md): handles, chats, attachments and messages as
// the REST API and the webhooks carry them, and the {status, message, data} envelope around every answer.
// Optional fields may also come as null.

import { Schema } from "effect"

export const BridgeHandle = Schema.Struct({
  address: Schema.String,
  service: Schema.optional(Schema.NullOr(Schema.String))
})

export const BridgeChat = Schema.Struct({
  guid: Schema.String,
  style: Schema.optional(Schema.NullOr(Schema.Number)),
  chatIdentifier: Schema.optional(Schema.NullOr(Schema.String)),
  displayName: Schema.optional(Schema.NullOr(Schema.String)),
  originalROWID: Schema.optional(Schema.NullOr(Schema.Number)),
  participants: Schema.optional(Schema.NullOr(Schema.Array(BridgeHandle)))
})
export type BridgeChat = typeof BridgeChat.Type

export const BridgeAttachment = Schema.Struct({
  guid: Schema.String,
  mimeType: Schema.optional(Schema.NullOr(Schema.String)),
  transferName: Schema.optional(Schema.NullOr(Schema.String)),
  totalBytes: Schema.optional(Schema.NullOr(Schema.Number)),
  uti: Schema.optional(Schema.NullOr(Schema.String)),
  width: Schema.optional(Schema.NullOr(Schema.Number)),
  height: Schema.optional(Schema.NullOr(Schema.Number))
})
export type BridgeAttachment = typeof BridgeAttachment.Type

const optStr = Schema.optional(Schema.NullOr(Schema.String))
const optNum = Schema.optional(Schema.NullOr(Schema.Number))

export const BridgeMessage = Schema.Struct({
  guid: Schema.String,
  text: optStr,
  handle: Schema.optional(Schema.NullOr(BridgeHandle)),
  isFromMe: Schema.optional(Schema.NullOr(Schema.Boolean)),
  dateCreated: optNum,
  attachments: Schema.optional(Schema.NullOr(Schema.Array(BridgeAttachment))),
  chats: Schema.optional(Schema.NullOr(Schema.Array(BridgeChat))),
  associatedMessageGuid: optStr,
  // a reaction name or a number, depending on the server version
  associatedMessageType: Schema.optional(Schema.NullOr(Schema.Union(Schema.String, Schema.Number))),
  threadOriginatorGuid: optStr,
  expressiveSendStyleId: optStr,
  balloonBundleId: optStr,
  subject: optStr,
  error: Schema.optional(Schema.Unknown),
  itemType: optNum,
  groupTitle: optStr,
  dateEdited: optNum,
  dateRetracted: optNum,
  partCount: optNum,
  tempGuid: optStr
})
export type BridgeMessage = typeof BridgeMessage.Type

/** The envelope of a 2xx answer; `data` is decoded with the route's own schema. */
const SuccessEnvelope = Schema.Struct({
  status: Schema.Number,
  message: Schema.optional(Schema.String),
  data: Schema.optional(Schema.Unknown)
})
export const decodeEnvelope = Schema.decodeUnknownEither(SuccessEnvelope)

/** The envelope of a failed answer: where the server puts its reason (error.message, else message). */
export const FailureEnvelope = Schema.Struct({
  status: Schema.optional(Schema.Number),
  message: Schema.optional(Schema.String),
  error: Schema.optional(
    Schema.NullOr(Schema.Struct({ type: Schema.optional(Schema.String), message: Schema.optional(Schema.String) }))
  )
})
