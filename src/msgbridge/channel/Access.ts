import type { MsgbridgeAccountConfig, SvcConfig } from "../../config/SvcConfig.js"
import { type AllowList, allowListMatches, chatGuidKey, compileAllowList, type MatchTarget, normalizeHandle } from "./Handles.js"

// Who may make the agent act, decided per inbound message. Pure: the paired senders are an input, the
// pairing store lives elsewhere.
//
// Rules, in order:
// DMs
//   D0 a message from the gateway's own account is ignored ("from-me").
//   D1 dmPolicy disabled: every DM is ignored ("dm-disabled").
//   D2 a control command (`/word …`) from a sender not authorised for commands is ignored
//      ("command-unauthorised"); authorised = allowFrom or paired. Checked before D3 so that
//      dmPolicy open does not hand `/config` to strangers. Under pairing the stranger gets "pairing".
//   D3 open: allowed.
//   D4 allowlist: allowed only when allowFrom matches (sender, chat_guid, chat_id or chat_identifier);
//      paired senders are NOT admitted ("allowlist: only allowFrom") → otherwise "dm-not-allowed".
//   D5 pairing (default): allowFrom or paired → allowed; anyone else → pairing (the caller sends or
//      re-sends the code and ignores the message).
// Groups
//   G0 from-me ignored.
//   G1 groupPolicy disabled: ignored ("groups-disabled").
//   G2 allowlist (default): the sender (or the group, by a chat_* entry) must match groupAllowFrom;
//      when groupAllowFrom is absent, allowFrom stands in for it; a present but empty groupAllowFrom
//      admits nobody ("group-sender-not-allowed"). Pairing does not admit anyone to groups.
//   G3 open: any sender.
//   G4 a control command needs a sender authorised by allowFrom, groupAllowFrom or pairing
//      ("command-unauthorised"); an authorised command bypasses mention gating (G5).
//   G5 groups.<chat>.requireMention (chat looked up by chat guid, chat_guid:…, chat identifier,
//      chat_id:…, then the `*` entry; default false): the text must match a mention pattern
//      (regex sources, case-insensitive) → otherwise "mention-required"; with no patterns configured
//      nothing can match ("mention-required-no-patterns"). Plain messages of authorised senders are still
//      gated: only their commands bypass it.
// `*` in any allow list matches everyone (and so authorises commands for everyone).

export type DmPolicy = "pairing" | "allowlist" | "open" | "disabled"
export type GroupPolicy = "open" | "allowlist" | "disabled"

export type IgnoreReason =
  | "from-me"
  | "dm-disabled"
  | "dm-not-allowed"
  | "groups-disabled"
  | "group-sender-not-allowed"
  | "command-unauthorised"
  | "mention-required"
  | "mention-required-no-patterns"

export type Decision =
  | { readonly kind: "allow"; readonly command: string | undefined }
  | { readonly kind: "pairing"; readonly sender: string }
  | { readonly kind: "ignore"; readonly reason: IgnoreReason }

export interface AccessInput {
  /** The sender's address as the bridge reports it (`handle.address`). */
  readonly sender: string
  readonly chatGuid: string
  readonly chatId?: string | number | undefined
  readonly chatIdentifier?: string | undefined
  readonly isGroup: boolean
  readonly text: string
  readonly isFromMe?: boolean | undefined
  /** Senders approved through pairing (any spelling; normalised here). */
  readonly paired?: ReadonlyArray<string> | ReadonlySet<string> | undefined
}

export interface AccessPolicy {
  readonly dmPolicy?: DmPolicy | undefined
  readonly allowFrom?: ReadonlyArray<string> | undefined
  readonly groupPolicy?: GroupPolicy | undefined
  readonly groupAllowFrom?: ReadonlyArray<string> | undefined
  readonly groups?: { readonly [chat: string]: { readonly requireMention?: boolean | undefined } } | undefined
  /** Regex sources, matched case-insensitively. An invalid source is matched as literal text. */
  readonly mentionPatterns?: ReadonlyArray<string> | undefined
}

/** The command word of a control command (`/model gpt` → `model`), or undefined. */
export const controlCommand = (text: string): string | undefined => {
  const m = /^\/([A-Za-z][\w-]*)(?:\s|$)/.exec(text.trimStart())
  return m === null ? undefined : m[1]!.toLowerCase()
}

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

export const compileMentionPatterns = (sources: ReadonlyArray<string> | undefined): ReadonlyArray<RegExp> =>
  (sources ?? [])
    .filter((s) => s.trim() !== "")
    .map((s) => {
      try {
        return new RegExp(s, "i")
      } catch {
        return new RegExp(escapeRegex(s), "i")
      }
    })

/** requireMention for a chat: its own entry (by guid, identifier or id, prefixed or not), then `*`. */
export const requiresMention = (policy: AccessPolicy, input: Pick<AccessInput, "chatGuid" | "chatId" | "chatIdentifier">): boolean => {
  const groups = policy.groups ?? {}
  const keys = [input.chatGuid, `chat_guid:${input.chatGuid}`]
  if (input.chatIdentifier !== undefined) keys.push(input.chatIdentifier, `chat_identifier:${input.chatIdentifier}`)
  if (input.chatId !== undefined) keys.push(String(input.chatId), `chat_id:${input.chatId}`)
  for (const key of keys) {
    const v = groups[key]?.requireMention
    if (v !== undefined) return v
  }
  // Same chat under another service prefix (iMessage;+;chat… vs any;+;chat…).
  const wanted = chatGuidKey(input.chatGuid)
  for (const [key, value] of Object.entries(groups)) {
    const guid = key.startsWith("chat_guid:") ? key.slice("chat_guid:".length) : key
    if (key !== "*" && value.requireMention !== undefined && chatGuidKey(guid) === wanted) return value.requireMention
  }
  return groups["*"]?.requireMention ?? false
}

