import { Cause, Option, ParseResult } from "effect"
import { hintsFor } from "../client/hints.js"
import { type DecodeIssue, describeIssues } from "../client/issues.js"
import { redactSecrets } from "../domain/redact.js"

// A failed tool call as the one message the agent reads. The gateway's own errors already say what to do
// next (a stale ref: take a fresh snapshot); they are passed on as they are.

/** How a tool's answer begins when the gateway did not answer at all (see gatewayGone). */
const GATEWAY_GONE = "the gateway does not answer"

/** Whether a tool's failed answer says the gateway did not answer (the request never reached it, or it died). */
export const gatewayGone = (result: { readonly isError?: boolean | undefined; readonly content: ReadonlyArray<unknown> }) =>
  result.isError === true && (result.content[0] as { text?: unknown } | undefined)?.text?.toString().startsWith(GATEWAY_GONE) === true

const describe = (error: unknown): string => {
  const e = error as {
    _tag?: string
    message?: string
    reason?: string
    response?: { status: number }
    issues?: ReadonlyArray<DecodeIssue>
  }
  switch (e?._tag) {
    case "ParseError":
      // The shared schema refused the request before it was sent.
      return `invalid arguments: ${describeIssues(ParseResult.isParseError(error) ? ParseResult.ArrayFormatter.formatErrorSync(error) : [])}`
    case "HttpApiDecodeError":
      return `invalid arguments: ${e.issues !== undefined && e.issues.length > 0 ? describeIssues(e.issues) : e.message}`
    case "RequestError":
      return `${GATEWAY_GONE} (${e.message ?? e.reason}); restart the MCP server (svc mcp)`
    case "ResponseError":
      return `the gateway answered HTTP ${e.response?.status ?? "?"} unexpectedly: ${e.message}`
    default:
      return typeof e?.message === "string" && e.message !== "" ? e.message : String(error)
  }
}

/** The gateway's hints name CLI commands; over MCP the same step is a tool. */
export const toolHints = hintsFor("mcp")

export const describeFailure = (cause: Cause.Cause<unknown>): string => {
  const failure = Cause.failureOption(cause)
  const message = Option.isSome(failure) ? describe(failure.value) : `internal error: ${Cause.pretty(cause).split("\n")[0]}`
  return redactSecrets(toolHints(message))
}
