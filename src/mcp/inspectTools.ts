import { Effect, Schema } from "effect"
import { requestDetailText, requestPartText } from "../client/requestDetail.js"
import type { ResponseBodyResult } from "../domain/browserState.js"
import { consoleLines } from "./results.js"
import { answerOrSave, defineTool, field, filenameField, optionalField } from "./tool.js"

// What the tab logged and requested, its dialogs and file choosers, and traces.

/** A body an agent reads whole: past this it is cut (the caller can ask for more). */
const DEFAULT_BODY_CHARS = 20_000

export const consoleMessages = defineTool({
  name: "browser_console_messages",
  title: "Console messages",
  description: "What the current tab logged to its console since the gateway attached (at most 500 kept), with its " +
    "uncaught errors among them as DevTools shows them (browser_errors has them alone, with the dialogs nobody answered).",
  input: Schema.Struct({
    level: optionalField(
      Schema.Literal("debug", "log", "info", "warning", "error"),
      "only messages of this level and above; default info (debug messages and the browser's verbose hints left out, as DevTools does)"
    ),
    all: optionalField(
      Schema.Boolean,
      "Playwright MCP's switch for messages from before the last navigation: svc always answers every message kept"
    ),
    ...filenameField
  }),
  readOnly: true,
  run: (input, env) =>
    Effect.all([
      env.client.observe.console({ urlParams: { ...env.query, level: input.level ?? "info" } }),
      env.client.observe.errors({ urlParams: env.query })
    ], { concurrency: 2 }).pipe(
      Effect.map(([logged, thrown]) => {
        const lines = consoleLines(logged.entries, thrown.entries)
        return lines.length === 0 ? "No console messages." : lines.join("\n")
      }),
      Effect.flatMap(answerOrSave(input.filename))
    )
})

export const networkRequests = defineTool({
  name: "browser_network_requests",
  title: "Network requests",
  description: "The requests the current tab made since the gateway attached (at most 500 kept), oldest first, each " +
    "ending with its #n for browser_network_request (headers, posted data).",
  input: Schema.Struct({
    filter: optionalField(
      Schema.String.pipe(Schema.minLength(1)),
      "only requests whose URL contains this text, or matches it as a regular expression (e.g. \"/api/.*user\")"
    ),
    static: optionalField(
      Schema.Boolean,
      "false: leave out images, fonts, stylesheets, scripts and media that loaded fine (default true: every request)"
    ),
    includeStatic: optionalField(Schema.Boolean, "the same as static (Playwright MCP's name)"),
    clear: optionalField(Schema.Boolean, "forget them after answering"),
    ...filenameField
  }),
  readOnly: true,
  run: ({ filename, includeStatic, ...input }, env) =>
    env.client.observe.requests({
      urlParams: { ...env.query, ...input, ...(input.static === undefined && includeStatic !== undefined ? { static: includeStatic } : {}) }
    }).pipe(
      Effect.map((r) =>
        r.entries.length === 0
          ? "No requests."
          : r.entries.map((e) =>
            `[${e.method}] ${e.url} => ${
              e.state === "finished" ? `[${e.status ?? "?"}]` : e.state === "failed" ? `failed: ${e.failure ?? "?"}` : "pending"
            } ${e.resourceType} #${e.seq}`
          ).join("\n")
      ),
      Effect.flatMap(answerOrSave(filename))
    )
})

export const networkRequest = defineTool({
  name: "browser_network_request",
  title: "Network request details",
  description: "One request of the current tab in full: the headers it was sent with and answered with, and the data " +
    "it posted. Its number is the #n that ends its line in browser_network_requests; its body is browser_response_body's.",
  input: Schema.Struct({
    index: field(Schema.Int.pipe(Schema.between(1, Number.MAX_SAFE_INTEGER)), "the request's #n from browser_network_requests"),
    part: optionalField(
      Schema.Literal("request-headers", "request-body", "response-headers", "response-body"),
      "only this part (response-body: the body it was answered with, cut at 20,000 characters)"
    ),
    ...filenameField
  }),
  readOnly: true,
  run: ({ filename, index, part }, env) =>
    (part === "response-body"
      ? env.client.observe.responseBody({ urlParams: env.query, payload: { seq: index, maxChars: DEFAULT_BODY_CHARS } }).pipe(Effect.map(bodyText))
      : env.client.observe.request({ urlParams: { ...env.query, seq: index } }).pipe(
        Effect.map((r) => (part === undefined ? requestDetailText(r) : requestPartText(r, part)))
      )).pipe(Effect.flatMap(answerOrSave(filename)))
})

