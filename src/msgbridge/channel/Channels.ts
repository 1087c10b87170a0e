import { Context, Either } from "effect"
import type { Channel } from "./Channel.js"

// The running bridge accounts of this gateway, for the control routes (`svc message …`, `svc status`).
// Empty when channels.msgbridge is not configured.

export interface ChannelsApi {
  readonly accounts: ReadonlyArray<Channel>
  /** The account asked for (default: the `default` account, or the only one), or why there is none. */
  readonly pick: (accountId: string | undefined) => Either.Either<Channel, string>
}

export class MsgbridgeChannels extends Context.Tag("svc/msgbridge/Channels")<MsgbridgeChannels, ChannelsApi>() {}

export const makeChannels = (accounts: ReadonlyArray<Channel>): ChannelsApi => ({
  accounts,
  pick: (accountId) => {
    if (accounts.length === 0) {
      return Either.left(
        "the msgbridge channel is not running on this gateway: configure channels.msgbridge (serverUrl, password; `svc onboard` helps) and restart the gateway"
      )
    }
    if (accountId === undefined) {
      const chosen = accounts.find((a) => a.accountId === "default") ?? (accounts.length === 1 ? accounts[0] : undefined)
      return chosen !== undefined
        ? Either.right(chosen)
        : Either.left(`several msgbridge accounts run (${accounts.map((a) => a.accountId).join(", ")}): choose one with --account`)
    }
    const found = accounts.find((a) => a.accountId === accountId)
    return found !== undefined
      ? Either.right(found)
      : Either.left(`no msgbridge account "${accountId}" runs on this gateway (running: ${accounts.map((a) => a.accountId).join(", ")})`)
  }
})
