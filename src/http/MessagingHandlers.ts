import { HttpApiBuilder } from "@effect/platform"
import { Clock, Effect, Either } from "effect"
import { ControlApi } from "../api/ControlApi.js"
import { BrowserManager } from "../browser/launch/BrowserManager.js"
import { ConfigStore } from "../config/ConfigStore.js"
import { VERSION } from "../version.js"
import { BadGateway, Conflict, Forbidden, InvalidRequest, NotFound, PayloadTooLarge } from "../domain/errors.js"
import type { ActionError } from "../msgbridge/channel/Actions.js"
import type { BridgeError } from "../msgbridge/bridge/BridgeClient.js"
import { MsgbridgeChannels } from "../msgbridge/channel/Channels.js"
import type { OutboundError } from "../msgbridge/channel/Outbound.js"

// `svc message send|action` and `svc status`: thin handlers over the running bridge accounts.

/** Each action error carries the status it means; the wire error of that status carries its message. */
const actionError = (e: ActionError) => {
  switch (e.status) {
    case 400:
      return new InvalidRequest({ message: e.message })
    case 403:
      return new Forbidden({ message: e.message })
    case 404:
      return new NotFound({ message: e.message })
    case 409:
      return new Conflict({ message: e.message })
    case 413:
      return new PayloadTooLarge({ message: e.message })
    default:
      return new BadGateway({ message: e.message })
  }
}

const sendError = (e: OutboundError | BridgeError) =>
  e._tag === "OutboundTargetError" ? new InvalidRequest({ message: e.message }) : new BadGateway({ message: e.message })

export const MessagingHandlers = HttpApiBuilder.group(ControlApi, "messaging", (handlers) =>
  Effect.gen(function*() {
    const channels = yield* MsgbridgeChannels
    const browsers = yield* BrowserManager
    const store = yield* ConfigStore
    const startedAt = yield* Clock.currentTimeMillis
    const pick = (account: string | undefined) =>
      Either.match(channels.pick(account), {
        onLeft: (message) => Effect.fail(new Conflict({ message })),
        onRight: Effect.succeed
      })
    return handlers
      .handle("send", ({ payload }) =>
        Effect.gen(function*() {
          const channel = yield* pick(payload.account)
          const result = yield* channel.sendTo(payload.to, payload.text).pipe(Effect.mapError(sendError))
          return { account: channel.accountId, chatGuid: result.chatGuid ?? null, sent: result.sent, messages: result.messages }
        }))
      .handle("action", ({ payload }) =>
        Effect.gen(function*() {
          const channel = yield* pick(payload.account)
          const result = yield* channel.runAction(payload.action, payload.params ?? {}).pipe(Effect.mapError(actionError))
          return { ...result } as Record<string, unknown>
        }))
      .handle("status", ({ urlParams }) =>
        Effect.gen(function*() {
          const deep = urlParams.deep === "true"
          const config = yield* store.get
          const running = yield* browsers.runningProfiles
          const now = yield* Clock.currentTimeMillis
          const accounts = yield* Effect.forEach(
            channels.accounts,
            (channel) =>
              Effect.gen(function*() {
                const status = yield* channel.status
                if (!deep) return status
                const [bridge, actions] = yield* Effect.all([channel.probe, channel.actionsAvailable], { concurrency: 2 })
                return { ...status, bridge, actions }
              }),
            { concurrency: 4 }
          )
          return {
            gateway: { version: VERSION, pid: process.pid, uptimeMs: now - startedAt, ports: store.ports },
            browser: { defaultProfile: config.browser?.defaultProfile ?? "relay", running: [...running] },
            channels: { msgbridge: { configured: accounts.length > 0, accounts } },
            deep
          }
        }))
  })
)