export const responseBody = defineTool({
  name: "browser_response_body",
  title: "Response body",
  description: "The body of the latest response the current tab received from a URL (see browser_network_requests): " +
    "waits a moment for one that has not come yet. Text as it is, a binary body as base64; long bodies are cut.",
  input: Schema.Struct({
    url: field(Schema.String.pipe(Schema.minLength(1)), "the response's URL, or a glob of it (* and ** match), e.g. **/api/items"),
    maxChars: optionalField(Schema.Int.pipe(Schema.between(1, 1_000_000)), "cut the body at this many characters (default 20,000)"),
    timeout: optionalField(Schema.Int.pipe(Schema.between(1, 120_000)), "how long to wait for a matching response, in ms (default 5,000)")
  }),
  readOnly: true,
  run: (input, env) =>
    env.client.observe.responseBody({
      urlParams: env.query,
      payload: {
        url: input.url,
        maxChars: input.maxChars ?? DEFAULT_BODY_CHARS,
        ...(input.timeout !== undefined ? { timeoutMs: input.timeout } : {})
      }
    }).pipe(Effect.map(bodyText))
})

/** A response body under a line saying what it is. */
const bodyText = (r: typeof ResponseBodyResult.Type) =>
  `HTTP ${r.status} ${r.url} (${r.contentType ?? "no content type"}, ${r.bytes} bytes${r.encoding === "base64" ? ", binary: base64 below" : ""}` +
  `${r.truncated ? ", cut" : ""})\n${r.body}`

export const pageErrors = defineTool({
  name: "browser_errors",
  title: "Page errors",
  description: "Uncaught errors the current tab threw, and dialogs nobody answered (dismissed so the tab kept working).",
  input: Schema.Struct({ clear: optionalField(Schema.Boolean, "forget them after answering") }),
  readOnly: true,
  run: (input, env) =>
    env.client.observe.errors({ urlParams: { ...env.query, ...input } }).pipe(
      Effect.map((r) => {
        const lines = [
          ...r.entries.map((e) => `${e.name}: ${e.message}`),
          ...r.dialogs.map((d) => `dialog ${d.type} ${JSON.stringify(d.message)} was ${d.answer}`)
        ]
        return lines.length === 0 ? "No errors." : lines.join("\n")
      })
    )
})

export const handleDialog = defineTool({
  name: "browser_handle_dialog",
  title: "Answer dialogs",
  description: "Answer the alert, confirm or prompt the last action left open (its answer says so). With none open, " +
    "choose how the tab's next dialog is answered.",
  input: Schema.Struct({
    accept: field(Schema.Boolean, "accept (true) or dismiss (false)"),
    promptText: optionalField(Schema.String, "for a prompt: the text to accept it with")
  }),
  readOnly: false,
  destructive: true,
  run: (input, env) =>
    env.client.observe.dialog({ urlParams: env.query, payload: input }).pipe(Effect.map((r) => r.detail))
})

export const fileUpload = defineTool({
  name: "browser_file_upload",
  title: "Upload files",
  description: "Give files to the page: with ref, set that file input now; without, the file chooser the last action " +
    "opened gets them, or, when none is open, the next one the page opens (then call it before the click that opens it). " +
    "Paths must be in svc's uploads root (/tmp/svc/uploads).",
  input: Schema.Struct({
    paths: field(Schema.Array(Schema.String).pipe(Schema.minItems(1)), "the files"),
    ref: optionalField(Schema.String.pipe(Schema.minLength(1)), "a file input's ref"),
    target: optionalField(Schema.String.pipe(Schema.minLength(1)), "the same as ref")
  }),
  readOnly: false,
  destructive: true,
  run: (input, env) => {
    const ref = input.ref ?? input.target
    return env.client.files.fileChooser({
      urlParams: env.query,
      payload: { paths: input.paths, ...(ref !== undefined ? { inputRef: ref } : {}) }
    }).pipe(Effect.map((r) => r.detail))
  }
})

export const trace = defineTool({
  name: "browser_trace",
  title: "Trace",
  description: "Record a Playwright trace of the current tab: start, then stop answers the trace file's path.",
  input: Schema.Struct({ action: field(Schema.Literal("start", "stop"), "start or stop recording") }),
  readOnly: false,
  run: (input, env) =>
    input.action === "start"
      ? env.client.observe.traceStart({ urlParams: env.query, payload: { screenshots: true, snapshots: true } }).pipe(
        Effect.as("Recording a trace; browser_trace {action: \"stop\"} saves it")
      )
      : env.client.observe.traceStop({ urlParams: env.query, payload: {} }).pipe(
        Effect.map((r) => `Saved the trace: ${r.path} (${r.bytes} bytes)`)
      )
})
