// Message actions on the bridge (react, edit, unsend, reply, effects, group management, attachments): one
// transport-neutral module that the agent tool, the CLI and the HTTP API all call by name with plain params.
//
// Which actions exist is decided here, from the bridge's server info and the config switches
// (channels.msgbridge.actions.<action>=false): an action known not to work on the bridge host is hidden, and
// calling it fails with the reason instead of reaching the bridge. Params are decoded with Schema; every
// failure is a tagged error with a readable message and the HTTP status the gateway answers with.

import { Data, Effect, Either, Encoding, Option, ParseResult, Schema } from "effect"
import * as path from "node:path"
import type { BridgeClientApi, Reaction } from "../bridge/calls.js"
import type { BridgeError } from "../bridge/errors.js"
import { osMajor, type ServerInfo } from "../bridge/serverInfo.js"
import { resolveEffectId } from "./Effects.js"
import { type LocalMediaDenied, type LocalMediaTooLarge, readLocalMedia } from "../media/LocalMedia.js"
import { normaliseAddress, parseTarget, resolveTarget } from "./Outbound.js"
import type { ShortIdsApi } from "../store/ShortIds.js"

// ---- names and availability ----

export const ACTION_NAMES = [
  "react",
  "edit",
  "unsend",
  "reply",
  "sendWithEffect",
  "renameGroup",
  "setGroupIcon",
  "addParticipant",
  "removeParticipant",
  "leaveGroup",
  "sendAttachment"
] as const
export type ActionName = typeof ACTION_NAMES[number]

export const ACTIONS_SWITCHES_KEY = "channels.msgbridge.actions"

export interface ActionAvailability {
  readonly name: ActionName
  readonly enabled: boolean
  /**
   * When disabled: why, as a sentence to show as is. When enabled: a caveat, present only when the bridge's
   * server info could not be read, so the OS and Private-API rules were not checked.
   */
  readonly reason?: string
  readonly needsPrivateApi: boolean
}

/** Everything but plain attachments goes through the Private API helper on the bridge host. */
const NEEDS_PRIVATE_API: Readonly<Record<ActionName, boolean>> = {
  react: true,
  edit: true,
  unsend: true,
  reply: true,
  sendWithEffect: true,
  renameGroup: true,
  setGroupIcon: true,
  addParticipant: true,
  removeParticipant: true,
  leaveGroup: true,
  sendAttachment: false
}

/** Host OS rules (BRIDGE-API.md): the oldest major version an action works on, and versions where it is broken. */
const MIN_OS: Partial<Record<ActionName, { readonly major: number; readonly doing: string }>> = {
  edit: { major: 13, doing: "editing" },
  unsend: { major: 13, doing: "unsending" },
  setGroupIcon: { major: 11, doing: "setting a group icon" }
}
const BROKEN_ON: Partial<Record<ActionName, { readonly majors: ReadonlyArray<number>; readonly doing: string }>> = {
  edit: { majors: [26], doing: "editing" }
}

const UNCHECKED = "not checked against the bridge host: its server info could not be read"

/**
 * Pure: which actions are on, and why the others are off. Rules, first match wins: the config switch
 * (`switches[name] === false`), then the host OS (too old, or a version where the action is broken), then the
 * Private API (off, or on with its helper not connected).
 *
 * `info` undefined means the server info could not be read. Then only the config switches apply: the
 * actions stay enabled (a call that cannot work fails at the bridge with a 502 that says why), and each
 * action the unread rules would have checked carries the caveat in `reason`.
 */
export const actionAvailability = (
  info: ServerInfo | undefined,
  switches: Readonly<Record<string, boolean>> | undefined,
  switchesKey: string = ACTIONS_SWITCHES_KEY
): ReadonlyArray<ActionAvailability> =>
  ACTION_NAMES.map((name): ActionAvailability => {
    const needsPrivateApi = NEEDS_PRIVATE_API[name]
    const off = (reason: string): ActionAvailability => ({ name, enabled: false, reason, needsPrivateApi })
    if (switches?.[name] === false) return off(`${name} is turned off by ${switchesKey}.${name}=false`)
    const checked = needsPrivateApi || MIN_OS[name] !== undefined || BROKEN_ON[name] !== undefined
    if (info === undefined) return checked ? { name, enabled: true, reason: UNCHECKED, needsPrivateApi } : { name, enabled: true, needsPrivateApi }
    const major = osMajor(info)
    const broken = BROKEN_ON[name]
    if (major !== undefined && broken !== undefined && broken.majors.includes(major)) {
      return off(`${name} is off: the bridge host runs macOS ${major}, where ${broken.doing} is broken`)
    }
    const min = MIN_OS[name]
    if (major !== undefined && min !== undefined && major < min.major) {
      return off(`${name} is off: the bridge host runs macOS ${major}, and ${min.doing} needs macOS ${min.major} or newer`)
    }
    if (needsPrivateApi && !info.private_api) return off(`${name} needs the Private API, which is off on the bridge server`)
    if (needsPrivateApi && !info.helper_connected) {
      return off(`${name} needs the Private API, which is on but its helper is not connected on the bridge server`)
    }
    return { name, enabled: true, needsPrivateApi }
  })

