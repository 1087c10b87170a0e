import { ParseResult } from "effect"
import type { ConfigEditError } from "../config/edit.js"
import { redactSecrets } from "../domain/redact.js"
import type { Connection } from "../client/Connection.js"
import { type DecodeIssue, describeIssues } from "../client/issues.js"

export { type DecodeIssue, describeIssues }

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
    case "McpRunError":
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
