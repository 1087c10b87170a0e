import { HttpApiBuilder } from "@effect/platform"
import { Effect, Either } from "effect"
import { BadGateway, Conflict, Forbidden, InvalidRequest, NotFound, PayloadTooLarge } from "../domain/errors.js"
import { MessagingApi } from "./api.js"
import type { ActionError } from "./channel/ActionErrors.js"
import type { BridgeError } from "./bridge/errors.js"
import { MsgbridgeChannels } from "./channel/Channels.js"
import type { OutboundError } from "./channel/Outbound.js"

// `svc message send|action`: thin handlers over the running bridge accounts.

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

export const MessagingHttpLive = HttpApiBuilder.group(MessagingApi, "messaging", (handlers) =>
  Effect.gen(function*() {
    const channels = yield* MsgbridgeChannels
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
  })
)
