import { Either } from "effect"
import { parseHostPatternText } from "../../platform/url.js"
import { addressKey } from "./addresses.js"

// The host patterns of browser.allowedDomains and browser.blockedDomains: `example.com` is that host only;
// `*.example.com` is example.com itself and every host under it (a list that names a site means the whole
// site: a blocked `*.evil.example` must not leave evil.example open). Compared case-insensitively, trailing
// dot ignored, international names in their punycode form, IP literals as addresses (`[::ffff:7f00:1]` is
// 127.0.0.1, and so is `0x7f.1`). The shape is read once, in platform/url.ts, for the config's check too.

export interface HostPattern {
  /** As written in svc.json, for messages. */
  readonly source: string
  /** The host (or the domain under `*.`) as an address key. */
  readonly host: string
  readonly subdomains: boolean
}

/** Reads a pattern, or says what is wrong with it. */
export const parseHostPattern = (raw: string): Either.Either<HostPattern, string> =>
  Either.map(parseHostPatternText(raw), (p) => ({ source: p.source, host: addressKey(p.hostname), subdomains: p.subdomains }))

/** Whether the host (as the URL parser wrote it) matches the pattern. */
export const matchesHost = (pattern: HostPattern, hostname: string): boolean => {
  const key = addressKey(hostname)
  return key === pattern.host || (pattern.subdomains && key.endsWith(`.${pattern.host}`))
}
