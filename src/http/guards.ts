import { hostnameOf, isLoopbackHostname } from "../platform/loopback.js"

export { hostnameOf }
import { secretEquals } from "../platform/secrets.js"

// Pure request checks shared by every listener: credentials in constant time, loopback Host names
// (DNS rebinding) and cross-site Origins on mutating requests.

export interface Credentials {
  readonly token: string | undefined
  readonly password: string | undefined
}

export type AuthOutcome = { readonly ok: true } | { readonly ok: false; readonly message: string }

const header = (headers: Readonly<Record<string, string | undefined>>, name: string) => headers[name]

/**
 * Accepts `Authorization: Bearer <token>`, `x-svc-password: <password>`, or HTTP Basic whose password is
 * the gateway password (any user name).
 */
export const checkCredentials = (
  headers: Readonly<Record<string, string | undefined>>,
  creds: Credentials
): AuthOutcome => {
  const authorization = header(headers, "authorization")
  let ok = false
  if (authorization !== undefined) {
    const [scheme, ...rest] = authorization.trim().split(/\s+/)
    const value = rest.join(" ")
    if (scheme?.toLowerCase() === "bearer" && creds.token !== undefined) {
      ok = secretEquals(value, creds.token)
    } else if (scheme?.toLowerCase() === "basic" && creds.password !== undefined) {
      const decoded = Buffer.from(value, "base64").toString("utf8")
      const colon = decoded.indexOf(":")
      ok = colon >= 0 && secretEquals(decoded.slice(colon + 1), creds.password)
    }
  }
  const password = header(headers, "x-svc-password")
  if (!ok && password !== undefined && creds.password !== undefined) ok = secretEquals(password, creds.password)
  if (ok) return { ok: true }
  return {
    ok: false,
    message: authorization === undefined && password === undefined
      ? "authentication required: send `Authorization: Bearer <gateway token>` (gateway.auth.token in svc.json), or the gateway password as `x-svc-password` or HTTP Basic"
      : "invalid credentials: the token or password does not match gateway.auth in svc.json"
  }
}

export const checkHost = (host: string | undefined): AuthOutcome =>
  host !== undefined && isLoopbackHostname(hostnameOf(host))
    ? { ok: true }
    : {
      ok: false,
      message: `refused: Host ${JSON.stringify(host ?? "")} is not a loopback name; address the gateway as 127.0.0.1 or localhost`
    }

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"])

/** Browsers send Origin on cross-site requests; only loopback origins (or none) may change state. */
export const checkOrigin = (method: string, headers: Readonly<Record<string, string | undefined>>): AuthOutcome => {
  if (!MUTATING.has(method.toUpperCase())) return { ok: true }
  const fetchSite = header(headers, "sec-fetch-site")
  const origin = header(headers, "origin")
  let crossSite = fetchSite === "cross-site"
  if (origin !== undefined) {
    try {
      const u = new URL(origin)
      crossSite ||= !((u.protocol === "http:" || u.protocol === "https:") && isLoopbackHostname(u.hostname.toLowerCase()))
    } catch {
      crossSite = true // "null" and other opaque origins
    }
  }
  return crossSite
    ? { ok: false, message: `refused: cross-site ${method} from Origin ${JSON.stringify(origin ?? fetchSite)}` }
    : { ok: true }
}
