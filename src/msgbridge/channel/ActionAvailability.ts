// Which message actions exist, and which of them are on for an account: from the config switches
// (channels.msgbridge.actions.<action>=false) and the bridge's server info (host OS version, Private API).
// An action known not to work on the bridge host is hidden, so a call fails with the reason instead of
// reaching the bridge.

import { osMajor, type ServerInfo } from "../bridge/serverInfo.js"

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

const squash = (s: string) => s.trim().toLowerCase().replace(/[\s_-]+/g, "")
const BY_SQUASHED = new Map<string, ActionName>(ACTION_NAMES.map((n) => [squash(n), n]))

/** "sendWithEffect", "send-with-effect", "send_with_effect" → sendWithEffect. */
export const parseActionName = (name: string): ActionName | undefined => BY_SQUASHED.get(squash(name))
