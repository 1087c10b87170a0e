import * as http from "node:http"
import type { AddressInfo } from "node:net"

// A language-model provider on a loopback port, speaking the two wire formats the agent's providers use:
// Anthropic Messages (`POST /v1/messages`, tool_use blocks) and OpenAI Responses (`POST /v1/responses`,
// function_call items). Each test scripts the turns it answers and reads back the requests it got (the
// system prompt, the history, the tool results the model was sent).

/** A tool call the scripted model makes. */
export interface ScriptedCall {
  readonly name: string
  readonly input: Record<string, unknown>
}

/** One scripted answer: text and/or tool calls, or an HTTP failure, optionally after a delay. */
export type ScriptedAnswer =
  | { readonly text?: string; readonly calls?: ReadonlyArray<ScriptedCall>; readonly delayMs?: number }
  | { readonly status: number; readonly error: { readonly type: string; readonly message: string }; readonly delayMs?: number }

/** What the model was sent, in provider-neutral words. */
export interface ModelRequest {
  readonly provider: "anthropic" | "openai"
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: Record<string, unknown>
  /** The system prompt. */
  readonly system: string
  /** Tool names offered. */
  readonly tools: ReadonlyArray<string>
  /** Every tool result in the request, oldest first. */
  readonly toolResults: ReadonlyArray<{ readonly id: string; readonly content: string; readonly isError: boolean }>
  /** The user and assistant texts, oldest first, as `role: text`. */
  readonly texts: ReadonlyArray<string>
}

/** A script step: an answer, or a function of the request it answers (to click a ref the snapshot gave). */
export type ScriptStep = ScriptedAnswer | ((request: ModelRequest) => ScriptedAnswer)

export interface FakeModel {
  /** Base URL: agent.apiUrl for anthropic; `${url}/v1` for openai. */
  readonly url: string
  readonly requests: Array<ModelRequest>
  /** Queue answers; when the queue is empty the model answers `fallback` (default: text "ok"). */
  readonly script: (...steps: ReadonlyArray<ScriptStep>) => void
  fallback: ScriptStep
  /** Requests waiting for `release()` (see hold). */
  readonly held: () => number
  /** Hold every request until release() (a model that thinks for a long time). */
  readonly hold: () => void
  readonly release: () => void
  readonly close: () => Promise<void>
}

/** A tool result's text: @effect/ai sends a string result JSON-encoded (a quoted string); read it back. */
const text = (v: unknown): string => {
  if (typeof v !== "string") return JSON.stringify(v)
  if (v.startsWith("\"")) {
    try {
      return String(JSON.parse(v))
    } catch {
      return v
    }
  }
  return v
}

const readAnthropic = (body: Record<string, unknown>) => {
  const system = Array.isArray(body.system)
    ? (body.system as Array<{ text: string }>).map((s) => s.text).join("\n")
    : typeof body.system === "string" ? body.system : ""
  const toolResults: Array<ModelRequest["toolResults"][number]> = []
  const texts: Array<string> = []
  for (const m of (body.messages as Array<{ role: string; content: unknown }>) ?? []) {
    const parts = typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content as Array<Record<string, unknown>>)
    for (const p of parts) {
      if (p.type === "text") texts.push(`${m.role}: ${p.text as string}`)
      if (p.type === "tool_result") toolResults.push({ id: p.tool_use_id as string, content: text(p.content), isError: p.is_error === true })
    }
  }
  const tools = ((body.tools as Array<{ name: string }>) ?? []).map((t) => t.name)
  return { system, toolResults, texts, tools }
}

const readOpenAi = (body: Record<string, unknown>) => {
  let system = typeof body.instructions === "string" ? body.instructions : ""
  const toolResults: Array<ModelRequest["toolResults"][number]> = []
  const texts: Array<string> = []
  const input = typeof body.input === "string" ? [{ role: "user", content: body.input }] : (body.input as Array<Record<string, unknown>>) ?? []
  for (const item of input) {
    if (item.type === "function_call_output") {
      toolResults.push({ id: item.call_id as string, content: text(item.output), isError: false })
      continue
    }
    if (item.role === undefined) continue
    const parts = typeof item.content === "string" ? [{ text: item.content }] : (item.content as Array<{ text?: string }>) ?? []
    const joined = parts.map((p) => p.text ?? "").join("")
    if (item.role === "system" || item.role === "developer") system += joined
    else texts.push(`${item.role as string}: ${joined}`)
  }
  const tools = ((body.tools as Array<{ name: string }>) ?? []).map((t) => t.name)
  return { system, toolResults, texts, tools }
}

