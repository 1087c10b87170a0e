// What a bridge client offers: one call per REST route it uses, and the params each call takes. The
// channel, the message actions and the media path are written against this interface, so a test can hand
// them a stub.

import type { Effect, Stream } from "effect"
import type { BridgeError, BridgeNeedsPrivateApi } from "./errors.js"
import type { BridgeChat, BridgeMessage } from "./schemas.js"
import type { SendMethod, ServerInfo } from "./serverInfo.js"

export interface SendTextParams {
  readonly chatGuid: string
  readonly message: string
  /** Explicit method; when absent, chosen by `chooseSendMethod`. */
  readonly method?: SendMethod
  /** Unique per send; generated when absent. */
  readonly tempGuid?: string
  readonly effectId?: string
  readonly subject?: string
  readonly selectedMessageGuid?: string
  readonly partIndex?: number
}

export interface SendAttachmentParams {
  readonly chatGuid: string
  /** File name the recipient sees. */
  readonly name: string
  readonly data: Uint8Array
  readonly mimeType?: string
  /** A voice memo (MP3 or CAF). */
  readonly isAudioMessage?: boolean
  readonly method?: SendMethod
  readonly tempGuid?: string
  readonly selectedMessageGuid?: string
  readonly partIndex?: number
}

export interface NewChatParams {
  readonly addresses: ReadonlyArray<string>
  readonly message: string
  readonly tempGuid?: string
  readonly service?: "iMessage" | "SMS"
  readonly method?: SendMethod
}

export interface QueryChatsParams {
  readonly limit?: number
  readonly offset?: number
  /** Default ["participants"]. */
  readonly with?: ReadonlyArray<string>
}

export type Reaction = "love" | "like" | "dislike" | "laugh" | "emphasize" | "question"

export interface ReactParams {
  readonly chatGuid: string
  readonly selectedMessageGuid: string
  readonly reaction: Reaction | `-${Reaction}`
  readonly partIndex?: number
}

export interface MessagesSinceParams {
  /** Epoch milliseconds. */
  readonly after: number
  readonly limit?: number
  /** Default ["chat", "chat.participants", "attachment"]. */
  readonly with?: ReadonlyArray<string>
}

export interface BridgeClientApi {
  /** serverUrl normalised (scheme added, no trailing slash, never the password). */
  readonly baseUrl: string
  readonly ping: Effect.Effect<void, BridgeError>
  /** Cached for serverInfoTtlMs. */
  readonly serverInfo: Effect.Effect<ServerInfo, BridgeError>
  /** Fetch server info now and refresh the cache. */
  readonly refreshServerInfo: Effect.Effect<ServerInfo, BridgeError>
  /** The method a send will use when none is given (see chooseSendMethod). */
  readonly sendMethodFor: (needsPrivateApi: boolean) => Effect.Effect<SendMethod, BridgeNeedsPrivateApi>
  readonly sendText: (params: SendTextParams) => Effect.Effect<BridgeMessage, BridgeError>
  readonly sendAttachment: (params: SendAttachmentParams) => Effect.Effect<BridgeMessage, BridgeError>
  readonly startTyping: (chatGuid: string) => Effect.Effect<void, BridgeError>
  /** Best effort: DELETE is unreliable on some server versions, and errors are ignored. */
  readonly stopTyping: (chatGuid: string) => Effect.Effect<void>
  readonly markRead: (chatGuid: string) => Effect.Effect<void, BridgeError>
  readonly newChat: (params: NewChatParams) => Effect.Effect<BridgeChat, BridgeError>
  readonly queryChats: (params?: QueryChatsParams) => Effect.Effect<ReadonlyArray<BridgeChat>, BridgeError>
  readonly react: (params: ReactParams) => Effect.Effect<void, BridgeError>
  readonly edit: (params: {
    readonly messageGuid: string
    readonly editedMessage: string
    readonly backwardsCompatibilityMessage?: string
    readonly partIndex?: number
  }) => Effect.Effect<void, BridgeError>
  readonly unsend: (params: { readonly messageGuid: string; readonly partIndex?: number }) => Effect.Effect<void, BridgeError>
  readonly renameGroup: (params: { readonly chatGuid: string; readonly displayName: string }) => Effect.Effect<void, BridgeError>
  readonly setGroupIcon: (params: {
    readonly chatGuid: string
    readonly data: Uint8Array
    readonly name: string
    readonly mimeType?: string
  }) => Effect.Effect<void, BridgeError>
  readonly addParticipant: (params: { readonly chatGuid: string; readonly address: string }) => Effect.Effect<void, BridgeError>
  readonly removeParticipant: (params: { readonly chatGuid: string; readonly address: string }) => Effect.Effect<void, BridgeError>
  readonly leaveGroup: (chatGuid: string) => Effect.Effect<void, BridgeError>
  /** GET message/:guid?with=chats,attachment. */
  readonly messageByGuid: (guid: string) => Effect.Effect<BridgeMessage, BridgeError>
  readonly messagesSince: (params: MessagesSinceParams) => Effect.Effect<ReadonlyArray<BridgeMessage>, BridgeError>
  /**
   * The attachment's bytes as a stream, failing with BridgeTooLarge as soon as more than maxBytes arrive
   * (or at once when Content-Length says so); the request is aborted then, nothing is buffered.
   */
  readonly downloadAttachment: (guid: string, maxBytes: number) => Stream.Stream<Uint8Array, BridgeError>
  /** downloadAttachment collected (bounded by maxBytes). */
  readonly downloadAttachmentBytes: (guid: string, maxBytes: number) => Effect.Effect<Uint8Array, BridgeError>
}
