import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { Page } from "playwright-core"
import { makeRunawayGuard } from "../../../src/browser/act/runaway.js"

// Settling a page after a script timed out, against a fake CDP session whose page is idle, busy until
// stopped, or beyond stopping. The real thing (Chromium 156) is in test/e2e/actionable.test.ts.

type Mode = "idle" | "busy" | "unstoppable"

const fakePage = (mode: Mode) => {
  const sent: Array<string> = []
  let busy = mode !== "idle"
  let release: Array<() => void> = []
  const session = {
    send: (method: string) => {
      sent.push(method)
      if (method === "Runtime.terminateExecution") {
        if (mode === "unstoppable") return new Promise(() => undefined)
        busy = false
        release.forEach((f) => f())
        release = []
        return Promise.resolve({})
      }
      // Runtime.evaluate: answered once the page's main thread is free.
      return busy ? new Promise((resolve) => release.push(() => resolve({ result: { value: 0 } }))) : Promise.resolve({ result: { value: 0 } })
    },
    once: () => session
  }
  let attached = 0
  const page = {
    isClosed: () => false,
    context: () => ({
      newCDPSession: () => {
        attached++
        return Promise.resolve(session)
      }
    })
  } as unknown as Page
  return { page, sent, attached: () => attached }
}

describe("runaway scripts", () => {
  it.live("an idle page (a promise that never settled) is left alone", () =>
    Effect.gen(function*() {
      const guard = makeRunawayGuard()
      const { page, sent } = fakePage("idle")
      yield* guard.arm(page)
      expect(yield* guard.settle(page)).toBeUndefined()
      expect(sent).toEqual(["Runtime.evaluate"])
    }))

  it.live("a page that does not answer is stopped, and answers again", () =>
    Effect.gen(function*() {
      const guard = makeRunawayGuard()
      const { page, sent, attached } = fakePage("busy")
      yield* guard.arm(page)
      yield* guard.arm(page)
      expect(attached()).toBe(1)
      expect(yield* guard.settle(page)).toBe("stopped")
      expect(sent).toEqual(["Runtime.evaluate", "Runtime.terminateExecution"])
    }))

  it.live("a page that cannot be stopped is said to be stuck, within the settling budget", () =>
    Effect.gen(function*() {
      const guard = makeRunawayGuard()
      const { page } = fakePage("unstoppable")
      yield* guard.arm(page)
      const start = Date.now()
      expect(yield* guard.settle(page)).toBe("stuck")
      expect(Date.now() - start).toBeLessThan(2_000)
    }))

  it.live("a page that was never armed has nothing to settle", () =>
    Effect.gen(function*() {
      const { page, sent } = fakePage("busy")
      expect(yield* makeRunawayGuard().settle(page)).toBeUndefined()
      expect(sent).toEqual([])
    }))
})