// ---- errors ----

/** No action by that name. 400. */
export class ActionUnknown extends Data.TaggedError("ActionUnknown")<{
  readonly action: string
  readonly message: string
}> {
  readonly status = 400 as const
}

/** The params do not fit the action; `field` names the first offending one. 400. */
export class ActionInvalidParams extends Data.TaggedError("ActionInvalidParams")<{
  readonly action: ActionName
  readonly field: string
  readonly message: string
}> {
  readonly status = 400 as const
}

/** Hidden (host OS, Private API) or switched off in config; `reason` says which. 409. */
export class ActionUnavailable extends Data.TaggedError("ActionUnavailable")<{
  readonly action: ActionName
  readonly reason: string
  readonly message: string
}> {
  readonly status = 409 as const
}

/** A short message id that the short-id cache no longer knows (message from ShortIdUnknown). 404. */
export class ActionShortIdUnknown extends Data.TaggedError("ActionShortIdUnknown")<{
  readonly action: ActionName
  readonly shortId: string
  readonly message: string
}> {
  readonly status = 404 as const
}

/** The bridge server has no message with that guid. 404. */
export class ActionMessageNotFound extends Data.TaggedError("ActionMessageNotFound")<{
  readonly action: ActionName
  readonly messageGuid: string
  readonly message: string
}> {
  readonly status = 404 as const
}

/** A local path outside channels.msgbridge.mediaLocalRoots (or none configured). 403. */
export class ActionPathDenied extends Data.TaggedError("ActionPathDenied")<{
  readonly action: ActionName
  readonly path: string
  readonly message: string
}> {
  readonly status = 403 as const
}

/** Media over mediaMaxBytes. 413. */
export class ActionMediaTooLarge extends Data.TaggedError("ActionMediaTooLarge")<{
  readonly action: ActionName
  readonly size: number
  readonly maxBytes: number
  readonly message: string
}> {
  readonly status = 413 as const
}

/** The bridge call failed; `message` is the bridge error's, prefixed with the action. 502. */
export class ActionBridgeFailed extends Data.TaggedError("ActionBridgeFailed")<{
  readonly action: ActionName
  readonly cause: BridgeError
  readonly message: string
}> {
  readonly status = 502 as const
}

export type ActionError =
  | ActionUnknown
  | ActionInvalidParams
  | ActionUnavailable
  | ActionShortIdUnknown
  | ActionMessageNotFound
  | ActionPathDenied
  | ActionMediaTooLarge
  | ActionBridgeFailed

export interface ActionResult {
  readonly action: ActionName
  readonly ok: true
  /** The new message (reply, sendWithEffect, sendAttachment) or the target message (react, edit, unsend). */
  readonly messageGuid?: string
  /** Short id of messageGuid: assigned for new messages, the known one (if any) for a target message. */
  readonly messageId?: string
  readonly chatGuid?: string
}

// ---- params ----

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

