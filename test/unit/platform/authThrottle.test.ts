import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { makeAuthThrottle } from "../../../src/platform/authThrottle.js"

const run = <A>(e: Effect.Effect<A>) => Effect.runPromise(e)

describe("the failed-authentication throttle", () => {
  it("lets the first failures through at once, then answers an address's failures one at a time, slower each time", async () => {
    const t = makeAuthThrottle({ free: 3, baseMs: 20, maxMs: 80, maxWaiting: 100 })
    const t0 = Date.now()
    for (let i = 0; i < 3; i++) expect(await run(t.failed("a"))).toBe("answer")
    expect(Date.now() - t0).toBeLessThan(50)
    // 6 more at once: pauses 20, 40, 80, 80, 80, 80 one after another ≈ 380 ms in all.
    const t1 = Date.now()
    const verdicts = await Promise.all(Array.from({ length: 6 }, () => run(t.failed("a"))))
    expect(verdicts.every((v) => v === "answer")).toBe(true)
    expect(Date.now() - t1).toBeGreaterThanOrEqual(360)
    expect(t.failuresOf("a")).toBe(9)
  })

  it("another address is not slowed by the first one's failures", async () => {
    const t = makeAuthThrottle({ free: 1, baseMs: 200, maxMs: 200 })
    await Promise.all([run(t.failed("a")), run(t.failed("a")), run(t.failed("a"))])
    const t0 = Date.now()
    expect(await run(t.failed("b"))).toBe("answer")
    expect(Date.now() - t0).toBeLessThan(100)
  })

  it("refuses at once when too many of an address's failures already wait", async () => {
    const t = makeAuthThrottle({ free: 0, baseMs: 1_000, maxMs: 1_000, maxWaiting: 2 })
    const waiting = [run(t.failed("a")), run(t.failed("a"))]
    const t0 = Date.now()
    expect(await run(t.failed("a"))).toBe("refuse")
    expect(Date.now() - t0).toBeLessThan(100)
    await Promise.all(waiting)
  })
})
