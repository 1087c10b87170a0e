import type { InboundContext } from "../Agent.js"

// What the model is told: who it is, the channel's rules, the time, the chat; then the person's message
// with what the channel collected around it (the group's recent messages, media saved on this machine,
// notes about what could not be fetched).

const DEFAULT_INSTRUCTIONS = [
  "You are svc's assistant: a person writes to you over a text-messaging chat, and you can act for them in a web",
  "browser (the `browser` tool) and in the chat itself (the message_* tools, when offered).",
  "To work on a page: take a snapshot (action snapshot), then act on the refs it shows (action act with",
  "request {kind: click|type|fill|press|select|..., ref}); take a new snapshot after the page changes.",
  "When a tool answers with an error, read it: it says what went wrong and how to fix the call."
].join(" ")

const CHANNEL_RULES = [
  "The chat is a phone's messaging app: keep replies short and plain (a few sentences), no Markdown tables,",
  "no headings, no code blocks unless asked. Say what you did and what you found; do not narrate every step."
].join(" ")

export interface PromptSettings {
  readonly systemPrompt: string | undefined
  readonly now: Date
  readonly tools: ReadonlyArray<string>
}

export const systemPrompt = (context: InboundContext | undefined, settings: PromptSettings): string => {
  const lines = [settings.systemPrompt ?? DEFAULT_INSTRUCTIONS, "", CHANNEL_RULES, "", `Current time: ${settings.now.toISOString()}.`]
  if (context !== undefined && context.channel !== "cli") {
    lines.push(
      context.isGroup
        ? `Chat: a group chat (${context.chatGuid}); messages show their sender.`
        : `Chat: a direct chat with ${context.sender} (${context.chatGuid}).`,
      "Message ids: the person's current message is MessageSid; use it for reactions or threaded replies."
    )
  }
  lines.push(`Tools: ${settings.tools.join(", ")}.`)
  return lines.join("\n")
}

/** The user message for this turn: the text, and what came with it. */
export const userText = (context: InboundContext): string => {
  const parts: Array<string> = []
  if ((context.history ?? []).length > 0) {
    parts.push("[Recent messages in this chat, oldest first]")
    for (const h of context.history ?? []) parts.push(`${h.fromMe === true ? "you" : h.sender}: ${h.text}`)
    parts.push("[Current message]")
  }
  const who = context.isGroup ? `${context.sender}: ` : ""
  const text = context.system !== undefined ? `(${context.system})` : context.text
  parts.push(`${who}${text}${context.messageSid !== "" ? ` [MessageSid ${context.messageSid}]` : ""}`)
  if (context.replyToId !== undefined) parts.push(`(in reply to message ${context.replyToId})`)
  for (const m of context.media ?? []) {
    parts.push(`[attachment ${m.name}${m.mimeType !== undefined ? `, ${m.mimeType}` : ""}, ${m.size} bytes, saved at ${m.path}]`)
  }
  for (const n of context.notes ?? []) parts.push(`(${n})`)
  return parts.join("\n")
}
