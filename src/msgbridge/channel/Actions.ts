// Message actions on the bridge (react, edit, unsend, reply, effects, group management, attachments): one
// transport-neutral module that the agent tool, the CLI and the HTTP API all call by name with plain params.
//
// Running one: resolve the name, refuse it when hidden or switched off (ActionAvailability.ts), decode its
// params (ActionParams.ts), resolve short ids and chats, make the bridge call, and map every failure to a
// tagged error with its HTTP status (ActionErrors.ts).

import { Effect, Either, Option } from "effect"
import type { BridgeClientApi } from "../bridge/calls.js"
import type { BridgeError } from "../bridge/errors.js"
import type { ServerInfo } from "../bridge/serverInfo.js"
import type { ShortIdsApi } from "../store/ShortIds.js"
import {
  ACTION_NAMES,
  type ActionAvailability,
  actionAvailability,
  type ActionName,
  ACTIONS_SWITCHES_KEY,
  parseActionName
} from "./ActionAvailability.js"
import {
  ActionBridgeFailed,
  type ActionError,
  ActionMessageNotFound,
  ActionShortIdUnknown,
  ActionUnavailable,
  ActionUnknown,
  invalidParams
} from "./ActionErrors.js"
import { loadMedia, mimeTypeOf, voiceMedia } from "./ActionMedia.js"
import { decodeParams } from "./ActionParams.js"
import { resolveEffectId } from "./Effects.js"
import { normaliseAddress, parseTarget, resolveTarget } from "./Outbound.js"
import { parseReaction, REACTION_EMOJI, REACTIONS } from "./Reactions.js"

export interface ActionResult {
  readonly action: ActionName
  readonly ok: true
  /** The new message (reply, sendWithEffect, sendAttachment) or the target message (react, edit, unsend). */
  readonly messageGuid?: string
  /** Short id of messageGuid: assigned for new messages, the known one (if any) for a target message. */
  readonly messageId?: string
  readonly chatGuid?: string
}

export interface MessageActionsOptions {
  readonly client: BridgeClientApi
  readonly shortIds: ShortIdsApi
  readonly switches?: Readonly<Record<string, boolean>>
  /** Where the switches live, for messages (default channels.msgbridge.actions). */
  readonly switchesKey?: string
  readonly mediaLocalRoots: ReadonlyArray<string>
  readonly mediaMaxBytes: number
}

export interface MessageActionsApi {
  /** Reads (cached) server info; never fails (unreadable info is reported in the entries' reason). */
  readonly available: Effect.Effect<ReadonlyArray<ActionAvailability>>
  readonly run: (name: string, params: unknown) => Effect.Effect<ActionResult, ActionError>
}

