import * as os from "node:os"
import { isLoopbackHostname } from "../../platform/loopback.js"

// Where the bridge server posts its webhooks: the gateway's bind address and port, the channel's webhook
// path, the password in the query. A bind the bridge Mac may not reach (loopback) or that is no single
// address (a wildcard) comes with a note for the user.

const WILDCARD_BINDS = new Set(["0.0.0.0", "::", "[::]", "*"])

/** An address of this machine that another one can reach (first non-internal IPv4), for wildcard binds. */
export const lanAddress = (): string => {
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === "IPv4" && !a.internal) return a.address
  }
  return os.hostname()
}

export interface WebhookTarget {
  readonly url: string
  /** One line for the user when the URL is not reachable as it is, or needs a choice. */
  readonly note: string | undefined
}

/** The URL the bridge server posts to: gateway bind address and port, webhook path, password in the query. */
export const webhookTarget = (options: {
  readonly bind: string
  readonly port: number
  readonly webhookPath: string
  readonly password: string
  readonly lanAddress: () => string
}): WebhookTarget => {
  const wildcard = WILDCARD_BINDS.has(options.bind)
  const host = wildcard ? options.lanAddress() : options.bind
  const hostPart = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host
  const url = `http://${hostPart}:${options.port}${options.webhookPath}?password=${encodeURIComponent(options.password)}`
  const note = isLoopbackHostname(host.toLowerCase())
    ? `gateway.bind is ${options.bind} (loopback): only this machine can reach that URL. Unless the bridge server ` +
      `runs on this machine, the bridge Mac must reach this one: set gateway.bind to this machine's LAN address ` +
      `(svc config set gateway.bind <address>) or put a reverse proxy or tunnel in front of port ${options.port}; ` +
      "a proxy must pass the ?password= query on to the gateway unchanged."
    : wildcard
    ? `gateway.bind is ${options.bind} (every interface); ${host} is one of this machine's addresses: use one the bridge Mac can reach.`
    : undefined
  return { url, note }
}