let ids = 0
const nextId = (prefix: string) => `${prefix}_${(++ids).toString(36)}${Date.now().toString(36)}`

const anthropicMessage = (model: string, a: { text?: string; calls?: ReadonlyArray<ScriptedCall> }) => {
  const content: Array<Record<string, unknown>> = []
  if (a.text !== undefined) content.push({ type: "text", text: a.text })
  for (const c of a.calls ?? []) content.push({ type: "tool_use", id: nextId("toolu"), name: c.name, input: c.input })
  return {
    id: nextId("msg"),
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: (a.calls ?? []).length > 0 ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 100, output_tokens: 20 }
  }
}

const openAiResponse = (model: string, a: { text?: string; calls?: ReadonlyArray<ScriptedCall> }) => {
  const output: Array<Record<string, unknown>> = []
  if (a.text !== undefined) {
    output.push({
      type: "message",
      id: nextId("msg"),
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: a.text, annotations: [] }]
    })
  }
  for (const c of a.calls ?? []) {
    output.push({ type: "function_call", id: nextId("fc"), call_id: nextId("call"), name: c.name, arguments: JSON.stringify(c.input), status: "completed" })
  }
  return {
    id: nextId("resp"),
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: "completed",
    model,
    output,
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
    temperature: 1,
    top_p: 1,
    metadata: {},
    error: null,
    incomplete_details: null,
    instructions: null,
    usage: { input_tokens: 100, output_tokens: 20, total_tokens: 120, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } }
  }
}

export const startFakeModel = async (): Promise<FakeModel> => {
  const requests: Array<ModelRequest> = []
  const queue: Array<ScriptStep> = []
  let holding = false
  const waiting: Array<() => void> = []
  const model: FakeModel = {
    url: "",
    requests,
    script: (...steps) => void queue.push(...steps),
    fallback: { text: "ok" },
    held: () => waiting.length,
    hold: () => void (holding = true),
    release: () => {
      holding = false
      for (const w of waiting.splice(0)) w()
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  }
  const server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", async () => {
      const path = req.url ?? "/"
      const provider = path.startsWith("/v1/messages") ? "anthropic" : path.startsWith("/v1/responses") ? "openai" : undefined
      if (req.method !== "POST" || provider === undefined) {
        res.writeHead(404, { "content-type": "application/json" })
        res.end(JSON.stringify({ error: { type: "not_found_error", message: `no route ${req.method} ${path}` } }))
        return
      }
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>
      const read = provider === "anthropic" ? readAnthropic(body) : readOpenAi(body)
      const request: ModelRequest = { provider, path, headers: req.headers, body, ...read }
      requests.push(request)
      if (holding) {
        await new Promise<void>((resolve) => waiting.push(resolve))
        // Its caller went away meanwhile (a stopped gateway): it takes no scripted answer.
        if (req.socket.destroyed) return
      }
      const step = queue.length > 0 ? queue.shift()! : model.fallback
      let answer: ScriptedAnswer
      try {
        answer = typeof step === "function" ? step(request) : step
      } catch (e) {
        // A script that cannot answer (the test's expectation failed): a 400, which is not retried.
        answer = { status: 400, error: { type: "invalid_request_error", message: `fake model script failed: ${(e as Error).message}` } }
      }
      if (answer.delayMs !== undefined) await new Promise((r) => setTimeout(r, answer.delayMs))
      if (res.destroyed) return
      const modelName = typeof body.model === "string" ? body.model : "fake"
      if ("status" in answer) {
        res.writeHead(answer.status, { "content-type": "application/json" })
        res.end(JSON.stringify(
          provider === "anthropic"
            ? { type: "error", error: answer.error }
            : { error: { message: answer.error.message, type: answer.error.type, param: null, code: answer.error.type } }
        ))
        return
      }
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify(provider === "anthropic" ? anthropicMessage(modelName, answer) : openAiResponse(modelName, answer)))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  ;(model as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return model
}