export const makeMessageActions = (options: MessageActionsOptions): MessageActionsApi => {
  const { client, shortIds } = options
  const switchesKey = options.switchesKey ?? ACTIONS_SWITCHES_KEY
  const maxBytes = options.mediaMaxBytes

  const availabilityFrom = (info: Option.Option<ServerInfo>) =>
    actionAvailability(Option.getOrUndefined(info), options.switches, switchesKey)
  const available = client.serverInfo.pipe(Effect.option, Effect.map(availabilityFrom))

  const bridgeFailed = (action: ActionName, cause: BridgeError) =>
    new ActionBridgeFailed({ action, cause, message: `${action} failed: ${cause.message}` })
  const bridge = (action: ActionName) => <A>(effect: Effect.Effect<A, BridgeError>): Effect.Effect<A, ActionBridgeFailed> =>
    Effect.mapError(effect, (cause) => bridgeFailed(action, cause))

  const resolveMessage = (action: ActionName, id: string | number) =>
    shortIds.resolve(String(id)).pipe(
      Effect.mapError((e) => new ActionShortIdUnknown({ action, shortId: e.shortId, message: e.message }))
    )

  /** A target string (chat_guid:, chat_id:, chat_identifier:, chat guid or handle) → an existing chat's guid. */
  const chatOfTarget = (action: ActionName, field: string, raw: string) =>
    resolveTarget(client, raw).pipe(
      Effect.mapError((e) => e._tag === "OutboundTargetError" ? invalidParams(action, field, `${field}: ${e.message}`) : bridgeFailed(action, e)),
      Effect.flatMap((t) =>
        t._tag === "Chat"
          ? Effect.succeed(t.chatGuid)
          : Effect.fail(invalidParams(action, field, `${field}: there is no chat with ${t.address} yet; send them a message first`))
      )
    )

  /** chatGuid param: a raw chat guid as is; chat_guid:/chat_id:/chat_identifier: resolved on the bridge. */
  const chatOfParam = (action: ActionName, raw: string) =>
    /^chat_(guid|id|identifier):/.test(raw.trim()) ? chatOfTarget(action, "chatGuid", raw) : Effect.succeed(raw.trim())

  /** A group chat for the group actions: never a DM or a handle. */
  const groupChat = (action: ActionName, raw: string) =>
    Effect.gen(function*() {
      const parsed = parseTarget(raw)
      if (Either.isRight(parsed) && parsed.right._tag === "Handle") {
        return yield* invalidParams(action, "chatGuid", `chatGuid: expected a group chat, got the address ${raw}`)
      }
      const guid = yield* chatOfParam(action, raw)
      if (guid.includes(";-;")) {
        return yield* invalidParams(action, "chatGuid", `chatGuid: ${guid} is a direct chat; ${action} works on group chats only`)
      }
      return guid
    })

  /** The chat of a message: chatGuid or to when given, else the bridge's record of the message. */
  const chatOfMessage = (action: ActionName, guid: string, p: { readonly chatGuid?: string; readonly to?: string }) =>
    Effect.gen(function*() {
      if (p.chatGuid !== undefined) return yield* chatOfParam(action, p.chatGuid)
      if (p.to !== undefined) return yield* chatOfTarget(action, "to", p.to)
      const message = yield* client.messageByGuid(guid).pipe(
        Effect.mapError((e) =>
          e._tag === "BridgeHttpError" && e.status === 404
            ? new ActionMessageNotFound({ action, messageGuid: guid, message: `${action}: the bridge server has no message ${guid}` })
            : bridgeFailed(action, e)
        )
      )
      const chat = message.chats?.[0]?.guid
      if (chat === undefined) {
        return yield* invalidParams(action, "chatGuid", `cannot tell which chat message ${guid} is in; pass chatGuid or to`)
      }
      return chat
    })

  const newMessage = (action: ActionName, guid: string, chatGuid: string | undefined) =>
    shortIds.assign(guid).pipe(
      Effect.map((messageId): ActionResult => ({ action, ok: true, messageGuid: guid, messageId, ...(chatGuid !== undefined ? { chatGuid } : {}) }))
    )

  const targetMessage = (action: ActionName, guid: string, chatGuid: string | undefined): ActionResult => {
    const messageId = shortIds.shortOf(guid)
    return { action, ok: true, messageGuid: guid, ...(messageId !== undefined ? { messageId } : {}), ...(chatGuid !== undefined ? { chatGuid } : {}) }
  }

  const perform = (action: ActionName, params: unknown): Effect.Effect<ActionResult, ActionError> =>
    Effect.gen(function*() {
      const call = bridge(action)
      switch (action) {
        case "react": {
          const p = yield* decodeParams("react", params)
          const parsed = parseReaction(p.emoji)
          if (parsed === undefined) {
            return yield* invalidParams(
              "react",
              "emoji",
              `emoji: expected one of ${REACTIONS.join(", ")} or ${REACTIONS.map((r) => REACTION_EMOJI[r]).join(" ")}, got "${p.emoji}"`
            )
          }
          const guid = yield* resolveMessage(action, p.messageId)
          const chatGuid = yield* chatOfMessage(action, guid, p)
          const remove = p.remove === true || parsed.remove
          yield* call(client.react({
            chatGuid,
            selectedMessageGuid: guid,
            reaction: remove ? `-${parsed.reaction}` : parsed.reaction,
            partIndex: p.partIndex ?? 0
          }))
          return targetMessage(action, guid, chatGuid)
        }
        case "edit": {
          const p = yield* decodeParams("edit", params)
          const guid = yield* resolveMessage(action, p.messageId)
          const chatGuid = yield* chatOfMessage(action, guid, p)
          yield* call(client.edit({ messageGuid: guid, editedMessage: p.text, partIndex: p.partIndex ?? 0 }))
          return targetMessage(action, guid, chatGuid)
        }
        case "unsend": {
          const p = yield* decodeParams("unsend", params)
          const guid = yield* resolveMessage(action, p.messageId)
          const chatGuid = yield* chatOfMessage(action, guid, p)
          yield* call(client.unsend({ messageGuid: guid, partIndex: p.partIndex ?? 0 }))
          return targetMessage(action, guid, chatGuid)
        }
        case "reply": {
          const p = yield* decodeParams("reply", params)
          const guid = yield* resolveMessage(action, p.messageId)
          const chatGuid = yield* chatOfMessage(action, guid, p)
          const sent = yield* call(client.sendText({ chatGuid, message: p.text, selectedMessageGuid: guid, partIndex: p.partIndex ?? 0 }))
          return yield* newMessage(action, sent.guid, chatGuid)
        }
        case "sendWithEffect": {
          const p = yield* decodeParams("sendWithEffect", params)
          const effectId = resolveEffectId(p.effectId)
          if (Either.isLeft(effectId)) return yield* invalidParams(action, "effectId", `effectId: ${effectId.left.message}`)
          const chatGuid = yield* chatOfTarget(action, "to", p.to)
          const sent = yield* call(client.sendText({ chatGuid, message: p.text, effectId: effectId.right }))
          return yield* newMessage(action, sent.guid, chatGuid)
        }
        case "renameGroup": {
          const p = yield* decodeParams("renameGroup", params)
          const chatGuid = yield* groupChat(action, p.chatGuid)
          yield* call(client.renameGroup({ chatGuid, displayName: p.displayName }))
          return { action, ok: true, chatGuid }
        }
        case "setGroupIcon": {
          const p = yield* decodeParams("setGroupIcon", params)
          const chatGuid = yield* groupChat(action, p.chatGuid)
          const media = yield* loadMedia(action, p, options.mediaLocalRoots, maxBytes)
          const mimeType = mimeTypeOf(media.name)
          yield* call(client.setGroupIcon({ chatGuid, data: media.data, name: media.name, ...(mimeType !== undefined ? { mimeType } : {}) }))
          return { action, ok: true, chatGuid }
        }
        case "addParticipant":
        case "removeParticipant": {
          const p = yield* decodeParams(action, params)
          const chatGuid = yield* groupChat(action, p.chatGuid)
          const address = normaliseAddress(p.address)
          if (address === undefined) return yield* invalidParams(action, "address", `address: expected a phone number or an e-mail address, got "${p.address}"`)
          yield* call(action === "addParticipant" ? client.addParticipant({ chatGuid, address }) : client.removeParticipant({ chatGuid, address }))
          return { action, ok: true, chatGuid }
        }
        case "leaveGroup": {
          const p = yield* decodeParams("leaveGroup", params)
          const chatGuid = yield* groupChat(action, p.chatGuid)
          yield* call(client.leaveGroup(chatGuid))
          return { action, ok: true, chatGuid }
        }
        case "sendAttachment": {
          const p = yield* decodeParams("sendAttachment", params)
          const loaded = yield* loadMedia(action, p, options.mediaLocalRoots, maxBytes)
          const media = p.asVoice === true ? yield* voiceMedia(action, loaded) : loaded
          const chatGuid = yield* chatOfTarget(action, "to", p.to)
          const mimeType = mimeTypeOf(media.name)
          const sent = yield* call(client.sendAttachment({
            chatGuid,
            name: media.name,
            data: media.data,
            ...(mimeType !== undefined ? { mimeType } : {}),
            ...(p.asVoice === true ? { isAudioMessage: true } : {})
          }))
          return yield* newMessage(action, sent.guid, chatGuid)
        }
      }
    })

  const run = (name: string, params: unknown): Effect.Effect<ActionResult, ActionError> =>
    Effect.gen(function*() {
      const action = parseActionName(name)
      if (action === undefined) {
        return yield* new ActionUnknown({ action: name, message: `unknown action "${name}": use one of ${ACTION_NAMES.join(", ")}` })
      }
      let entry = (yield* available).find((a) => a.name === action)!
      if (!entry.enabled && options.switches?.[action] !== false) {
        // Hidden by server info: read it afresh once, so turning the Private API on takes effect at once.
        const fresh = yield* Effect.option(client.refreshServerInfo)
        entry = availabilityFrom(fresh).find((a) => a.name === action)!
      }
      if (!entry.enabled) {
        const reason = entry.reason ?? `${action} is off`
        return yield* new ActionUnavailable({ action, reason, message: reason })
      }
      return yield* perform(action, params)
    })

  return { available, run }
}
