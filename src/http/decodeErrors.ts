import { HttpApiBuilder, HttpApiError } from "@effect/platform"
import { Cause, Effect, Option, type ParseResult } from "effect"
import { ControlApi } from "../api/ControlApi.js"
import { redactSecrets } from "../domain/redact.js"
import { issuesByField } from "../platform/decodeIssues.js"

// A request the control API's schema refuses is answered 400 `HttpApiDecodeError`, as @effect/platform
// does, but with a message an agent can act on in one line: the field and what it takes
// (`kind: expected one of click, type, …, got "clack"`), instead of the schema's whole type printed as a
// tree. `issues` stays (the typed client decodes it) and carries only what the message names.

/** One issue as Schema's ArrayFormatter gives it. */
export type DecodeIssue = ParseResult.ArrayFormatterIssue

/** Fields named in one message; the rest are counted. */
const MAX_FIELDS = 2
/** Keeps the whole body a few lines long, whatever the schema. */
const MAX_MESSAGE_CHARS = 300
const MAX_PART_CHARS = 260

const clip = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s)

const EXPECTED_ACTUAL = /^Expected ([\s\S]+), actual ([\s\S]+)$/

/** A schema literal as a person types it: `click` rather than `"click"`; `""` stays quoted. */
const literalText = (s: string) => {
  if (!s.startsWith("\"")) return s
  try {
    const v: unknown = JSON.parse(s)
    return typeof v === "string" && /^[\w.:/-]+$/.test(v) ? v : s
  } catch {
    return s
  }
}

/** A type the schema prints at length (a whole struct, a long union) named by what it is. */
const typeText = (s: string) => {
  const t = s.trim()
  if (t.length <= 80) return t
  if (t.startsWith("{")) return "a JSON object"
  if (t.startsWith("ReadonlyArray<") || t.startsWith("readonly [")) return "an array"
  return clip(t, 80)
}

/** The alternatives a union member or a literal union offers (`"a" | "b"` → a, b). */
const alternatives = (expected: string): Array<string> => {
  const parts = expected.split(" | ")
  return parts.every((p) => /^"(?:[^"\\]|\\.)*"$/.test(p)) ? parts.map(literalText) : [typeText(expected)]
}

/** What is wrong with one field, from all the issues at its path. */
const describeField = (messages: ReadonlyArray<string>): string => {
  const expected: Array<string> = []
  const other: Array<string> = []
  let got: string | undefined
  for (const message of messages) {
    const m = EXPECTED_ACTUAL.exec(message)
    if (m === null) {
      const first = message.split("\n")[0]!.trim()
      if (first !== "" && !other.includes(first)) other.push(first)
      continue
    }
    // The value quoted back may be a URL with credentials in it: never echoed.
    got ??= clip(redactSecrets(m[2]!.trim()), 60)
    // An optional field's union adds `undefined`: it says nothing about what the field takes.
    if (m[1] === "undefined") continue
    for (const alt of alternatives(m[1]!)) if (!expected.includes(alt)) expected.push(alt)
  }
  const what = other.length > 0
    ? other.join("; ")
    : expected.length > 1
    ? `expected one of ${expected.join(", ")}`
    : expected.length === 1
    ? `expected ${expected[0]}`
    : "expected nothing here"
  // What was given is always said: a long list of what is taken is cut instead.
  const gotPart = got !== undefined && !/\bactual\b|\bgot\b/.test(what) && what !== "is missing" ? `, got ${got}` : ""
  return `${clip(what, MAX_PART_CHARS - gotPart.length)}${gotPart}`
}

/**
 * Issues as one short line naming at most two fields (`ref: is missing; text: is missing`), and the issues
 * behind it (one per field, with the same short text).
 */
export const shortenDecodeIssues = (issues: ReadonlyArray<DecodeIssue>): {
  readonly message: string
  readonly issues: ReadonlyArray<DecodeIssue>
} => {
  const byPath = issuesByField(issues)
  const fields = [...byPath].slice(0, MAX_FIELDS)
  const shown = fields.map(([key, e]) => ({ key, path: e.first.path, tag: e.first._tag, text: describeField(e.messages) }) as const)
  const more = byPath.size - shown.length
  // A message that already names its field (`to must not be empty`) is not prefixed with it again.
  const parts = shown.map((f) =>
    f.key === "" ? `the request body: ${f.text}` : f.text.startsWith(`${f.key} `) ? f.text : `${f.key}: ${f.text}`
  )
  const message = parts.length === 0
    ? "the request does not match the control API's schema"
    : clip(parts.join("; ") + (more > 0 ? `; and ${more} more field(s)` : ""), MAX_MESSAGE_CHARS)
  return { message, issues: shown.map((f): DecodeIssue => ({ _tag: f.tag, path: f.path, message: f.text })) }
}

const isRequestDecodeFailure = (e: unknown): e is { readonly _tag: "RequestError"; readonly reason: "Decode" } =>
  typeof e === "object" && e !== null && (e as { _tag?: unknown })._tag === "RequestError" &&
  (e as { reason?: unknown }).reason === "Decode"

/**
 * The control API's decode errors in their short form; a body that is not JSON at all gets one too (the
 * platform would answer that 400 with an empty body).
 */
export const ShortDecodeErrorsLive = HttpApiBuilder.middleware(ControlApi, (app) =>
  Effect.catchAllCause(app, (cause) => {
    // The platform reads a JSON body with `orDie`: a body that does not parse arrives as a defect.
    const failure: unknown = Option.getOrUndefined(Cause.failureOption(cause)) ??
      Option.getOrUndefined(Cause.dieOption(cause))
    if (failure instanceof HttpApiError.HttpApiDecodeError) {
      const short = shortenDecodeIssues(failure.issues)
      return Effect.fail(new HttpApiError.HttpApiDecodeError({ message: short.message, issues: short.issues }))
    }
    if (isRequestDecodeFailure(failure)) {
      return Effect.fail(
        new HttpApiError.HttpApiDecodeError({
          message: "the request body is not valid JSON; send a JSON object with `content-type: application/json`",
          issues: []
        })
      )
    }
    return Effect.failCause(cause)
  }))
