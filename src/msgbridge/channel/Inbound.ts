import { Either, ParseResult, Schema } from "effect"
import { type BridgeAttachment, BridgeMessage } from "../bridge/schemas.js"
import { parseChatGuid } from "./Handles.js"
import { isStickerMessage } from "../media/Media.js"

// Webhook payloads of the bridge server (BRIDGE-API.md; the message schema is the client's), decoded leniently: unknown fields pass, unknown
// event types are recognised as such and ignored by the caller.

export const WebhookEvent = Schema.Struct({ type: Schema.String, data: Schema.optional(Schema.Unknown) })

export type InboundEvent =
  | { readonly kind: "message"; readonly message: InboundMessage }
  /** `updated-message`: the same message again, changed (attachments that arrived late, an edit, a delivery). */
  | { readonly kind: "update"; readonly message: InboundMessage }
  | { readonly kind: "typing"; readonly chatGuid: string; readonly display: boolean }
  | { readonly kind: "read"; readonly chatGuid: string; readonly read: boolean }
  | { readonly kind: "other"; readonly type: string }

export interface InboundMessage {
  readonly guid: string
  readonly text: string
  readonly sender: string | undefined
  readonly isFromMe: boolean
  readonly chatGuid: string | undefined
  readonly isGroup: boolean
  readonly chatIdentifier: string | undefined
  readonly groupName: string | undefined
  readonly dateCreated: number | undefined
  readonly attachments: ReadonlyArray<BridgeAttachment>
  /** A tapback: the reaction and the guid of the message it targets. */
  readonly tapback: { readonly reaction: string; readonly targetGuid: string } | undefined
  readonly replyToGuid: string | undefined
  /** A sticker (placed on a bubble or sent alone): its attachment is media, not a tapback. */
  readonly isSticker: boolean
  /**
   * Attachments of an earlier message, arriving in an `updated-message`: they are the news, the text was
   * answered already. `key` is its entry in the journal (the message's guid is the original's).
   */
  readonly late?: { readonly key: string }
}

/** The journal key of a message: its guid, or its late attachments' own key. */
export const journalKey = (m: InboundMessage): string => m.late?.key ?? m.guid

/** The journal key of an attachment already handed to the agent. */
export const attachmentKey = (attachmentGuid: string): string => `att:${attachmentGuid}`

const decodeMessage = Schema.decodeUnknownEither(BridgeMessage)

/** `p:0/<guid>` → `<guid>` */
const targetOf = (associated: string) => associated.replace(/^p:\d+\//, "")

export const toInboundMessage = (m: BridgeMessage): InboundMessage => {
  const chat = m.chats?.[0]
  const parsed = chat !== undefined ? parseChatGuid(chat.guid) : undefined
  const isGroup = chat?.style === 43 || parsed?.isGroup === true
  const associatedType = m.associatedMessageType
  const isSticker = isStickerMessage(m)
  const tapback = !isSticker && associatedType !== null && associatedType !== undefined && m.associatedMessageGuid != null
    ? { reaction: String(associatedType), targetGuid: targetOf(m.associatedMessageGuid) }
    : undefined
  return {
    guid: m.guid,
    text: m.text ?? "",
    sender: m.handle?.address ?? undefined,
    isFromMe: m.isFromMe === true,
    chatGuid: chat?.guid,
    isGroup,
    chatIdentifier: chat?.chatIdentifier ?? undefined,
    groupName: isGroup ? chat?.displayName ?? undefined : undefined,
    dateCreated: m.dateCreated ?? undefined,
    attachments: m.attachments ?? [],
    tapback,
    replyToGuid: m.threadOriginatorGuid ?? undefined,
    isSticker
  }
}

/** Decode a webhook body (already parsed JSON). A message that does not decode is a 400. */
export const parseWebhook = (body: unknown): Either.Either<InboundEvent, string> => {
  const event = Schema.decodeUnknownEither(WebhookEvent)(body)
  if (Either.isLeft(event)) return Either.left("expected a JSON object {type, data}")
  const { type, data } = event.right
  switch (type) {
    case "new-message":
    case "updated-message": {
      const m = decodeMessage(data)
      if (Either.isLeft(m)) {
        return Either.left(`${type} data: ${ParseResult.TreeFormatter.formatErrorSync(m.left).split("\n")[0]}`)
      }
      return Either.right({ kind: type === "new-message" ? "message" : "update", message: toInboundMessage(m.right) })
    }
    case "typing-indicator": {
      const d = data as { guid?: unknown; display?: unknown } | undefined
      return typeof d?.guid === "string"
        ? Either.right({ kind: "typing", chatGuid: d.guid, display: d.display === true })
        : Either.right({ kind: "other", type })
    }
    case "chat-read-status-changed": {
      const d = data as { chatGuid?: unknown; read?: unknown } | undefined
      return typeof d?.chatGuid === "string"
        ? Either.right({ kind: "read", chatGuid: d.chatGuid, read: d.read === true })
        : Either.right({ kind: "other", type })
    }
    default:
      return Either.right({ kind: "other", type })
  }
}
