import { Either } from "effect"
import type { MsgbridgeAccountConfig, SvcConfig } from "../../config/SvcConfig.js"

// Which bridge accounts run. The channel's top level is the `default` account (it runs when it names a
// serverUrl); each `channels.msgbridge.accounts.<id>` is another bridge server. A named account inherits
// the top level's policies and delivery settings (dmPolicy, allowFrom, groups, chunking, media, actions …)
// but never its serverUrl, password or webhookPath: each account is its own bridge, with its own password
// and its own webhook (default `/msgbridge-webhook/<id>`).

export const DEFAULT_ACCOUNT = "default"
export const DEFAULT_WEBHOOK_PATH = "/msgbridge-webhook"

export interface AccountSettings {
  readonly accountId: string
  /** The key path of the account's settings, for messages: `channels.msgbridge` or `channels.msgbridge.accounts.<id>`. */
  readonly keyPath: string
  readonly serverUrl: string
  readonly password: string
  readonly webhookPath: string
  /** The account's effective settings (top level overlaid by the account's own). */
  readonly config: MsgbridgeAccountConfig
}

export class ChannelConfigError {
  readonly _tag = "ChannelConfigError"
  constructor(readonly message: string) {}
}

const NOT_INHERITED = new Set(["serverUrl", "password", "webhookPath", "enabled", "accounts"])

/** The accounts that run, in a stable order (default first), or the first configuration problem. */
export const resolveAccounts = (config: SvcConfig): Either.Either<ReadonlyArray<AccountSettings>, ChannelConfigError> => {
  const channel = config.channels?.msgbridge
  if (channel === undefined || channel.enabled === false) return Either.right([])
  const inherited: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(channel)) if (!NOT_INHERITED.has(k)) inherited[k] = v

  const out: Array<AccountSettings> = []
  const check = (
    accountId: string,
    keyPath: string,
    own: MsgbridgeAccountConfig,
    merged: MsgbridgeAccountConfig,
    defaultPath: string
  ): ChannelConfigError | undefined => {
    if (own.serverUrl === undefined) return new ChannelConfigError(`${keyPath}.serverUrl is required (the bridge server's URL)`)
    if (own.password === undefined) {
      return new ChannelConfigError(`${keyPath}.password is required: the bridge server and the webhook are refused without one`)
    }
    const webhookPath = own.webhookPath ?? defaultPath
    const clash = out.find((a) => a.webhookPath === webhookPath)
    if (clash !== undefined) {
      return new ChannelConfigError(
        `${keyPath}.webhookPath ${webhookPath} is already the webhook of account "${clash.accountId}": give each account its own path`
      )
    }
    out.push({ accountId, keyPath, serverUrl: own.serverUrl, password: own.password, webhookPath, config: merged })
    return undefined
  }

  // The top level runs as the default account when it names a bridge (or when there are no named accounts,
  // so that a half-configured channel is reported rather than silently off).
  const named = Object.entries(channel.accounts ?? {})
  if (channel.serverUrl !== undefined || channel.password !== undefined || named.length === 0) {
    const error = check(DEFAULT_ACCOUNT, "channels.msgbridge", channel, channel, DEFAULT_WEBHOOK_PATH)
    if (error !== undefined) return Either.left(error)
  }
  for (const [accountId, own] of named) {
    const keyPath = `channels.msgbridge.accounts.${accountId}`
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(accountId)) {
      return Either.left(new ChannelConfigError(`${keyPath}: an account id holds letters, digits, - and _ (at most 64)`))
    }
    if (accountId === DEFAULT_ACCOUNT) {
      return Either.left(new ChannelConfigError(`${keyPath}: "default" is the top-level account; choose another id`))
    }
    if (own.enabled === false) continue
    const merged = { ...inherited, ...own } as MsgbridgeAccountConfig
    const error = check(accountId, keyPath, own, merged, `${DEFAULT_WEBHOOK_PATH}/${accountId}`)
    if (error !== undefined) return Either.left(error)
  }
  return Either.right(out)
}
