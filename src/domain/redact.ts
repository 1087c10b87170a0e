// Secrets that ride in URLs (a password or a token in the userinfo, an API key in the query) hidden from
// everything that leaves the process: answers, CLI output, error messages, logs. One function, given a URL
// or any text that holds URLs; the URL is otherwise kept as written (no normalisation), so a person still
// recognises it.

/** What a hidden secret is shown as. */
export const HIDDEN = "***"

/**
 * Query (and fragment) parameter names whose values are secrets: compared without case, `-`, `_` or `.`.
 * `auth` is one (authorization, oauth_token), but not inside author or authority (a blog's `?author=ada`).
 */
const SECRET_NAME = /token|secret|passw|pwd|apikey|accesskey|privatekey|credential|signature|auth(?!or(?!iz))|jwt|session/
/** Short names that are secrets only as a whole word (`key`, `x-api-key`, `sig`; not `monkey`). */
const SECRET_WORD = new Set(["key", "pass", "pw", "sig", "code"])

const isSecretName = (rawName: string): boolean => {
  let name: string
  try {
    name = decodeURIComponent(rawName.replace(/\+/g, " "))
  } catch {
    name = rawName
  }
  if (SECRET_NAME.test(name.toLowerCase().replace(/[-_.\s]/g, ""))) return true
  // Words of `x-api-key`, `apiKey`, `access_sig`.
  const words = name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase().split(/[^a-z0-9]+/)
  return words.some((w) => SECRET_WORD.has(w))
}

/** `a=1&token=x` with the secret values hidden (an empty value stays empty: nothing to hide). */
const redactParams = (params: string): string =>
  params
    .split("&")
    .map((pair) => {
      const eq = pair.indexOf("=")
      if (eq <= 0) return pair
      const name = pair.slice(0, eq)
      return isSecretName(name) && eq < pair.length - 1 ? `${name}=${HIDDEN}` : pair
    })
    .join("&")

/** One URL (`scheme://authority/path?query#fragment`) with its userinfo and secret parameters hidden. */
const redactOne = (url: string): string => {
  const schemeEnd = url.indexOf("://") + 3
  const rest = url.slice(schemeEnd)
  const authorityEnd = rest.search(/[/?#]/)
  let authority = authorityEnd === -1 ? rest : rest.slice(0, authorityEnd)
  let tail = authorityEnd === -1 ? "" : rest.slice(authorityEnd)
  const at = authority.lastIndexOf("@")
  if (at !== -1) {
    const userinfo = authority.slice(0, at)
    const colon = userinfo.indexOf(":")
    authority = `${colon === -1 ? HIDDEN : `${userinfo.slice(0, colon)}:${HIDDEN}`}${authority.slice(at)}`
  }
  const hash = tail.indexOf("#")
  const fragment = hash === -1 ? "" : tail.slice(hash + 1)
  tail = hash === -1 ? tail : tail.slice(0, hash)
  const q = tail.indexOf("?")
  if (q !== -1) tail = `${tail.slice(0, q + 1)}${redactParams(tail.slice(q + 1))}`
  // A fragment of parameters (`#access_token=...`, as OAuth's implicit flow returns them).
  return `${url.slice(0, schemeEnd)}${authority}${tail}${hash === -1 ? "" : `#${fragment.includes("=") ? redactParams(fragment) : fragment}`}`
}

/**
 * A URL of any scheme with an authority (`http`, `https`, `ws`, `wss`, …): it runs to the first space,
 * quote, angle bracket, backtick or backslash (JSON's escape). Trailing `.,;:!)` are taken as the sentence's, not the URL's.
 */
const URL_IN_TEXT = /\b[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^\s"'<>`\\]+/g
const TRAILING = /[.,;:!)\]}]+$/

/**
 * `text` (a URL, or a message, a log line, JSON that quotes URLs) with every URL's userinfo shown as
 * `user:***@` (or `***@` when there is no password) and the values of secret-looking query parameters
 * (token, key, api_key, secret, password, auth, access_token, sig, signature, credential, …) as `***`.
 * Text without URLs comes back unchanged.
 */
export const redactSecrets = (text: string): string =>
  text.replace(URL_IN_TEXT, (match) => {
    const trailing = TRAILING.exec(match)?.[0] ?? ""
    const url = match.slice(0, match.length - trailing.length)
    return `${redactOne(url)}${trailing}`
  })

/** The credentials a URL carries in its userinfo, decoded, for an `Authorization: Basic` header. */
export const basicAuthOf = (url: URL): string | undefined => {
  if (url.username === "" && url.password === "") return undefined
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s)
    } catch {
      return s
    }
  }
  return `Basic ${Buffer.from(`${decode(url.username)}:${decode(url.password)}`).toString("base64")}`
}

/** The URL without its userinfo (the credentials then travel in a header instead). */
export const withoutUserinfo = (url: URL): URL => {
  const u = new URL(url.href)
  u.username = ""
  u.password = ""
  return u
}
