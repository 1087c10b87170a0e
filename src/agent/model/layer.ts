import { Effect, Layer } from "effect"
import * as fs from "node:fs/promises"
import { type ControlClient, makeControlClientAt } from "../../client/ControlClient.js"
import type { SvcConfig } from "../../config/SvcConfig.js"
import { KeepAliveHttp } from "../../platform/keepAliveHttp.js"
import { Agent } from "../Agent.js"
import { EchoAgent } from "../EchoAgent.js"
import { makeBrowserTool } from "../tool/BrowserTool.js"
import { routingSettings } from "../tool/targetRouting.js"
import { AgentStatus, EchoAgentStatus } from "./AgentStatus.js"
import { conversationsDir, makeConversations } from "./Conversations.js"
import { makeModelAgent } from "./ModelAgent.js"
import { languageModelLayer } from "./providers.js"
import { modelSettings } from "./settings.js"

// The agent a gateway runs, chosen by agent.provider: echo, or a language model whose browser tool calls
// go through the typed control client to this gateway's own control port (with its token), exactly as
// an outside agent's would, over keep-alive connections (a turn makes many calls to the same two hosts).

const readFile = (path: string) => Effect.tryPromise(() => fs.readFile(path).then((b) => new Uint8Array(b)))

/**
 * The model agent over a control client, or undefined when agent.provider is echo (or unset). Its HTTP
 * client and provider live as long as the caller's scope.
 */
export const makeConfiguredModelAgent = (
  config: SvcConfig,
  stateDir: string,
  client: ControlClient,
  /** The browser profile a call without one uses (`svc agent ask --browser-profile`). */
  profile?: string
) =>
  Effect.gen(function*() {
    const settings = modelSettings(config, process.env)
    if (settings === undefined) return undefined
    const model = yield* Layer.build(languageModelLayer(settings).pipe(Layer.provide(KeepAliveHttp)))
    const browser = makeBrowserTool(client, readFile)
    return yield* makeModelAgent({
      settings,
      browser: profile === undefined ? browser.run : (raw, session) =>
        browser.run(
          typeof raw === "object" && raw !== null && !("profile" in raw) && !session.sandboxed ? { ...raw, profile } : raw,
          session
        ),
      session: { sandboxed: settings.sandboxed, ...routingSettings(config) },
      conversations: makeConversations(conversationsDir(stateDir), settings)
    }).pipe(Effect.provide(model))
  })

/** The gateway's Agent and AgentStatus. */
export const AgentLive = (
  config: SvcConfig,
  stateDir: string,
  control: { readonly baseUrl: string; readonly headers: Readonly<Record<string, string>> }
): Layer.Layer<Agent | AgentStatus> => {
  if (modelSettings(config, process.env) === undefined) return Layer.merge(EchoAgent, EchoAgentStatus)
  return Layer.unwrapScoped(
    Effect.gen(function*() {
      const http = yield* Layer.build(KeepAliveHttp)
      const { client } = yield* makeControlClientAt(control).pipe(Effect.provide(http))
      const agent = yield* makeConfiguredModelAgent(config, stateDir, client)
      if (agent === undefined) return Layer.merge(EchoAgent, EchoAgentStatus)
      return Layer.merge(Layer.succeed(Agent, { reply: agent.reply }), Layer.succeed(AgentStatus, { status: agent.status }))
    })
  )
}
