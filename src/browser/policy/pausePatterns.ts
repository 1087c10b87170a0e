import { CLOUD_METADATA_HOSTS } from "./addresses.js"
import { hasLists, type PolicySettings } from "./checkUrl.js"

// Which requests the browser pauses for the policy (CDP Fetch.enable patterns), as few as the policy's
// rules allow. A paused request waits for the gateway's answer, which is busy with the library's share of
// the same navigation (measured: a form with one iframe, 5 gateway starts of 10 navigations each, taking
// turns: medians 88.6 ms with every document paused, 82.8 with these patterns). So, with no list set, a
// document is paused only where its URL could be one the policy refuses:
//   - any URL that does not start with `http:` or `https:` (file:, chrome:, view-source:, ...: the scheme rule);
//   - an http(s) URL whose text has `:<port>/` for one of svc's own ports (the ownPort rule asks for this
//     machine as well, which the policy checks on the paused request);
//   - an http(s) URL whose text has a cloud metadata host as the URL parser writes it, or its IPv4-mapped
//     IPv6 form (the cloudMetadata rule).
// The browser matches patterns against the URL as its parser wrote it (lower-case host, IPv4 in dotted
// decimal, IPv6 compressed), the same form the policy reads. A pattern that matches more than it must only
// costs a pause. An own port that is a scheme's default (80, 443) is not written in a URL: then every
// document is paused. With a list set, every request is (checkUrl.ts).

export interface PausePattern {
  readonly urlPattern: string
  readonly resourceType?: "Document"
  readonly requestStage: "Request"
}

/** A scheme's first character, and those after it (the URL parser writes schemes in lower case). */
const LETTERS = "abcdefghijklmnopqrstuvwxyz"
const SCHEME_CHARS = `${LETTERS}0123456789+-.`

/**
 * Patterns matching every URL whose text does not start with one of `prefixes` (each a scheme and its
 * colon), and no URL that does: at each character along a prefix, every character that leaves it.
 */
export const notStartingWith = (prefixes: ReadonlyArray<string>): ReadonlyArray<string> => {
  const patterns: Array<string> = []
  const stems = new Set(prefixes.flatMap((p) => Array.from({ length: p.length }, (_, i) => p.slice(0, i))))
  for (const stem of stems) {
    const next = stem === "" ? LETTERS : `${SCHEME_CHARS}:`
    for (const c of next) {
      const longer = stem + c
      if (stems.has(longer) || prefixes.includes(longer)) continue
      patterns.push(`${longer}*`)
    }
  }
  return patterns
}

/** Everything but http(s): a scheme the policy refuses unless it names it (data:, blob:, about:blank, a file: allowed). */
const OTHER_SCHEMES = notStartingWith(["http:", "https:"])

/** A host as the URL parser writes it in a URL. */
const written = (host: string): string => new URL(`http://${host.includes(":") ? `[${host}]` : host}/`).hostname

/** The metadata hosts as URLs have them: each name, each address, and each IPv4 address as IPv4-mapped IPv6. */
const METADATA_SPELLINGS = CLOUD_METADATA_HOSTS.flatMap((host) =>
  /^\d+(?:\.\d+){3}$/.test(host) ? [written(host), written(`::ffff:${host}`)] : [written(host)]
)

/** A pattern pausing the documents whose URL matches `urlPattern`. */
const documents = (urlPattern: string): PausePattern => ({ urlPattern, resourceType: "Document", requestStage: "Request" })

/**
 * The requests to pause for `settings`: every request when a list is set; else the documents that could be
 * refused (see above). `documentsOnly` keeps a list's pause to documents too (a tab's own interception, beside
 * the library's routing that sees its other requests).
 */
export const pausePatterns = (settings: PolicySettings, documentsOnly = false): ReadonlyArray<PausePattern> => {
  if (hasLists(settings)) return [documentsOnly ? documents("*") : { urlPattern: "*", requestStage: "Request" }]
  const ports = [...new Set(settings.ownPorts.map((p) => p.port))]
  if (ports.some((p) => p === 80 || p === 443)) return [documents("*")]
  return [
    ...OTHER_SCHEMES,
    ...ports.map((p) => `*:${p}/*`),
    ...METADATA_SPELLINGS.map((h) => `*${h}*`)
  ].map(documents)
}
