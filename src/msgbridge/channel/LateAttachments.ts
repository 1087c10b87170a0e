import { Effect } from "effect"
import type { BridgeClientApi } from "../bridge/calls.js"
import { attachmentKey, type InboundMessage, toInboundMessage } from "./Inbound.js"

// Attachments that arrive after their message: the bridge may send a message first with `attachments: []`
// and its files later in an `updated-message` (BRIDGE-API.md), which carries no chats. Such an update is
// handed to the agent as the message's late attachments (not its text again, which was answered), once:
// each attachment handed over is marked in the journal, and the update has a journal key of its own.

/** The update as late attachments to hand over, or undefined when it brings none not handed over yet. */
export const lateAttachments = (update: InboundMessage, isSeen: (key: string) => boolean): InboundMessage | undefined => {
  if (update.isFromMe || update.tapback !== undefined) return undefined
  // Only for a message the channel took in; one it never saw comes with its files through catch-up.
  if (!isSeen(update.guid)) return undefined
  const fresh = update.attachments.filter((a) => !isSeen(attachmentKey(a.guid)))
  if (fresh.length === 0) return undefined
  return {
    ...update,
    attachments: fresh,
    late: { key: lateKey(update.guid, fresh.map((a) => a.guid)) }
  }
}

/** The journal key of late attachments: the message's guid and theirs (NUL never occurs in a guid). */
const lateKey = (guid: string, attachmentGuids: ReadonlyArray<string>) => ["late", guid, ...attachmentGuids].join("\u0000")

/** The late attachments a journal entry was accepted for, again (start-up recovery). */
export const lateFromJournal = (key: string, update: InboundMessage): InboundMessage | undefined => {
  const [kind, guid, ...attachmentGuids] = key.split("\u0000")
  if (kind !== "late" || guid !== update.guid) return undefined
  const attachments = update.attachments.filter((a) => attachmentGuids.includes(a.guid))
  return attachments.length === 0 ? undefined : { ...update, attachments, late: { key } }
}

/** An update has no chats: its message's chat and sender, asked of the bridge. */
export const withChat = (client: BridgeClientApi, m: InboundMessage) =>
  m.chatGuid !== undefined && m.sender !== undefined
    ? Effect.succeed(m)
    : Effect.map(client.messageByGuid(m.guid), (full) => {
      const found = toInboundMessage(full)
      return {
        ...m,
        chatGuid: m.chatGuid ?? found.chatGuid,
        sender: m.sender ?? found.sender,
        isGroup: m.chatGuid !== undefined ? m.isGroup : found.isGroup,
        chatIdentifier: m.chatIdentifier ?? found.chatIdentifier,
        groupName: m.groupName ?? found.groupName
      }
    })
