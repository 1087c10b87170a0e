import type { CdpMessage as Message, CdpTransport } from "../relay/inProcess.js"

// svc's own commands on one of the library's sessions, put on the wire beside the library instead of going
// through it. A command sent through the library's CDP session crosses its client and server layers both
// ways (a captured stack, validators, a dispatcher): about 0.46 ms of the gateway's CPU, against 0.16 ms
// for the same Runtime.evaluate written to the socket (measured). A snapshot sends several such commands (the
// walk's end armed and released, the controls read, the title).
//
// svc's session on each page stays the library's: its events keep arriving in the library's order, and the
// commands whose answer must follow those events (an action's round trip) still go through it. The session's
// id on the wire is learnt from a marker: an object group named by svc, on a command svc sends once on that
// session. Answers to svc's own ids never reach the library.

/** svc's ids for these commands: far above the library's, below the script cache's own (2,000,000,000 up). */
const FIRST_RAW_ID = 1_900_000_000
const MARKER_PREFIX = "svc-raw-session:"

export interface RawSends {
  /** A fresh object group to send once on a session of the library (any Runtime.evaluate): names that session. */
  readonly markerFor: () => string
  /** The session a marker was sent on; undefined until the library sent it. */
  readonly sessionOf: (marker: string) => string | undefined
  /** `method` on the session, answered from the wire: rejects with the browser's error, or once the session or connection is gone. */
  readonly send: (sessionId: string, method: string, params?: object) => Promise<any>
}

interface Pending {
  readonly sessionId: string
  readonly method: string
  readonly resolve: (result: unknown) => void
  readonly reject: (error: Error) => void
}

/** `inner` with svc's own commands beside the library's; `transport` is what the library is connected over. */
export const withRawSends = (inner: CdpTransport): { readonly transport: CdpTransport; readonly raw: RawSends } => {
  let nextId = FIRST_RAW_ID
  let markers = 0
  let closed = false
  const pending = new Map<number, Pending>()
  const sessionOfMarker = new Map<string, string>()
  const markersOfSession = new Map<string, Array<string>>()

  const failAll = (why: string, sessionId?: string) => {
    for (const [id, p] of pending) {
      if (sessionId !== undefined && p.sessionId !== sessionId) continue
      pending.delete(id)
      p.reject(new Error(`Protocol error (${p.method}): ${why}`))
    }
  }

  const transport: CdpTransport = {
    send: (message) => {
      const m = message as Message
      const group = m.params?.objectGroup
      if (m.method === "Runtime.evaluate" && m.sessionId !== undefined && typeof group === "string" && group.startsWith(MARKER_PREFIX)) {
        sessionOfMarker.set(group, m.sessionId)
        markersOfSession.set(m.sessionId, [...(markersOfSession.get(m.sessionId) ?? []), group])
      }
      inner.send(message)
    },
    close: () => inner.close()
  }

  inner.onmessage = (message) => {
    const m = message as Message
    if (m.id !== undefined) {
      const p = pending.get(m.id)
      if (p !== undefined) {
        pending.delete(m.id)
        if (m.error !== undefined) p.reject(new Error(`Protocol error (${p.method}): ${m.error.message ?? "failed"}`))
        else p.resolve(m.result)
        return
      }
    } else if (m.method === "Target.detachedFromTarget") {
      const sessionId = String(m.params?.sessionId)
      failAll("the session was detached", sessionId)
      for (const marker of markersOfSession.get(sessionId) ?? []) sessionOfMarker.delete(marker)
      markersOfSession.delete(sessionId)
    }
    transport.onmessage?.(message)
  }
  inner.onclose = (reason) => {
    closed = true
    failAll("the connection closed")
    transport.onclose?.(reason)
  }

  const raw: RawSends = {
    markerFor: () => `${MARKER_PREFIX}${++markers}`,
    sessionOf: (marker) => sessionOfMarker.get(marker),
    send: (sessionId, method, params = {}) =>
      new Promise((resolve, reject) => {
        if (closed) return reject(new Error(`Protocol error (${method}): the connection closed`))
        const id = nextId++
        pending.set(id, { sessionId, method, resolve, reject })
        inner.send({ id, sessionId, method, params })
      })
  }
  return { transport, raw }
}
