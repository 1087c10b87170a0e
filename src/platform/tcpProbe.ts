import * as net from "node:net"
import { Effect } from "effect"

/**
 * Whether something holds a port on this machine: a connection is accepted (or, silent, neither accepted
 * nor refused within `timeoutMs`), or fails otherwise than by refusal. A refused connection answers at once.
 */
export const tcpConnects = (port: number, timeoutMs = 500): Effect.Effect<boolean> =>
  Effect.async<boolean>((resume) => {
    const socket = net.connect({ host: "127.0.0.1", port })
    let done = false
    const finish = (v: boolean) => {
      if (done) return
      done = true
      socket.destroy()
      resume(Effect.succeed(v))
    }
    socket.setTimeout(timeoutMs, () => finish(true)) // accepted but silent: something holds it
    socket.once("connect", () => finish(true))
    socket.once("error", (e: NodeJS.ErrnoException) => finish(e.code !== "ECONNREFUSED"))
    return Effect.sync(() => socket.destroy())
  })
