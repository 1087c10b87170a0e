import * as net from "node:net"
import { Effect } from "effect"
import type { CdpDiscovery, CdpVersion } from "../cdp/discovery.js"

// Before a launch: is the profile's DevTools port free, taken by another browser, or by something else?

export type PortState =
  | { readonly _tag: "free" }
  | { readonly _tag: "cdp"; readonly browser: string; readonly version: CdpVersion }
  | { readonly _tag: "other" }

const tcpConnects = (port: number, timeoutMs = 500): Effect.Effect<boolean> =>
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

export const portState = (discovery: CdpDiscovery, port: number): Effect.Effect<PortState> =>
  Effect.gen(function* () {
    if (!(yield* tcpConnects(port))) return { _tag: "free" } as const
    const v = yield* Effect.option(discovery.probe(port))
    return v._tag === "Some"
      ? ({ _tag: "cdp", browser: v.value.browser ?? "a browser", version: v.value } as const)
      : ({ _tag: "other" } as const)
  })
