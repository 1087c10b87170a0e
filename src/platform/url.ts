import { Either } from "effect"
import { isLocalHostname } from "./loopback.js"

// What a person or a model types as a URL, made into one the browser can open. One reading for every
// place that opens a URL (a new tab, navigate); each caller words the refusal for its own command.

/** Why a typed URL cannot be opened. */
export type UrlProblem =
  | { readonly kind: "empty" }
  | { readonly kind: "not-a-url" }
  | { readonly kind: "no-host" }
  /** about: pages other than about:blank are browser settings. */
  | { readonly kind: "about-page" }
  /** A scheme that does not open (javascript:, chrome:, ftp:, file: unless allowed); lower-case, no colon. */
  | { readonly kind: "scheme"; readonly scheme: string }

const OPENS = new Set(["http", "https", "about", "data"])
const HOST = /^(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?\.)+[\p{L}\p{N}-]{2,}\.?$|^\d{1,3}(?:\.\d{1,3}){3}$|^\[[0-9a-f:.]+\]$/iu

/**
 * http(s), about:blank and data: URLs as given (file: too with `allowFile`); a bare host (`example.com/path`,
 * `localhost:3000`, `//cdn.example.com/x`) gets https://, or http:// when the host is this machine.
 */
export const parseUserUrl = (
  input: string,
  options: { readonly allowFile?: boolean } = {}
): Either.Either<string, UrlProblem> => {
  const raw = input.trim()
  if (raw === "") return Either.left({ kind: "empty" })
  const hostPort = /^[^/:?#\s]+:\d+(?:[/?#]|$)/.test(raw)
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(raw)?.[1]?.toLowerCase()
  let candidate: string
  if (raw.startsWith("//")) {
    candidate = `https:${raw}`
  } else if (scheme !== undefined && !hostPort) {
    if (!OPENS.has(scheme) && !(scheme === "file" && options.allowFile === true)) {
      return Either.left({ kind: "scheme", scheme })
    }
    if (scheme === "about" && raw.toLowerCase() !== "about:blank") return Either.left({ kind: "about-page" })
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
