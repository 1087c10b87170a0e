import { Effect, Schema } from "effect"
import { BrowserToolParams } from "../../domain/browserTool.js"
import { toolInputSchema } from "../../platform/toolSchema.js"
import { ActionParams } from "../../msgbridge/channel/ActionParams.js"
import type { ActionName } from "../../msgbridge/channel/ActionAvailability.js"
import type { AgentTools } from "../Agent.js"
import type { BrowserToolSession } from "../tool/BrowserTool.js"
import type { ToolResult } from "../tool/toolResult.js"

// The tools a turn offers the model: `browser` (the same Schema and executor as MCP's), the channel's
// message actions that are on for this bridge (message_<action>, their params as `svc message action`
// takes them), and send_screenshot (the current page, sent to the chat). Each answers with text the
// model reads; a failure is an answer with isError, never a failed turn.

export interface ToolOutcome {
  readonly text: string
  readonly isError: boolean
}

export interface TurnTool {
  readonly name: string
  readonly description: string
  readonly jsonSchema: object
  readonly run: (params: unknown) => Effect.Effect<ToolOutcome>
}

/** The browser executor as the agent uses it (agent/tool/BrowserTool.ts's `run`). */
export type BrowserRun = (raw: unknown, session: BrowserToolSession) => Effect.Effect<ToolResult>

const DESCRIPTION = Symbol.for("effect/annotation/Description")

const outcome = (r: ToolResult): ToolOutcome => ({
  text: r.content.map((c) => (c.type === "text" ? c.text : `[${c.mimeType} image, ${c.data.length} bytes]`)).join("\n"),
  isError: r.isError
})

const ACTION_DESCRIPTIONS: Record<ActionName, string> = {
  react: "React (tapback) to a message: emoji love, like, dislike, laugh, emphasize or question; remove: true takes it back.",
  edit: "Edit a message you sent (messageId) to new text.",
  unsend: "Unsend a message you sent (messageId).",
  reply: "Send text as a threaded reply to a message (messageId) in this chat.",
  sendWithEffect: "Send text to this chat with an effect (slam, loud, gentle, invisible-ink, confetti, fireworks, balloons, lasers, heart, celebration, echo, spotlight).",
  renameGroup: "Rename a group chat.",
  setGroupIcon: "Set a group chat's icon from a file (path) or bytes (buffer, base64, with filename).",
  addParticipant: "Add a person (address) to a group chat.",
  removeParticipant: "Remove a person (address) from a group chat.",
  leaveGroup: "Leave a group chat.",
  sendAttachment: "Send a file to this chat: path (under the configured media roots) or buffer (base64) with filename; asVoice for a voice memo."
}

/** Actions whose target defaults to the current chat: `to` is optional for the model. */
const CHAT_DEFAULT = new Set<string>(["reply", "sendWithEffect", "sendAttachment"])

const actionSchema = (name: ActionName): object => {
  const schema = toolInputSchema(ActionParams[name] as Schema.Schema.AnyNoContext) as { required?: Array<string> } & Record<string, unknown>
  if (CHAT_DEFAULT.has(name) && Array.isArray(schema.required)) {
    return { ...schema, required: schema.required.filter((r) => r !== "to") }
  }
  return schema
}

const browserTool = (run: BrowserRun, session: BrowserToolSession): TurnTool => ({
  name: "browser",
  description: (BrowserToolParams.ast.annotations[DESCRIPTION] as string | undefined) ?? "Drive a web browser",
  jsonSchema: toolInputSchema(BrowserToolParams),
  run: (params) => Effect.map(run(params, session), outcome)
})

const actionTool = (name: ActionName, actions: AgentTools["actions"]): TurnTool => ({
  name: `message_${name}`,
  description: ACTION_DESCRIPTIONS[name],
  jsonSchema: actionSchema(name),
  run: (params) =>
    actions.run(name, typeof params === "object" && params !== null ? (params as Record<string, unknown>) : {}).pipe(
      Effect.map((r): ToolOutcome => ({ text: `${name}: done ${JSON.stringify(r)}`, isError: false })),
      Effect.catchAll((e) => Effect.succeed<ToolOutcome>({ text: `${name} failed: ${e.message}`, isError: true }))
    )
})

const ScreenshotParams = Schema.Struct({
  fullPage: Schema.optional(Schema.Boolean).annotations({ description: "the whole page, not only the viewport" }),
  targetId: Schema.optional(Schema.String).annotations({ description: "a tab other than the current one" })
})
const decodeScreenshot = Schema.decodeUnknownEither(ScreenshotParams, { onExcessProperty: "error" })

const screenshotTool = (run: BrowserRun, session: BrowserToolSession, actions: AgentTools["actions"]): TurnTool => ({
  name: "send_screenshot",
  description: "Take a screenshot of the current page (or tab targetId) and send it to this chat as an image.",
  jsonSchema: toolInputSchema(ScreenshotParams),
  run: (params) =>
    Effect.gen(function*() {
      const p = decodeScreenshot(params ?? {})
      if (p._tag === "Left") return { text: `invalid send_screenshot call: ${p.left.message}`, isError: true }
      const shot = yield* run({ action: "screenshot", ...p.right }, session)
      const image = shot.content.find((c) => c.type === "image")
      if (shot.isError || image === undefined || image.type !== "image") return outcome(shot)
      const sent = yield* Effect.either(actions.run("sendAttachment", {
        buffer: Buffer.from(image.data).toString("base64"),
        filename: "screenshot.png"
      }))
      return sent._tag === "Right"
        ? { text: `screenshot sent to the chat (${image.data.length} bytes)`, isError: false }
        : { text: `the screenshot was taken but could not be sent: ${sent.left.message}`, isError: true }
    })
})

/** The tools of one turn. `actions` absent (`svc agent ask`): the browser only. */
export const turnTools = (options: {
  readonly browser: BrowserRun
  readonly session: BrowserToolSession
  readonly actions?: AgentTools["actions"] | undefined
}): Effect.Effect<ReadonlyArray<TurnTool>> =>
  Effect.gen(function*() {
    const tools: Array<TurnTool> = [browserTool(options.browser, options.session)]
    if (options.actions === undefined) return tools
    const actions = options.actions
    const available = yield* actions.available
    const on = new Set(available.filter((a) => a.enabled).map((a) => a.name))
    for (const name of Object.keys(ActionParams) as Array<ActionName>) {
      if (on.has(name)) tools.push(actionTool(name, actions))
    }
    if (on.has("sendAttachment")) tools.push(screenshotTool(options.browser, options.session, actions))
    return tools
  })
