import { Effect, Layer, Stream } from "effect"
import { Agent } from "./Agent.js"

/** `!action <name> <JSON params>`: how the echo agent lets a person try the channel's actions. */
const ACTION_LINE = /^!action\s+([A-Za-z]+)\s*(\{[\s\S]*\})?\s*$/

/**
 * `agent.provider: "echo"`: replies `echo: <text>`; for tests and for trying the channel. A message
 * `!action <name> {json}` runs that action through the agent's tools and replies with the outcome.
 */
export const EchoAgent = Layer.succeed(Agent, {
  reply: (context, tools) => {
    if (context.system !== undefined) return Stream.make(`echo: (${context.system})`)
    const action = ACTION_LINE.exec(context.text.trim())
    if (action === null) {
      const media = (context.media ?? []).map((m) => `[${m.name}, ${m.size} bytes]`)
      const notes = (context.notes ?? []).map((n) => `(${n})`)
      return Stream.make(["echo:", context.text, ...media, ...notes].filter((p) => p !== "").join(" "))
    }
    return Stream.fromEffect(
      Effect.gen(function*() {
        let params: Record<string, unknown> = {}
        if (action[2] !== undefined) {
          try {
            params = JSON.parse(action[2]) as Record<string, unknown>
          } catch {
            return `echo: action ${action[1]}: the parameters are not JSON`
          }
        }
        return yield* tools.actions.run(action[1]!, params).pipe(
          Effect.map((result) => `echo: action ${action[1]} done${typeof result.messageId === "string" ? ` (message ${result.messageId})` : ""}`),
          Effect.catchAll((e) => Effect.succeed(`echo: action ${action[1]} failed: ${e.message}`))
        )
      })
    )
  }
})
