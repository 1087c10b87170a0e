// Handles and chat guids of the messaging bridge, reduced to one canonical text each so that allow lists,
// pairing records and inbound senders compare by plain equality.
//
// Rules:
// - Phone numbers: a leading `+` is kept; spaces, dots, dashes and parentheses are dropped
//   (`+1 (555) 123-0001` → `+15551230001`). A `tel:` prefix is dropped.
// - A number written without `+` is kept as its bare digits (`555-123-0001` → `5551230001`) and is NOT
//   matched against any E.164 number: guessing a country code could admit the wrong person. The bridge
//   reports iMessage/SMS senders in E.164, so such an entry only matches a sender the bridge itself reports
//   without `+` (short codes, some carriers). `looksLikeLocalNumber` lets status/doctor warn about them.
// - E-mail addresses (anything with `@`) compare case-insensitively; a `mailto:` prefix is dropped.
// - `chat_id:`, `chat_guid:`, `chat_identifier:` entries keep their prefix (lower-cased) and their value.
//   A chat_guid compares by style and identifier, not by service: `iMessage;-;+1555…`, `SMS;-;+1555…` and
//   `any;-;+1555…` (host OS 26) are the same conversation.
// - `*` is the wildcard (everyone).
// - Anything else is a plain handle, trimmed and lower-cased.

export type Handle =
  | { readonly kind: "phone"; readonly value: string; readonly e164: boolean }
  | { readonly kind: "email"; readonly value: string }
  | { readonly kind: "chat_id"; readonly value: string }
  | { readonly kind: "chat_guid"; readonly value: string; readonly chat: ChatGuid | undefined }
  | { readonly kind: "chat_identifier"; readonly value: string }
  | { readonly kind: "wildcard" }
  | { readonly kind: "handle"; readonly value: string }

export interface ChatGuid {
  /** The guid as given. */
  readonly guid: string
  /** `iMessage`, `SMS`, `any`, … as given. */
  readonly service: string
  readonly isGroup: boolean
  /** After the style marker: the other party's handle (DM) or the group's chat identifier. */
  readonly identifier: string
  /** For a DM, the other party's canonical handle; for a group, the identifier unchanged. */
  readonly normalizedIdentifier: string
}

const PHONE_CHARS = /^\+?[\d\s.\-()]+$/
const PHONE_STRIP = /[\s.\-()]/g

const stripPrefix = (s: string, prefix: string): string | undefined =>
  s.length >= prefix.length && s.slice(0, prefix.length).toLowerCase() === prefix ? s.slice(prefix.length).trim() : undefined

/** Parses a chat guid `<service>;<-|+>;<identifier>`; undefined when it has not that shape. */
export const parseChatGuid = (raw: string): ChatGuid | undefined => {
  const guid = raw.trim()
  const m = /^([^;]+);([-+]);(.+)$/.exec(guid)
  if (m === null) return undefined
  const [, service, style, identifier] = m as unknown as [string, string, string, string]
  const isGroup = style === "+"
  return {
    guid,
    service,
    isGroup,
    identifier,
    normalizedIdentifier: isGroup ? identifier : normalizeHandle(identifier)
  }
}

/** Service-independent key of a chat guid: `-;+15551230001` or `+;chat4829…`. */
export const chatGuidKey = (raw: string): string => {
  const chat = parseChatGuid(raw)
  return chat === undefined ? raw.trim() : `${chat.isGroup ? "+" : "-"};${chat.normalizedIdentifier}`
}

export const parseHandle = (raw: string): Handle => {
  const s = raw.trim()
  if (s === "*") return { kind: "wildcard" }
  const chatId = stripPrefix(s, "chat_id:")
  if (chatId !== undefined) return { kind: "chat_id", value: chatId }
  const chatGuid = stripPrefix(s, "chat_guid:")
  if (chatGuid !== undefined) return { kind: "chat_guid", value: chatGuid, chat: parseChatGuid(chatGuid) }
  const chatIdentifier = stripPrefix(s, "chat_identifier:")
  if (chatIdentifier !== undefined) return { kind: "chat_identifier", value: chatIdentifier }
  const mail = stripPrefix(s, "mailto:")
  if (mail !== undefined) return { kind: "email", value: mail.toLowerCase() }
  const tel = stripPrefix(s, "tel:") ?? s
  if (PHONE_CHARS.test(tel) && /\d/.test(tel)) {
    const compact = tel.replace(PHONE_STRIP, "")
    // A `+` in the middle is not a phone number; treat the entry as a plain handle.
    if (/^\+?\d+$/.test(compact)) return { kind: "phone", value: compact, e164: compact.startsWith("+") }
  }
  if (s.includes("@")) return { kind: "email", value: s.toLowerCase() }
  return { kind: "handle", value: s.toLowerCase() }
}

/** The canonical text of a handle or allow-list entry (see the rules at the top of this file). */
export const normalizeHandle = (raw: string): string => {
  const h = parseHandle(raw)
  switch (h.kind) {
    case "wildcard":
      return "*"
    case "chat_id":
    case "chat_identifier":
      return `${h.kind}:${h.value}`
    case "chat_guid":
      return `chat_guid:${h.value}`
    default:
      return h.value
  }
}

/** True for an entry that is a phone number written without `+` (it will not match E.164 senders). */
export const looksLikeLocalNumber = (raw: string): boolean => {
  const h = parseHandle(raw)
  return h.kind === "phone" && !h.e164 && h.value.length >= 7
}

/** What an allow list is matched against: the sender and the chat the message came from. */
export interface MatchTarget {
  readonly sender: string
  readonly chatGuid?: string | undefined
  readonly chatId?: string | number | undefined
  readonly chatIdentifier?: string | undefined
}

/** An allow list compiled once: canonical senders plus chat entries. */
export interface AllowList {
  readonly wildcard: boolean
  readonly senders: ReadonlySet<string>
  readonly chatIds: ReadonlySet<string>
  readonly chatGuidKeys: ReadonlySet<string>
  readonly chatIdentifiers: ReadonlySet<string>
}

export const compileAllowList = (entries: ReadonlyArray<string> | undefined): AllowList => {
  const senders = new Set<string>()
  const chatIds = new Set<string>()
  const chatGuidKeys = new Set<string>()
  const chatIdentifiers = new Set<string>()
  let wildcard = false
  for (const entry of entries ?? []) {
    if (entry.trim() === "") continue
    const h = parseHandle(entry)
    switch (h.kind) {
      case "wildcard":
        wildcard = true
        break
      case "chat_id":
        chatIds.add(h.value)
        break
      case "chat_guid":
        chatGuidKeys.add(chatGuidKey(h.value))
        break
      case "chat_identifier":
        chatIdentifiers.add(h.value)
        break
      default:
        senders.add(h.value)
    }
  }
  return { wildcard, senders, chatIds, chatGuidKeys, chatIdentifiers }
}

export const allowListMatches = (list: AllowList, target: MatchTarget): boolean => {
  if (list.wildcard) return true
  if (target.sender.trim() !== "" && list.senders.has(normalizeHandle(target.sender))) return true
  if (target.chatGuid !== undefined && list.chatGuidKeys.has(chatGuidKey(target.chatGuid))) return true
  if (target.chatId !== undefined && list.chatIds.has(String(target.chatId).trim())) return true
  if (target.chatIdentifier !== undefined && list.chatIdentifiers.has(target.chatIdentifier.trim())) return true
  return false
}

export const isAllowed = (entries: ReadonlyArray<string> | undefined, target: MatchTarget): boolean =>
  allowListMatches(compileAllowList(entries), target)
