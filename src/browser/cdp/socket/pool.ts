import { Data, Duration, Effect, RcMap, type Scope } from "effect"
import type { BrowserUnavailable } from "../../../domain/errors.js"
import { type CdpEndpoint, DEFAULT_COMMAND_TIMEOUT_MS } from "../endpoints.js"
import type { Connection } from "./connection.js"

// Opening a browser websocket costs a /json/version round trip and a handshake: keep one per endpoint
// between calls, close it when idle, reopen it when the browser dropped it.

export interface PoolOptions {
  /** Keep one browser websocket per endpoint open between calls. Default true. */
  readonly reuseConnections?: boolean
  /** How long an unused browser websocket stays open. Default 30 seconds. */
  readonly idleTimeToLive?: Duration.DurationInput
}

type Open = (ep: CdpEndpoint) => Effect.Effect<Connection, BrowserUnavailable, Scope.Scope>

/** The endpoint fields that make two connections interchangeable. */
const connectionKey = (ep: CdpEndpoint) =>
  Data.struct({
    url: ep.url,
    timeoutMs: ep.timeoutMs,
    handshakeTimeoutMs: ep.handshakeTimeoutMs,
    commandTimeoutMs: ep.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS
  })
type ConnectionKey = ReturnType<typeof connectionKey>

/** Connections for the pool's scope: `withConnection` runs `f` on one, cached when reuse is on. */
export const makeConnectionPool = (open: Open, options: PoolOptions = {}) =>
  Effect.gen(function*() {
    const reuse = options.reuseConnections ?? true
    const connections = yield* RcMap.make({
      lookup: (key: ConnectionKey) => open({ ...key }),
      idleTimeToLive: options.idleTimeToLive ?? Duration.seconds(30)
    })

    /** A live browser connection for the scope: a cached one when reuse is on (reopened if it dropped). */
    const connection = (ep: CdpEndpoint): Effect.Effect<Connection, BrowserUnavailable, Scope.Scope> => {
      if (!reuse) return open(ep)
      const key = connectionKey(ep)
      const get = RcMap.get(connections, key).pipe(
        // A failed open must not be remembered for the idle TTL.
        Effect.tapError(() => RcMap.invalidate(connections, key))
      )
      return Effect.flatMap(
        get,
        (conn) => conn.isOpen() ? Effect.succeed(conn) : Effect.zipRight(RcMap.invalidate(connections, key), get)
      )
    }

    const withConnection = <A, E>(ep: CdpEndpoint, f: (conn: Connection) => Effect.Effect<A, E, Scope.Scope>) =>
      Effect.scoped(Effect.flatMap(connection(ep), f))

    return { withConnection } as const
  })
