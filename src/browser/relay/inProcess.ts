import type { Peer, RelayHub } from "./RelayHub.js"

// A CDP connection to the relay from inside the gateway, without a socket: the automation library's own
// connection to the `relay` profile. Over a loopback websocket every command and answer was serialized,
// sent, received and parsed once more in this same process, on top of the hop through the extension; here
// a command object goes to the hub and its answer object comes back. What the library expects of a
// transport (send, close, onmessage, onclose) is what playwright-core's ConnectionTransport is.

export interface CdpTransport {
  send(message: object): void
  close(): void
  onmessage?: ((message: object) => void) | undefined
  onclose?: ((reason?: string) => void) | undefined
}

/** A transport's message as the wrappers on the library's connection read it (a command, an answer or an event). */
export interface CdpMessage {
  readonly id?: number
  readonly method?: string
  readonly sessionId?: string
  readonly params?: Record<string, unknown>
  readonly result?: Record<string, unknown>
  readonly error?: { readonly message?: string }
}

/**
 * A client of `hub` in this process. Messages are handed over in order, each in a microtask of its own: never
 * inside the call that sent the command (the library registers its callback after sending), and never after
 * the transport closed.
 */
export const inProcessTransport = (hub: RelayHub): CdpTransport => {
  let open = true
  const end = (reason?: string) => {
    if (!open) return
    open = false
    hub.clientClosed(client)
    queueMicrotask(() => transport.onclose?.(reason))
  }
  const peer: Peer = {
    send: (message) =>
      queueMicrotask(() => {
        if (open) transport.onmessage?.(message)
      }),
    close: (_code, reason) => end(reason)
  }
  const client = hub.connectClient(peer)!
  const transport: CdpTransport = {
    send: (message) => {
      if (open) hub.clientCommand(client, message)
    },
    close: () => end()
  }
  return transport
}
