import { Effect } from "effect"
import { tcpConnects } from "../../platform/tcpProbe.js"
import type { CdpDiscovery, CdpVersion } from "../cdp/discovery.js"

// Before a launch: is the profile's DevTools port free, taken by another browser, or by something else?

export type PortState =
  | { readonly _tag: "free" }
  | { readonly _tag: "cdp"; readonly browser: string; readonly version: CdpVersion }
  | { readonly _tag: "other" }

export const portState = (discovery: CdpDiscovery, port: number): Effect.Effect<PortState> =>
  Effect.gen(function* () {
    if (!(yield* tcpConnects(port))) return { _tag: "free" } as const
    const v = yield* Effect.option(discovery.probe(port))
    return v._tag === "Some"
      ? ({ _tag: "cdp", browser: v.value.browser ?? "a browser", version: v.value } as const)
      : ({ _tag: "other" } as const)
  })
