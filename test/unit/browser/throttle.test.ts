import { describe, expect, it } from "vitest"
import { networkConditions, nextThrottle, throttleText } from "../../../src/browser/inspect/throttle.js"

describe("throttling a tab", () => {
  it("a preset replaces the network throttle; parts change it; what is not asked about stays", () => {
    const preset = nextThrottle({ cpuRate: 4 }, { network: "fast-4g" })
    expect(preset).toEqual({ network: { preset: "fast-4g", latencyMs: 165, downloadKbps: 8_100, uploadKbps: 1_350 }, cpuRate: 4 })
    // A part over what is in force is no longer the preset.
    const tuned = nextThrottle(preset, { latencyMs: 50 })
    expect(tuned).toEqual({ network: { latencyMs: 50, downloadKbps: 8_100, uploadKbps: 1_350 }, cpuRate: 4 })
    expect(throttleText(tuned)).toBe("network throttled (50 ms latency, 8100 kbit/s down, 1350 kbit/s up), CPU 4x slower")
    // A part over a preset given with it.
    expect(nextThrottle({}, { network: "slow-3g", downloadKbps: 100 }).network).toEqual({ latencyMs: 2_000, downloadKbps: 100, uploadKbps: 400 })
    expect(nextThrottle(tuned, { cpu: 1 })).toEqual({ network: tuned.network, cpuRate: undefined })
  })

  it("none, or parts that throttle nothing, leave the network at full speed", () => {
    expect(nextThrottle({ network: { latencyMs: 10 } }, { network: "none" }).network).toBeUndefined()
    expect(nextThrottle({ network: { latencyMs: 10 } }, { latencyMs: 0 }).network).toBeUndefined()
    expect(nextThrottle({}, { network: "none", uploadKbps: 80 }).network).toEqual({ latencyMs: 0, downloadKbps: undefined, uploadKbps: 80 })
    expect(throttleText({})).toBe("network at full speed, CPU at its own speed")
  })

  it("sends bandwidth in bytes per second (-1: no cap) with the profile's offline state", () => {
    expect(networkConditions({ latencyMs: 20, downloadKbps: 800 }, true)).toEqual({
      offline: true,
      latency: 20,
      downloadThroughput: 100_000,
      uploadThroughput: -1
    })
    expect(networkConditions(undefined, false)).toEqual({ offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 })
  })
})