const decodeParams = <N extends ActionName>(action: N, params: unknown): Effect.Effect<Params<N>, ActionInvalidParams> => {
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

// ---- reactions ----

export const REACTIONS: ReadonlyArray<Reaction> = ["love", "like", "dislike", "laugh", "emphasize", "question"]
const REACTION_EMOJI: Readonly<Record<Reaction, string>> = {
  love: "❤️",
  like: "👍",
  dislike: "👎",
  laugh: "😂",
  emphasize: "‼️",
  question: "❓"
}
/** Emoji (without variation selectors and skin tones) and spellings people use for each reaction. */
const REACTION_ALIASES: ReadonlyArray<readonly [string, Reaction]> = [
  ["❤", "love"], ["♥", "love"], ["loved", "love"], ["heart", "love"],
  ["👍", "like"], ["liked", "like"], ["thumbsup", "like"],
  ["👎", "dislike"], ["disliked", "dislike"], ["thumbsdown", "dislike"],
  ["😂", "laugh"], ["🤣", "laugh"], ["laughed", "laugh"], ["haha", "laugh"],
  ["‼", "emphasize"], ["❗", "emphasize"], ["!!", "emphasize"], ["emphasized", "emphasize"], ["emphasise", "emphasize"],
  ["❓", "question"], ["❔", "question"], ["?", "question"], ["questioned", "question"]
]

/** "❤️" / "love" / "Loved" → love; a leading "-" asks for removal. Undefined when not a reaction. */
export const parseReaction = (raw: string): { readonly reaction: Reaction; readonly remove: boolean } | undefined => {
  let s = raw.trim()
  const remove = s.startsWith("-") && s.length > 1
  if (remove) s = s.slice(1).trim()
  s = s.replace(/[\uFE0E\uFE0F]|\uD83C[\uDFFB-\uDFFF]/g, "").toLowerCase()
  const named = REACTIONS.find((r) => r === s)
  if (named !== undefined) return { reaction: named, remove }
  const alias = REACTION_ALIASES.find(([a]) => a === s)
  return alias === undefined ? undefined : { reaction: alias[1], remove }
}

// ---- media ----

const MIME_TYPES: Readonly<Record<string, string>> = {
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".png": "image/png",
  ".gif": "image/gif",
  ".heic": "image/heic",
  ".webp": "image/webp",
  ".mp3": "audio/mpeg",
  ".caf": "audio/x-caf",
  ".m4a": "audio/mp4",
  ".mp4": "video/mp4",
  ".mov": "video/quicktime",
  ".pdf": "application/pdf",
  ".txt": "text/plain"
}
const mimeTypeOf = (name: string): string | undefined => MIME_TYPES[path.extname(name).toLowerCase()]

type VoiceFormat = "mp3" | "caf"

/** By magic bytes: CAF starts "caff"; MP3 with an ID3 tag starts "ID3", without one with an MPEG frame sync. */
export const sniffVoiceFormat = (data: Uint8Array): VoiceFormat | undefined => {
  const ascii = (n: number) => String.fromCharCode(...data.subarray(0, n))
  if (data.length >= 4 && ascii(4) === "caff") return "caf"
  if (data.length >= 3 && ascii(3) === "ID3") return "mp3"
  if (data.length >= 2 && data[0] === 0xff && (data[1]! & 0xe0) === 0xe0 && (data[1]! & 0x06) !== 0) return "mp3"
  return undefined
}

interface Media {
  readonly name: string
  readonly data: Uint8Array
}

// ---- the module ----

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

const squash = (s: string) => s.trim().toLowerCase().replace(/[\s_-]+/g, "")
const BY_SQUASHED = new Map<string, ActionName>(ACTION_NAMES.map((n) => [squash(n), n]))

/** "sendWithEffect", "send-with-effect", "send_with_effect" → sendWithEffect. */
export const parseActionName = (name: string): ActionName | undefined => BY_SQUASHED.get(squash(name))

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

  const invalid = (action: ActionName, field: string, message: string) =>
    new ActionInvalidParams({ action, field, message: `${action}: ${message}` })

  const resolveMessage = (action: ActionName, id: string | number) =>
    shortIds.resolve(String(id)).pipe(
      Effect.mapError((e) => new ActionShortIdUnknown({ action, shortId: e.shortId, message: e.message }))
    )

  /** A target string (chat_guid:, chat_id:, chat_identifier:, chat guid or handle) → an existing chat's guid. */
  const chatOfTarget = (action: ActionName, field: string, raw: string) =>
    resolveTarget(client, raw).pipe(
      Effect.mapError((e) => e._tag === "OutboundTargetError" ? invalid(action, field, `${field}: ${e.message}`) : bridgeFailed(action, e)),
      Effect.flatMap((t) =>
        t._tag === "Chat"
          ? Effect.succeed(t.chatGuid)
          : Effect.fail(invalid(action, field, `${field}: there is no chat with ${t.address} yet; send them a message first`))
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
        return yield* invalid(action, "chatGuid", `chatGuid: expected a group chat, got the address ${raw}`)
      }
      const guid = yield* chatOfParam(action, raw)
      if (guid.includes(";-;")) {
        return yield* invalid(action, "chatGuid", `chatGuid: ${guid} is a direct chat; ${action} works on group chats only`)
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
        return yield* invalid(action, "chatGuid", `cannot tell which chat message ${guid} is in; pass chatGuid or to`)
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

  /** The media of setGroupIcon / sendAttachment: a confined local path, or base64 bytes with a file name. */
  const loadMedia = (
    action: ActionName,
    p: { readonly path?: string; readonly media?: string; readonly buffer?: string; readonly filename?: string }
  ): Effect.Effect<Media, ActionError> =>
    Effect.gen(function*() {
      if (p.path !== undefined && p.media !== undefined) return yield* invalid(action, "media", "give path or media (the same thing), not both")
      const local = p.path ?? p.media
      const localField = p.path !== undefined ? "path" : "media"
      if (local !== undefined && p.buffer !== undefined) return yield* invalid(action, "buffer", "give either path (a local file) or buffer (base64 bytes), not both")
      if (local === undefined && p.buffer === undefined) {
        return yield* invalid(action, "path", "the file is missing: give path (an absolute path under channels.msgbridge.mediaLocalRoots) or buffer (base64 bytes) with filename")
      }
      const filename = p.filename === undefined ? undefined : path.basename(p.filename.trim())
      if (filename !== undefined && (filename === "" || filename === "." || filename === "..")) {
        return yield* invalid(action, "filename", `filename: expected a file name such as photo.jpg, got "${p.filename}"`)
      }
      if (local !== undefined) {
        const file = yield* readLocalMedia(local, options.mediaLocalRoots, maxBytes).pipe(
          Effect.mapError((e: LocalMediaDenied | LocalMediaTooLarge): ActionError => {
            if (e._tag === "LocalMediaTooLarge") {
              return new ActionMediaTooLarge({ action, size: e.size, maxBytes: e.maxBytes, message: `${action}: ${e.message}` })
            }
            return e.reason === "no-roots" || e.reason === "outside-roots"
              ? new ActionPathDenied({ action, path: e.path, message: `${action}: ${e.message}` })
              : invalid(action, localField, `${localField}: ${e.message}`)
          })
        )
        return { name: filename ?? path.basename(local), data: file.data }
      }
      if (filename === undefined) return yield* invalid(action, "filename", "filename is missing: a buffer needs the file name the recipient sees, such as photo.jpg")
      const base64 = p.buffer!.replace(/^data:[^,]*;base64,/, "").replace(/\s+/g, "")
      // Refuse by the encoded length before decoding anything.
      const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0
      const size = Math.floor((base64.length * 3) / 4) - padding
      if (size > maxBytes) {
        return yield* new ActionMediaTooLarge({
          action,
          size,
          maxBytes,
          message: `${action}: the buffer holds ${size} bytes, over the ${maxBytes}-byte limit (channels.msgbridge.mediaMaxMb)`
        })
      }
      const data = Encoding.decodeBase64(base64)
      if (Either.isLeft(data)) return yield* invalid(action, "buffer", "buffer: expected the file's bytes as base64")
      return { name: filename, data: data.right }
    })

  /** asVoice: the bytes must be MP3 or CAF, and the name must say so (the server picks its conversion by name). */
  const voiceMedia = (action: ActionName, media: Media): Effect.Effect<Media, ActionInvalidParams> => {
    const format = sniffVoiceFormat(media.data)
    const ext = path.extname(media.name).toLowerCase()
    if (format === undefined) {
      return Effect.fail(
        invalid(action, "asVoice", `asVoice needs an MP3 or CAF audio file; ${media.name} is ${ext === ".mp3" || ext === ".caf" ? `not one (its content is not ${ext.slice(1).toUpperCase()})` : "neither"}`)
      )
    }
    if (ext === `.${format}`) return Effect.succeed(media)
    if (ext === "") return Effect.succeed({ ...media, name: `${media.name}.${format}` })
    return Effect.fail(invalid(action, "asVoice", `asVoice needs an MP3 or CAF audio file; ${media.name} holds ${format.toUpperCase()} audio but is named ${ext}: name it .${format}`))
  }

  const perform = (action: ActionName, params: unknown): Effect.Effect<ActionResult, ActionError> =>
    Effect.gen(function*() {
      const call = bridge(action)
      switch (action) {
        case "react": {
          const p = yield* decodeParams("react", params)
          const parsed = parseReaction(p.emoji)
          if (parsed === undefined) {
            return yield* invalid(
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
          if (Either.isLeft(effectId)) return yield* invalid(action, "effectId", `effectId: ${effectId.left.message}`)
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
          const media = yield* loadMedia(action, p)
          const mimeType = mimeTypeOf(media.name)
          yield* call(client.setGroupIcon({ chatGuid, data: media.data, name: media.name, ...(mimeType !== undefined ? { mimeType } : {}) }))
          return { action, ok: true, chatGuid }
        }
        case "addParticipant":
        case "removeParticipant": {
          const p = yield* decodeParams(action, params)
          const chatGuid = yield* groupChat(action, p.chatGuid)
          const address = normaliseAddress(p.address)
          if (address === undefined) return yield* invalid(action, "address", `address: expected a phone number or an e-mail address, got "${p.address}"`)
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
          const loaded = yield* loadMedia(action, p)
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
