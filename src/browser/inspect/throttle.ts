import type { NetworkPreset, ThrottleRequest } from "../../domain/browserState.js"

// A slower network and CPU for a tab: the presets, what a request makes of the tab's current throttling, the
// CDP parameters that put it in force, and how it reads in an answer.

/** A network throttle in force: a latency added to each request, and bandwidth caps (none: no cap). */
export interface NetworkThrottle {
  /** The preset it came from, unless a part was set by hand. */
  readonly preset?: Exclude<NetworkPreset, "none"> | undefined
  readonly latencyMs: number
  readonly downloadKbps?: number | undefined
  readonly uploadKbps?: number | undefined
}

export interface Throttle {
  readonly network?: NetworkThrottle | undefined
  /** How many times slower the CPU runs; absent: its own speed. */
  readonly cpuRate?: number | undefined
}

/** The developer tools' presets (their bandwidths in kbit/s, their latencies as they apply them). */
export const NETWORK_PRESETS: Readonly<Record<Exclude<NetworkPreset, "none">, NetworkThrottle>> = {
  "slow-3g": { preset: "slow-3g", latencyMs: 2_000, downloadKbps: 400, uploadKbps: 400 },
  "fast-3g": { preset: "fast-3g", latencyMs: 562.5, downloadKbps: 1_440, uploadKbps: 675 },
  "slow-4g": { preset: "slow-4g", latencyMs: 562.5, downloadKbps: 1_440, uploadKbps: 675 },
  "fast-4g": { preset: "fast-4g", latencyMs: 165, downloadKbps: 8_100, uploadKbps: 1_350 }
}

/** Whether the request asks anything at all. */
export const asksAnything = (r: ThrottleRequest): boolean =>
  r.network !== undefined || r.latencyMs !== undefined || r.downloadKbps !== undefined || r.uploadKbps !== undefined ||
  r.cpu !== undefined

/**
 * The tab's throttling once the request is applied: a preset replaces the network throttle, the parts given
 * change it (over the preset, or over what is in force), what is not asked about stays.
 */
export const nextThrottle = (was: Throttle, r: ThrottleRequest): Throttle => {
  const parts = r.latencyMs !== undefined || r.downloadKbps !== undefined || r.uploadKbps !== undefined
  let network = was.network
  if (r.network !== undefined || parts) {
    const base: NetworkThrottle = r.network === "none"
      ? { latencyMs: 0 }
      : r.network !== undefined
      ? NETWORK_PRESETS[r.network]
      : (was.network ?? { latencyMs: 0 })
    const next: NetworkThrottle = parts
      ? {
        latencyMs: r.latencyMs ?? base.latencyMs,
        downloadKbps: r.downloadKbps ?? base.downloadKbps,
        uploadKbps: r.uploadKbps ?? base.uploadKbps
      }
      : base
    network = next.latencyMs === 0 && next.downloadKbps === undefined && next.uploadKbps === undefined ? undefined : next
  }
  const cpuRate = r.cpu === undefined ? was.cpuRate : r.cpu === 1 ? undefined : r.cpu
  return { network, cpuRate }
}

const bytesPerSecond = (kbps: number | undefined) => (kbps === undefined ? -1 : (kbps * 1000) / 8)

/** Network.emulateNetworkConditions for the throttle (none: no throttling), offline as the profile is. */
export const networkConditions = (network: NetworkThrottle | undefined, offline: boolean) => ({
  offline,
  latency: network?.latencyMs ?? 0,
  downloadThroughput: bytesPerSecond(network?.downloadKbps),
  uploadThroughput: bytesPerSecond(network?.uploadKbps)
})

const kbps = (n: number | undefined, way: string) => (n === undefined ? `no ${way} cap` : `${n} kbit/s ${way}`)

/** `network slow-3g (2000 ms latency, 400 kbit/s down, 400 kbit/s up), CPU 4x slower`. */
export const throttleText = (t: Throttle): string => {
  const n = t.network
  const network = n === undefined
    ? "network at full speed"
    : `network ${n.preset ?? "throttled"} (${n.latencyMs} ms latency, ${kbps(n.downloadKbps, "down")}, ${kbps(n.uploadKbps, "up")})`
  const cpu = t.cpuRate === undefined ? "CPU at its own speed" : `CPU ${t.cpuRate}x slower`
  return `${network}, ${cpu}`
}
