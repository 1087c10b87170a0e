import { ParseResult } from "effect"
import type { ConfigEditError } from "../config/edit.js"
import { redactSecrets } from "../platform/redact.js"
import type { Connection } from "./Connection.js"

/**
 * Any failure of a CLI command, as the one line a person reads (multi-line messages are folded), with
 * credentials and tokens in the URLs it quotes hidden.
 */
export const describeCliError = (error: unknown, connection?: Connection): string =>
  redactSecrets(describe(error, connection).trim().replace(/\s*\n\s*/g, " | "))

/**
 * What `--json` prints for a failure, inside `{"error": ...}`: the error's tag, its one line, and the HTTP
 * status when the gateway answered with one (null when there was no answer: nothing listening, a bad
 * config, a usage error). A request the shared schema refuses is reported as the gateway would answer it
 * (HttpApiDecodeError, 400) without being sent.
 */
export interface CliErrorJson {
  readonly _tag: string
  readonly message: string
  readonly status: number | null
}

/** A decode issue as @effect/platform's HttpApiDecodeError and Schema's ArrayFormatter give them. */
export interface DecodeIssue {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

const describe = (error: unknown, connection?: Connection): string => {
  const e = error as {
    _tag?: string
    message?: string
    reason?: string
    response?: { status: number }
    issues?: ReadonlyArray<DecodeIssue>
  }
  switch (e?._tag) {
    case "ConfigEditError":
      return describeConfigEdit(error as ConfigEditError)
    case "ConnectionError":
    case "GatewayRunError":
    case "UsageError":
    case "CliFailure":
    case "UnexpectedResponse":
      return e.message ?? String(error)
    case "RequestError":
      return connection === undefined
        ? `cannot reach the gateway: ${e.message}`
        : `the gateway is not running (nothing answers on 127.0.0.1:${connection.controlPort}); start it with \`svc gateway run\``
    case "ResponseError":
      return `the gateway answered HTTP ${e.response?.status ?? "?"} unexpectedly: ${e.message}`
    case "ParseError":
      // Only a request the CLI could not encode reaches here: ControlClient turns a response that does not
      // decode into UnexpectedResponse.
      return `invalid request: ${describeIssues(parseErrorIssues(error))}`
    case "HttpApiDecodeError":
      return `invalid request: ${e.issues !== undefined && e.issues.length > 0 ? describeIssues(e.issues) : e.message}`
    case "InvalidRequest":
    case "Unauthorized":
    case "Forbidden":
    case "NotFound":
    case "Conflict":
    case "BrowserUnavailable":
    case "NotImplemented":
    case "PayloadTooLarge":
    case "BadGateway":
    case "InternalError":
      return e.message ?? e._tag
    default:
      return error instanceof Error ? error.message : typeof e?.message === "string" ? e.message : String(error)
  }
}

/** The tag `--json` reports for an error (a few platform tags get a name that says what happened). */
export const cliErrorTag = (error: unknown, connection?: Connection): string => {
  const e = error as { _tag?: string; reason?: string }
  if (e?._tag === "RequestError" && e.reason === "Transport" && connection !== undefined) return "GatewayNotRunning"
  if (e?._tag === "ParseError") return "HttpApiDecodeError"
  return typeof e?._tag === "string" ? e._tag : "Error"
}

const parseErrorIssues = (error: unknown): ReadonlyArray<DecodeIssue> =>
  ParseResult.isParseError(error) ? ParseResult.ArrayFormatter.formatErrorSync(error) : []

const pathText = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>(
    (text, key) => typeof key === "number" ? `${text}[${key}]` : text === "" ? String(key) : `${text}.${String(key)}`,
    ""
  )

const expectedActual = /^Expected (.+), actual (.+)$/s

/**
 * Decode issues as one short line naming each field: `limit: expected a whole number from 1 to 10000000,
 * got 0`. The members an optional field's union adds (`Expected undefined, actual 0`) only lend the value.
 */
export const describeIssues = (issues: ReadonlyArray<DecodeIssue>): string => {
  const byPath = new Map<string, Array<string>>()
  for (const issue of issues) {
    const key = pathText(issue.path)
    const list = byPath.get(key) ?? []
    if (!list.includes(issue.message)) list.push(issue.message)
    byPath.set(key, list)
  }
  const parts: Array<string> = []
  for (const [key, messages] of byPath) {
    let got: string | undefined
    const expected: Array<string> = []
    const other: Array<string> = []
    for (const message of messages) {
      const m = expectedActual.exec(message)
      if (m !== null) {
        got = m[2]
        if (m[1] !== "undefined") expected.push(m[1]!)
      } else other.push(message.split("\n")[0]!)
    }
    const what = [
      ...(expected.length > 0 ? [`expected ${expected.join(" | ")}`] : []),
      ...other
    ]
    if (what.length === 0 && got !== undefined) what.push("expected nothing here")
    const text = what.join("; ") + (got !== undefined && !what.some((w) => w.includes(" actual ")) ? `, got ${got}` : "")
    parts.push(key === "" ? text : text === "is missing" ? `${key} is missing` : `${key}: ${text}`)
  }
  return parts.length === 0 ? "the request does not match the control API's schema" : parts.join("; ")
}

const describeConfigEdit = (e: ConfigEditError): string => {
  switch (e.stage) {
    case "read":
      return `cannot read ${e.file}: ${e.detail}`
    case "invalid":
      return `not saved: ${e.detail}`
    case "write":
      return `cannot write ${e.file}: ${e.detail}`
  }
}
