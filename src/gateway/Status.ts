import { Clock, Context, Effect, Layer } from "effect"
import { AgentStatus } from "../agent/model/AgentStatus.js"
import { BrowserManager } from "../browser/launch/BrowserManager.js"
import { ConfigStore } from "../config/ConfigStore.js"
import { defaultProfileName } from "../config/SvcConfig.js"
import { MsgbridgeChannels } from "../msgbridge/channel/Channels.js"
import { VERSION } from "../version.js"

/** `svc status`: the running gateway, its browsers and each messaging account. */
export class GatewayStatus extends Context.Tag("svc/GatewayStatus")<
  GatewayStatus,
  { readonly status: (options: { readonly deep: boolean }) => Effect.Effect<Record<string, unknown>> }
>() {}

export const GatewayStatusLive = Layer.effect(
  GatewayStatus,
  Effect.gen(function*() {
    const channels = yield* MsgbridgeChannels
    const browsers = yield* BrowserManager
    const store = yield* ConfigStore
    const agent = yield* AgentStatus
    const startedAt = yield* Clock.currentTimeMillis
    const status = ({ deep }: { readonly deep: boolean }) =>
      Effect.gen(function*() {
        const config = yield* store.get
        const running = yield* browsers.runningProfiles
        const now = yield* Clock.currentTimeMillis
        const accounts = yield* Effect.forEach(
          channels.accounts,
          (channel) =>
            Effect.gen(function*() {
              const status = yield* channel.status
              if (!deep) return status
              // --deep asks each bridge server now: reachable, host OS, Private API, which actions are on.
              const [bridge, actions] = yield* Effect.all([channel.probe, channel.actionsAvailable], { concurrency: 2 })
              return { ...status, bridge, actions }
            }),
          { concurrency: 4 }
        )
        return {
          gateway: { version: VERSION, pid: process.pid, uptimeMs: now - startedAt, ports: store.ports },
          browser: { defaultProfile: defaultProfileName(config), running: [...running] },
          channels: { msgbridge: { configured: accounts.length > 0, accounts } },
          agent: yield* agent.status,
          deep
        }
      })
    return { status }
  })
)
