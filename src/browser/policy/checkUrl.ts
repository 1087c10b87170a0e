import { redactSecrets } from "../../domain/redact.js"
import { canonicalHost, isCloudMetadata, isThisMachine } from "./addresses.js"
import { type HostPattern, matchesHost } from "./hostPattern.js"

// The one decision every path that sends the browser somewhere asks (navigate, open, redirects, new tabs,
// and a page's own requests when a list is set). Rules in order; the first that refuses names itself:
//   scheme         only http(s), about:blank, data: and blob: (file: with browser.allowFileUrls)
//   ownPort        svc's own gateway, control and relay ports on this machine, whatever the lists say
//   cloudMetadata  instance metadata services, unless browser.allowedDomains names the host exactly
//   blockedDomains a host one of its patterns matches
//   allowedDomains when set, a host none of its patterns matches

export type PolicyRule = "scheme" | "ownPort" | "cloudMetadata" | "blockedDomains" | "allowedDomains"

export type Decision =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly rule: PolicyRule; readonly message: string }

export interface PolicySettings {
  readonly allowedDomains: ReadonlyArray<HostPattern>
  readonly blockedDomains: ReadonlyArray<HostPattern>
  readonly allowFileUrls: boolean
  /** svc's own ports on this machine, each with what it is. */
  readonly ownPorts: ReadonlyArray<{ readonly port: number; readonly name: string }>
  /** This machine's interface addresses (address keys). */
  readonly interfaces: ReadonlySet<string>
}

const ALLOWED: Decision = { allowed: true }
const RESTART = "then restart the gateway (`svc gateway run`)"

/** Whether a list is set: then every request of a page is checked, not only where the tab goes. */
export const hasLists = (s: PolicySettings): boolean => s.allowedDomains.length > 0 || s.blockedDomains.length > 0

const refuse = (url: string, rule: PolicyRule, why: string): Decision => ({
  allowed: false,
  rule,
  message: `${redactSecrets(url.length > 300 ? `${url.slice(0, 300)}…` : url)} is refused by the navigation policy ` +
    `(rule ${rule}): ${why}`
})

const schemeDecision = (url: URL, raw: string, s: PolicySettings): Decision | undefined => {
  switch (url.protocol) {
    case "http:":
    case "https:":
    case "ws:":
    case "wss:":
      return undefined
    case "data:":
    case "blob:":
      return ALLOWED
    case "about:":
      return url.pathname === "blank"
        ? ALLOWED
        : refuse(raw, "scheme", "of the about: pages only about:blank opens (the others are browser settings)")
    case "file:":
      return s.allowFileUrls
        ? ALLOWED
        : refuse(
          raw,
          "scheme",
          "file: URLs are off, so pages cannot read this machine's files; to allow them set browser.allowFileUrls " +
            `(\`svc config set browser.allowFileUrls true\`), ${RESTART}`
        )
    case "javascript:":
      return refuse(raw, "scheme", "javascript: URLs are never opened; run code with `svc browser evaluate --fn <js>`")
    default:
      return refuse(
        raw,
        "scheme",
        `${url.protocol} URLs are never opened; only http:, https:, about:blank, data: and blob: URLs are ` +
          "(and file: with browser.allowFileUrls)"
      )
  }
}

/** The port a URL reaches: its own, else its scheme's default. */
export const effectivePort = (url: URL): number =>
  url.port !== "" ? Number(url.port) : url.protocol === "https:" || url.protocol === "wss:" ? 443 : 80

/** The policy's answer for one URL (as the browser or the URL parser wrote it). */
export const checkUrl = (s: PolicySettings, raw: string): Decision => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return refuse(raw, "scheme", "it is not a URL")
  }
  const byScheme = schemeDecision(url, raw, s)
  if (byScheme !== undefined) return byScheme
  const host = canonicalHost(url.hostname)

  if (isThisMachine(host, s.interfaces)) {
    const port = effectivePort(url)
    const own = s.ownPorts.find((p) => p.port === port)
    if (own !== undefined) {
      return refuse(
        raw,
        "ownPort",
        `port ${port} is svc's own ${own.name} port on this machine; the browser is never sent there ` +
          "(no setting changes this)"
      )
    }
  }

  if (isCloudMetadata(host) && !s.allowedDomains.some((p) => !p.subdomains && matchesHost(p, host))) {
    return refuse(
      raw,
      "cloudMetadata",
      `${host} is a cloud metadata service (it hands out this machine's cloud credentials); to allow it, add ` +
        `exactly "${host}" to browser.allowedDomains in svc.json, ${RESTART}`
    )
  }

  const blocked = s.blockedDomains.find((p) => matchesHost(p, host))
  if (blocked !== undefined) {
    return refuse(
      raw,
      "blockedDomains",
      `blocked by browser.blockedDomains pattern ${blocked.source}; remove it from svc.json to allow, ${RESTART}`
    )
  }

  if (s.allowedDomains.length > 0 && !s.allowedDomains.some((p) => matchesHost(p, host))) {
    const listed = s.allowedDomains.map((p) => p.source)
    return refuse(
      raw,
      "allowedDomains",
      `${host} matches no pattern of browser.allowedDomains (${listed.slice(0, 5).join(", ")}` +
        `${listed.length > 5 ? ", …" : ""}); add it to that list in svc.json to allow, ${RESTART}`
    )
  }
  return ALLOWED
}
