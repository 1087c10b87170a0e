import { BrowserUnavailable, NotFound } from "../../domain/errors.js"
import type { CdpEndpoint } from "./endpoints.js"
import { redactSecrets } from "../../domain/redact.js"
import type { CdpProtocolError, SendError } from "./socket/connection.js"

// What the CDP layer tells a person (or a model) when a browser or a tab cannot be reached, with the next
// step to take. Endpoints always appear redacted.

export const startHint =
  "If it is the managed browser, start it with `svc browser start`; if it is a remote browser, check the profile's cdpUrl and that the browser runs with --remote-debugging-port."

export const tabsHint = "run `svc browser tabs` to list the open tabs and their targetIds"

export const unreachable = (ep: CdpEndpoint, reason: string) =>
  new BrowserUnavailable({ message: `no browser answers CDP at ${redactSecrets(ep.url)} (${reason}). ${startHint}` })

export const notFound = (ep: CdpEndpoint, targetId: string) =>
  new NotFound({
    message: `no tab with targetId ${JSON.stringify(targetId)} in the browser at ${redactSecrets(ep.url)}; ${tabsHint}`
  })

export const dropped = (ep: CdpEndpoint, method: string) =>
  new BrowserUnavailable({
    message: `the CDP connection to ${redactSecrets(ep.url)} closed while sending ${method}: the browser exited, ` +
      `crashed or dropped the client. Check it with \`svc browser status\`; ${startHint}`
  })

const AUTH_FAILED = "authentication failed: "

/** The endpoint refused the credentials (HTTP 401 or 403 on /json/* or on the websocket upgrade). */
export const authenticationFailed = (what: string, status: number, withCredentials: boolean, note = "") =>
  new BrowserUnavailable({
    message: `${AUTH_FAILED}${what} answered HTTP ${status}. ` +
      (withCredentials
        ? "Check the user and password in cdpUrl (http://user:password@host:port; svc sends them as HTTP Basic)."
        : "Give the credentials in cdpUrl: http://user:password@host:port (sent as HTTP Basic), or the " +
          "service's own ?token=... .") +
      note
  })

export const isAuthenticationFailure = (e: { readonly message: string }) => e.message.startsWith(AUTH_FAILED)

/** Whether a URL carries credentials in its userinfo. */
export const hasUserinfo = (url: string) => /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(url)

const isNoTarget = (e: CdpProtocolError) => /no target with given id|target not found|no such target/i.test(e.message)

const refused = (ep: CdpEndpoint, e: CdpProtocolError) =>
  new BrowserUnavailable({ message: `the browser at ${redactSecrets(ep.url)} refused ${e.method}: ${e.message}` })

/** Maps a protocol error about `targetId` to NotFound when the target is gone, to BrowserUnavailable otherwise. */
export const targetError = (ep: CdpEndpoint, targetId: string) => (e: SendError): NotFound | BrowserUnavailable =>
  e._tag === "CdpProtocolError" ? (isNoTarget(e) ? notFound(ep, targetId) : refused(ep, e)) : e

/** A protocol error as BrowserUnavailable naming the method the browser refused. */
export const protocolToUnavailable = (ep: CdpEndpoint) => (e: SendError): BrowserUnavailable =>
  e._tag === "CdpProtocolError" ? refused(ep, e) : e

/** A network failure in a few words (the error's code when it has a known one, else its innermost message). */
export const describeError = (e: unknown): string => {
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code
    if (code === "ECONNREFUSED") return "connection refused"
    if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "host not found"
    if (code === "ECONNRESET") return "connection reset"
    const cause = (e as { cause?: unknown }).cause
    if (cause !== undefined && cause !== e) return describeError(cause)
    return e.message
  }
  return String(e)
}