/** An access policy compiled once (allow lists and patterns), reusable for every message. */
export interface CompiledPolicy {
  readonly compiled: true
  readonly policy: AccessPolicy
  readonly allowFrom: AllowList
  readonly groupAllowFrom: AllowList
  readonly mentionPatterns: ReadonlyArray<RegExp>
}

export const compilePolicy = (policy: AccessPolicy): CompiledPolicy => ({
  compiled: true,
  policy,
  allowFrom: compileAllowList(policy.allowFrom),
  groupAllowFrom: compileAllowList(policy.groupAllowFrom ?? policy.allowFrom),
  mentionPatterns: compileMentionPatterns(policy.mentionPatterns)
})

const isPaired = (paired: AccessInput["paired"], sender: string): boolean => {
  if (paired === undefined) return false
  const key = normalizeHandle(sender)
  for (const p of paired) if (normalizeHandle(p) === key) return true
  return false
}

export const decide = (input: AccessInput, policyOrCompiled: AccessPolicy | CompiledPolicy): Decision => {
  const c = "compiled" in policyOrCompiled ? policyOrCompiled : compilePolicy(policyOrCompiled)
  const policy = c.policy
  if (input.isFromMe === true) return { kind: "ignore", reason: "from-me" }
  const target: MatchTarget = {
    sender: input.sender,
    chatGuid: input.chatGuid,
    chatId: input.chatId,
    chatIdentifier: input.chatIdentifier
  }
  const command = controlCommand(input.text)
  const inAllowFrom = allowListMatches(c.allowFrom, target)
  const paired = isPaired(input.paired, input.sender)

  if (!input.isGroup) {
    const dmPolicy = policy.dmPolicy ?? "pairing"
    if (dmPolicy === "disabled") return { kind: "ignore", reason: "dm-disabled" } // D1
    if (command !== undefined && !(inAllowFrom || paired)) {
      // D2 — in pairing mode an unknown sender still gets a code rather than a silent drop.
      return dmPolicy === "pairing"
        ? { kind: "pairing", sender: normalizeHandle(input.sender) }
        : { kind: "ignore", reason: "command-unauthorised" }
    }
    switch (dmPolicy) {
      case "open":
        return { kind: "allow", command } // D3
      case "allowlist":
        return inAllowFrom ? { kind: "allow", command } : { kind: "ignore", reason: "dm-not-allowed" } // D4
      case "pairing":
        return inAllowFrom || paired
          ? { kind: "allow", command }
          : { kind: "pairing", sender: normalizeHandle(input.sender) } // D5
    }
  }

  const groupPolicy = policy.groupPolicy ?? "allowlist"
  if (groupPolicy === "disabled") return { kind: "ignore", reason: "groups-disabled" } // G1
  const inGroupAllow = allowListMatches(c.groupAllowFrom, target)
  if (groupPolicy === "allowlist" && !inGroupAllow) return { kind: "ignore", reason: "group-sender-not-allowed" } // G2
  if (command !== undefined) {
    // G4: groupAllowFrom here is the explicit list (or allowFrom standing in for it).
    return inAllowFrom || inGroupAllow || paired
      ? { kind: "allow", command }
      : { kind: "ignore", reason: "command-unauthorised" }
  }
  if (requiresMention(policy, input)) {
    // G5
    if (c.mentionPatterns.length === 0) return { kind: "ignore", reason: "mention-required-no-patterns" }
    if (!c.mentionPatterns.some((re) => re.test(input.text))) return { kind: "ignore", reason: "mention-required" }
  }
  return { kind: "allow", command: undefined }
}

/**
 * The access policy of one account from the config: the account's own keys win over the channel's top
 * level. Mention patterns: the agent's `groupChat.mentionPatterns` (agent by id, else the first agent that
 * has some), else `messages.groupChat.mentionPatterns`.
 */
export const policyFromConfig = (config: SvcConfig, accountId?: string, agentId?: string): AccessPolicy => {
  const channel = config.channels?.msgbridge
  const account: MsgbridgeAccountConfig | undefined = accountId === undefined ? undefined : channel?.accounts?.[accountId]
  const pick = <K extends keyof MsgbridgeAccountConfig>(k: K): MsgbridgeAccountConfig[K] | undefined =>
    account?.[k] !== undefined ? account[k] : (channel as MsgbridgeAccountConfig | undefined)?.[k]
  const agents = config.agents?.list ?? []
  const agent = (agentId === undefined ? undefined : agents.find((a) => a.id === agentId)) ??
    agents.find((a) => a.groupChat?.mentionPatterns !== undefined)
  return {
    dmPolicy: pick("dmPolicy"),
    allowFrom: pick("allowFrom"),
    groupPolicy: pick("groupPolicy"),
    groupAllowFrom: pick("groupAllowFrom"),
    groups: pick("groups"),
    mentionPatterns: agent?.groupChat?.mentionPatterns ?? config.messages?.groupChat?.mentionPatterns
  }
}
