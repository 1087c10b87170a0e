import { Effect, type Scope } from "effect"
import { isLoopbackHostname } from "../../platform/loopback.js"
import { dialUrlAdmitted, type RelaySecrets } from "./auth.js"
import { type CdpTransport, inProcessTransport } from "./inProcess.js"
import type { RelayHub } from "./RelayHub.js"

// The relay this gateway runs, as its own browser services reach it: a profile whose endpoint is this
// relay (the built-in `relay`) is connected to without a socket (inProcess.ts). Admission is the relay's own:
// the endpoint must name the relay's port on loopback and carry the gateway's secret, and an extension must
// be connected (otherwise the endpoint is dialed as any other, and fails saying why).

interface Serving {
  readonly hub: RelayHub
  readonly port: number
  readonly secrets: RelaySecrets
}

export class LocalRelay extends Effect.Service<LocalRelay>()("svc/LocalRelay", {
  sync: () => {
    let serving: Serving | undefined

    /** While the caller's scope is open, this process's relay is reached in-process. */
    const serve = (relay: Serving): Effect.Effect<void, never, Scope.Scope> =>
      Effect.acquireRelease(
        Effect.sync(() => void (serving = relay)),
        () => Effect.sync(() => void (serving === relay && (serving = undefined)))
      )

    /** A connection without a socket to the relay at `endpointUrl`, when that is this process's relay. */
    const transportFor = (endpointUrl: string): CdpTransport | undefined => {
      const relay = serving
      if (relay === undefined || !relay.hub.extensionConnected) return undefined
      let url: URL
      try {
        url = new URL(endpointUrl)
      } catch {
        return undefined
      }
      if (!isLoopbackHostname(url.hostname) || Number(url.port) !== relay.port) return undefined
      return dialUrlAdmitted(url, relay.secrets) ? inProcessTransport(relay.hub) : undefined
    }

    return { serve, transportFor } as const
  }
}) {}
