import { Effect } from "effect"
import { BrowserUnavailable } from "../../domain/errors.js"
import { isLocalHostname } from "../../platform/loopback.js"
import { redactSecrets } from "../../domain/redact.js"

// Where a browser's DevTools are reached: the endpoint as configured, the /json URLs under it, the websocket
// it advertises, and the endpoint as it may be shown to a person (secrets hidden).

export interface CdpEndpoint {
  /** http(s)://host:port[/path][?query] (DevTools HTTP endpoint) or ws(s)://... (the browser websocket). */
  readonly url: string
  /** Bound on each HTTP request to /json/* (config: browser.remoteCdpTimeoutMs). */
  readonly timeoutMs: number
  /** Bound on the websocket handshake (config: browser.remoteCdpHandshakeTimeoutMs). */
  readonly handshakeTimeoutMs: number
  /** Bound on each CDP command; default {@link DEFAULT_COMMAND_TIMEOUT_MS}. */
  readonly commandTimeoutMs?: number | undefined
  /** The browser websocket, when already known (a browser svc has just launched): not asked of /json/version again. */
  readonly webSocketUrl?: string | undefined
}

export const DEFAULT_COMMAND_TIMEOUT_MS = 15_000

/** The endpoint's URL, if it is one CDP can be spoken at. */
export const parseEndpoint = (ep: CdpEndpoint): Effect.Effect<URL, BrowserUnavailable> => {
  try {
    const u = new URL(ep.url)
    if (["http:", "https:", "ws:", "wss:"].includes(u.protocol)) return Effect.succeed(u)
  } catch {
    // fall through
  }
  return Effect.fail(
    new BrowserUnavailable({
      message: `the CDP endpoint ${JSON.stringify(redactSecrets(ep.url))} is not an http(s):// or ws(s):// URL; check cdpUrl`
    })
  )
}

const effectivePort = (u: URL): string =>
  u.port !== "" ? u.port : u.protocol === "https:" || u.protocol === "wss:" ? "443" : "80"

export const isWebSocketUrl = (u: URL): boolean => u.protocol === "ws:" || u.protocol === "wss:"

/** `<base path>/json/...` keeping the base's query (a remote service's token, for example). */
export const jsonUrl = (base: URL, path: string): URL => {
  const u = new URL(base.toString())
  u.pathname = `${u.pathname.replace(/\/+$/, "")}${path}`
  u.hash = ""
  return u
}

/**
 * Browsers (and proxies in front of them) often advertise a websocket on localhost whatever address they
 * were reached at: point it back at the address the endpoint names, and carry the endpoint's query over.
 * The endpoint's credentials (userinfo) go along only to the endpoint's own host and port; the websocket
 * client sends them as an Authorization: Basic header on the upgrade.
 */
export const rewriteWebSocketUrl = (endpointUrl: string, advertised: string): string => {
  const base = new URL(endpointUrl)
  const ws = new URL(advertised)
  if (isLocalHostname(ws.hostname) && !isLocalHostname(base.hostname)) {
    ws.hostname = base.hostname
    ws.port = base.port
    ws.protocol = base.protocol === "https:" ? "wss:" : "ws:"
  }
  if (ws.search === "" && base.search !== "") ws.search = base.search
  const sameHost = ws.hostname === base.hostname || (isLocalHostname(ws.hostname) && isLocalHostname(base.hostname))
  if ((base.username !== "" || base.password !== "") && sameHost && effectivePort(ws) === effectivePort(base)) {
    ws.username = base.username
    ws.password = base.password
  }
  return ws.toString()
}
