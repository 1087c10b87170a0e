import type { ConfigEditError } from "../config/edit.js"
import type { Connection } from "./Connection.js"

/** Any failure of a CLI command, as the one line a person reads (multi-line messages are folded). */
export const describeCliError = (error: unknown, connection?: Connection): string =>
  describe(error, connection).trim().replace(/\s*\n\s*/g, " | ")

const describe = (error: unknown, connection?: Connection): string => {
  const e = error as { _tag?: string; message?: string; reason?: string; response?: { status: number } }
  switch (e?._tag) {
    case "ConfigEditError":
      return describeConfigEdit(error as ConfigEditError)
    case "ConnectionError":
    case "GatewayRunError":
    case "UsageError":
      return e.message ?? String(error)
    case "RequestError":
      return connection === undefined
        ? `cannot reach the gateway: ${e.message}`
        : `the gateway is not running (nothing answers on 127.0.0.1:${connection.controlPort}); start it with \`svc gateway run\``
    case "ResponseError":
      return `the gateway answered HTTP ${e.response?.status ?? "?"} unexpectedly: ${e.message}`
    case "ParseError":
      return `the gateway's answer did not match this CLI's schema (is the gateway a different version?): ${e.message}`
    case "HttpApiDecodeError":
      return `invalid request: ${e.message}`
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
