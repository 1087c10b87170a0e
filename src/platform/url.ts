import { Either } from "effect"
import { isLocalHostname } from "./loopback.js"

// What a person or a model types as a URL, made into one the browser can be asked to open. One reading for
// every place that opens a URL (a new tab, navigate); each caller words the refusal for its own command.
// Whether the URL may be opened (its scheme, its host) is the navigation policy's to say
// (browser/policy/checkUrl.ts), not this reading's.

/** Why a typed URL cannot be opened. */
export type UrlProblem =
  | { readonly kind: "empty" }
  | { readonly kind: "not-a-url" }
  | { readonly kind: "no-host" }

const HOST = /^(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?\.)+[\p{L}\p{N}-]{2,}\.?$|^\d{1,3}(?:\.\d{1,3}){3}$|^\[[0-9a-f:.]+\]$/iu

/**
 * A URL with a scheme as given; a bare host (`example.com/path`, `localhost:3000`, `//cdn.example.com/x`)
 * gets https://, or http:// when the host is this machine.
 */
export const parseUserUrl = (input: string): Either.Either<string, UrlProblem> => {
  const raw = input.trim()
  if (raw === "") return Either.left({ kind: "empty" })
  const hostPort = /^[^/:?#\s]+:\d+(?:[/?#]|$)/.test(raw)
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(raw)?.[1]?.toLowerCase()
  let candidate: string
  if (raw.startsWith("//")) {
    candidate = `https:${raw}`
  } else if (scheme !== undefined && !hostPort) {
    candidate = raw
  } else {
    const host = raw.split(/[/?#]/)[0]!.replace(/:\d+$/, "")
    const local = isLocalHostname(host)
    if (!local && !HOST.test(host)) return Either.left({ kind: "not-a-url" })
    candidate = `${local ? "http" : "https"}://${raw}`
  }
  let url: URL
  try {
    url = new URL(candidate)
  } catch {
    return Either.left({ kind: "not-a-url" })
  }
  if ((url.protocol === "http:" || url.protocol === "https:") && url.hostname === "") {
    return Either.left({ kind: "no-host" })
  }
  return Either.right(url.href)
}

// ---- host patterns (browser.allowedDomains / browser.blockedDomains) ----

export const HOST_PATTERN_SHAPE =
  "a host pattern is a host name (example.com), `*.` and a domain (*.example.com: the domain and every " +
  "host under it), or an IP address (127.0.0.2, [::1]); no scheme, port, path or other `*`"

/** A host pattern as written: the host as the browser's URL parser reads it, and whether `*.` leads. */
export interface HostPatternText {
  readonly source: string
  /** Lower case, punycode, IP literals normalised (IPv6 in brackets). */
  readonly hostname: string
  readonly subdomains: boolean
}

/** Reads a host pattern, or says what is wrong with it and what shape it should have. */
export const parseHostPatternText = (raw: string): Either.Either<HostPatternText, string> => {
  const s = raw.trim()
  const bad = (why: string) => Either.left(`${JSON.stringify(raw)} ${why}; ${HOST_PATTERN_SHAPE}`)
  if (s === "") return bad("is empty")
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) return bad("has a scheme")
  if (/[/?#\\]/.test(s)) return bad("has a path")
  if (s.includes("@")) return bad("has a user name")
  const subdomains = s.startsWith("*.")
  const rest = subdomains ? s.slice(2) : s
  if (rest.includes("*")) return bad("has a `*` that is not a leading `*.`")
  if (/^[^:[\]]+:\d*$/.test(rest) || /^\[.*\]:\d*$/.test(rest)) return bad("has a port")
  let hostname: string
  try {
    const u = new URL(`http://${rest.includes(":") && !rest.startsWith("[") ? `[${rest}]` : rest}/`)
    hostname = u.hostname
  } catch {
    return bad("is not a host")
  }
  if (hostname.replace(/\.$/, "") === "") return bad("is not a host")
  if (subdomains && (/^\d+\.\d+\.\d+\.\d+$/.test(hostname) || hostname.startsWith("["))) {
    return bad("puts `*.` before an IP address")
  }
  return Either.right({ source: s, hostname, subdomains })
}
