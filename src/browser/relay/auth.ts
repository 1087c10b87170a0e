import type * as http from "node:http"
import { hostnameOf, isLoopbackAddress, isLoopbackHostname } from "../../platform/loopback.js"
import { secretEquals } from "../../platform/secrets.js"
import { relayToken } from "./token.js"

// Who may use the relay. Every connection must come from loopback and name a loopback Host (DNS rebinding).
// CDP clients carry the gateway's secret: `Authorization: Bearer <token>`, HTTP Basic whose password is the
// token or the gateway password (what a `http://user:secret@host` endpoint URL sends), `x-svc-password`, or
// `?token=`; never an Origin (a web page's websocket always has one). The extension's websocket carries a
// `chrome-extension://` Origin and the relay token (derived from the gateway secret) as `?token=`.

export interface RelaySecrets {
  readonly token: string | undefined
  readonly password: string | undefined
}

export type Verdict = { readonly ok: true } | { readonly ok: false; readonly status: number; readonly message: string }

const OK: Verdict = { ok: true }

/** The relay token the extension must carry (from the gateway token, else its password). */
export const extensionToken = (secrets: RelaySecrets): string | undefined => {
  const secret = secrets.token ?? secrets.password
  return secret === undefined ? undefined : relayToken(secret)
}

export const checkPlace = (req: http.IncomingMessage): Verdict => {
  if (!isLoopbackAddress(req.socket.remoteAddress ?? "")) {
    return { ok: false, status: 403, message: "refused: the svc relay only takes connections from this machine (loopback)" }
  }
  const host = req.headers.host
  if (host === undefined || !isLoopbackHostname(hostnameOf(host))) {
    return {
      ok: false,
      status: 403,
      message: `refused: Host ${JSON.stringify(host ?? "")} is not a loopback name; address the relay as 127.0.0.1 or localhost`
    }
  }
  return OK
}

const candidates = (req: http.IncomingMessage, url: URL): Array<string> => {
  const found: Array<string> = []
  const authorization = req.headers.authorization
  if (authorization !== undefined) {
    const [scheme, ...rest] = authorization.trim().split(/\s+/)
    const value = rest.join(" ")
    if (scheme?.toLowerCase() === "bearer") found.push(value)
    if (scheme?.toLowerCase() === "basic") {
      const decoded = Buffer.from(value, "base64").toString("utf8")
      const colon = decoded.indexOf(":")
      if (colon >= 0) found.push(decoded.slice(colon + 1))
    }
  }
  const password = req.headers["x-svc-password"]
  if (typeof password === "string") found.push(password)
  const query = url.searchParams.get("token")
  if (query !== null) found.push(query)
  return found
}

/** Whether one of the values given is the gateway's token or password. */
const carriesSecret = (given: ReadonlyArray<string>, secrets: RelaySecrets): boolean =>
  given.some((g) =>
    (secrets.token !== undefined && secretEquals(g, secrets.token)) ||
    (secrets.password !== undefined && secretEquals(g, secrets.password))
  )

/**
 * An endpoint URL the gateway itself dials (LocalRelay.ts): admitted as its websocket would be, by the secret
 * it carries as userinfo (sent as HTTP Basic) or as `?token=`.
 */
export const dialUrlAdmitted = (url: URL, secrets: RelaySecrets): boolean => {
  const given: Array<string> = []
  if (url.password !== "") given.push(decodeURIComponent(url.password))
  const query = url.searchParams.get("token")
  if (query !== null) given.push(query)
  return carriesSecret(given, secrets)
}

/** A CDP client (an HTTP /json request or a CDP websocket). */
export const checkCdpClient = (req: http.IncomingMessage, url: URL, secrets: RelaySecrets): Verdict => {
  const place = checkPlace(req)
  if (!place.ok) return place
  if (req.headers.origin !== undefined) {
    return {
      ok: false,
      status: 403,
      message: `refused: a CDP client of the svc relay must not send an Origin (got ${JSON.stringify(req.headers.origin)})`
    }
  }
  const given = candidates(req, url)
  if (carriesSecret(given, secrets)) return OK
  return {
    ok: false,
    status: 401,
    message: given.length === 0
      ? "authentication required: the svc relay takes the gateway token (`Authorization: Bearer <gateway.auth.token>`, " +
        "or HTTP Basic with it as the password)"
      : "invalid credentials: the token does not match gateway.auth in svc.json"
  }
}

/** The extension's websocket: where it comes from (refused outright), then its token (refused with a reason it can show). */
export const checkExtensionOrigin = (req: http.IncomingMessage): Verdict => {
  const place = checkPlace(req)
  if (!place.ok) return place
  const origin = req.headers.origin ?? ""
  if (!origin.startsWith("chrome-extension://")) {
    return {
      ok: false,
      status: 403,
      message: `refused: only the svc relay extension may connect here (Origin ${JSON.stringify(origin)} is not chrome-extension://)`
    }
  }
  return OK
}

export const checkExtensionToken = (url: URL, secrets: RelaySecrets): Verdict => {
  const expected = extensionToken(secrets)
  const given = url.searchParams.get("token")
  if (expected !== undefined && given !== null && given !== "" && secretEquals(given, expected)) return OK
  return {
    ok: false,
    status: 401,
    message: given === null || given === ""
      ? "no relay token: run `svc browser extension token` and paste what it prints in the extension's settings"
      : "wrong relay token: run `svc browser extension token` and paste what it prints in the extension's settings " +
        "(it changes when the gateway token does)"
  }
}
