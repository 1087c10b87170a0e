import { McpSchema } from "@effect/ai"
import { Effect, Either, ParseResult, Schema } from "effect"
import * as fs from "node:fs/promises"
import type { ControlClient } from "../client/ControlClient.js"
import { describeIssues } from "../client/issues.js"
import { toolInputSchema } from "../platform/toolSchema.js"
import { saveInDownloads } from "../browser/inspect/Files.js"
import { describeFailure } from "./failures.js"

// One MCP tool, declared once: its input is an Effect Schema, from which both the JSON Schema the client
// lists and the decoder of each call's arguments derive. Its body makes one call of the control API and
// says what happened; any failure becomes `isError: true` with a message the agent can act on.

/**
 * A field of a tool's input, with what it is for. The description sits on the field, not on its type: the
 * JSON Schema shows it all the same, and a bad value is said by its type ("expected a string at least 1
 * character(s) long, got \"\""), not by the description.
 */
export const field = <S extends Schema.Schema.Any>(schema: S, description: string) =>
  Schema.propertySignature(schema).annotations({ description })

/** An optional field of a tool's input, with what it is for (see `field`). */
export const optionalField = <S extends Schema.Schema.Any>(schema: S, description: string) =>
  Schema.optional(schema).annotations({ description })

/** What a tool's body may use: the typed client of the gateway and the query every call carries. */
export interface ToolEnv {
  readonly client: ControlClient
  readonly query: { readonly profile?: string }
  /** `svc mcp --sandbox`: the session may drive only the sandbox browser (see agent/tool/targetRouting.ts). */
  readonly sandboxed: boolean
  /** The bytes of a file the gateway wrote (a screenshot): the gateway runs on this machine. */
  readonly readFile: (path: string) => Effect.Effect<Uint8Array, ToolFailure>
}

/** A tool's answer: plain text, or content parts (an image with its caption). */
export type ToolAnswer = string | ReadonlyArray<typeof McpSchema.ContentBlock.Type>

/** ToolEnv.readFile for a gateway on this machine. */
export const readLocalFile = (path: string): Effect.Effect<Uint8Array, ToolFailure> =>
  Effect.tryPromise({
    try: () => fs.readFile(path).then((b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength)),
    catch: (e) => new ToolFailure(`cannot read ${path}: ${(e as Error).message}`)
  })

/** A failure the tool itself reports (a bad argument, a missing file), already worded for the agent. */
export class ToolFailure {
  readonly _tag = "ToolFailure"
  constructor(readonly message: string) {}
}

export interface McpTool {
  readonly tool: McpSchema.Tool
  readonly handle: (payload: unknown, env: ToolEnv) => Effect.Effect<McpSchema.CallToolResult>
}

export interface ToolSpec<A, I> {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly input: Schema.Schema<A, I>
  /** Reads the page or the browser and changes nothing. */
  readonly readOnly: boolean
  /** May undo or lose something (leave a page, submit, close, clear); meaningful when not read-only. */
  readonly destructive?: boolean
  /** Repeating the call with the same arguments changes nothing more. */
  readonly idempotent?: boolean
  readonly run: (input: A, env: ToolEnv) => Effect.Effect<ToolAnswer, unknown>
}

/** The JSON Schema of a tool's input: a flat object, as MCP clients and model APIs expect. */
export const inputJsonSchema = (schema: Schema.Schema<any, any>): Record<string, unknown> => {
  const json = toolInputSchema(schema)
  // An empty struct comes out as "any object or array": MCP wants an object.
  return json.type === "object" ? withoutTitles(json) : { type: "object", properties: {}, additionalProperties: false }
}

/** The titles JSONSchema.make gives refinements (`minLength(1)`) say nothing to a model: the descriptions do. */
const withoutTitles = (json: unknown, keys = false): any =>
  Array.isArray(json)
    ? json.map((j) => withoutTitles(j))
    : typeof json === "object" && json !== null
    ? Object.fromEntries(
      Object.entries(json).filter(([k, v]) => keys || k !== "title" || typeof v !== "string").map((
        [k, v]
      ) => [k, withoutTitles(v, k === "properties")])
    )
    : json

export const text = (t: string): McpSchema.CallToolResult => new McpSchema.CallToolResult({ content: [{ type: "text", text: t }] })

export const failedResult = (message: string): McpSchema.CallToolResult =>
  new McpSchema.CallToolResult({ isError: true, content: [{ type: "text", text: message }] })

export const defineTool = <A, I>(spec: ToolSpec<A, I>): McpTool => {
  const decode = Schema.decodeUnknownEither(spec.input, { errors: "all" })
  return {
    tool: new McpSchema.Tool({
      name: spec.name,
      title: spec.title,
      description: spec.description,
      inputSchema: inputJsonSchema(spec.input),
      annotations: new McpSchema.ToolAnnotations({
        title: spec.title,
        readOnlyHint: spec.readOnly,
        destructiveHint: spec.readOnly ? false : spec.destructive ?? false,
        idempotentHint: spec.readOnly ? true : spec.idempotent ?? false,
        openWorldHint: true
      })
    }),
    handle: (payload, env) => {
      const input = decode(payload ?? {})
      if (Either.isLeft(input)) {
        const issues = describeIssues(ParseResult.ArrayFormatter.formatErrorSync(input.left))
        return Effect.succeed(failedResult(`invalid arguments for ${spec.name}: ${issues}`))
      }
      return spec.run(input.right, env).pipe(
        Effect.map((answer) =>
          typeof answer === "string" ? text(answer) : new McpSchema.CallToolResult({ content: answer })
        ),
        Effect.catchAllCause((cause) => Effect.succeed(failedResult(describeFailure(cause))))
      )
    }
  }
}

/** Playwright MCP's filename on tools that answer text: the answer goes to a file instead. */
export const filenameField = {
  filename: optionalField(
    Schema.String.pipe(Schema.minLength(1)),
    "save the answer as this file in svc's downloads root instead of answering it (never over an existing file)"
  )
}

/** The answer as it is, or saved as `filename` in the downloads root and answered by its path. */
export const answerOrSave = (filename: string | undefined) => (text: string) =>
  filename === undefined
    ? Effect.succeed(text)
    : Effect.map(saveInDownloads(filename, Buffer.from(text, "utf8")), (file) => `Saved to ${file} (${text.length} characters)`)

/**
 * The element a tool acts on: `ref` as Playwright MCP names it, or `target` as svc's `browser` tool does.
 * Neither given is a bad argument named as such.
 */
export const elementRef = (input: { readonly ref?: string | undefined; readonly target?: string | undefined }) =>
  input.ref !== undefined
    ? Effect.succeed(input.ref)
    : input.target !== undefined
    ? Effect.succeed(input.target)
    : Effect.fail(
      new ToolFailure("ref is missing: pass the element's ref as the snapshot shows it ([ref=12] → \"12\"); `target` is accepted too")
    )
