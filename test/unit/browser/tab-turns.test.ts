import { it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { describe, expect } from "vitest"
import { TabTurns } from "../../../src/browser/pages/TabTurns.js"

// The line of requests on one tab: first come first served; looks next to each other go together; an
// action has the tab to itself; a look behind a waiting action waits for it; a turn is re-entrant; a request
// that gives up while waiting leaves the line.

const tab = { profile: "svc", targetId: "T1" }

/** A request that logs when it starts and ends, and ends when `release` is done. */
const request = (log: Array<string>, name: string, release: Deferred.Deferred<void>) =>
  Effect.gen(function*() {
    log.push(`${name}+`)
    yield* Deferred.await(release)
    log.push(`${name}-`)
  })

describe("TabTurns", () => {
  it.effect("actions go one at a time, in the order they came", () =>
    Effect.gen(function*() {
      const turns = yield* TabTurns
      const log: Array<string> = []
      const gates = yield* Effect.forEach([0, 1, 2], () => Deferred.make<void>())
      const fibers: Array<Fiber.RuntimeFiber<void>> = []
      for (const [i, gate] of gates.entries()) {
        fibers.push(yield* Effect.fork(turns.inTurn(tab)(request(log, `a${i}`, gate))))
        yield* Effect.yieldNow()
      }
      yield* Effect.yieldNow()
      expect(log).toEqual(["a0+"])
      // Let them go in reverse order: each still waits for the one before it.
      yield* Deferred.succeed(gates[2]!, undefined)
      yield* Deferred.succeed(gates[1]!, undefined)
      yield* Effect.yieldNow()
      expect(log).toEqual(["a0+"])
      yield* Deferred.succeed(gates[0]!, undefined)
      yield* Effect.forEach(fibers, Fiber.join)
      expect(log).toEqual(["a0+", "a0-", "a1+", "a1-", "a2+", "a2-"])
    }).pipe(Effect.provide(TabTurns.Default)))

  it.effect("looks next to each other go together; an action waits for them, and later looks wait for the action", () =>
    Effect.gen(function*() {
      const turns = yield* TabTurns
      const log: Array<string> = []
      const [l1, l2, a, l3] = yield* Effect.forEach([0, 1, 2, 3], () => Deferred.make<void>())
      const f1 = yield* Effect.fork(turns.lookingIn(tab)(request(log, "look1", l1!)))
      const f2 = yield* Effect.fork(turns.lookingIn(tab)(request(log, "look2", l2!)))
      yield* Effect.yieldNow()
      const fa = yield* Effect.fork(turns.inTurn(tab)(request(log, "act", a!)))
      yield* Effect.yieldNow()
      const f3 = yield* Effect.fork(turns.lookingIn(tab)(request(log, "look3", l3!)))
      yield* Effect.yieldNow()
      expect(log).toEqual(["look1+", "look2+"])
      yield* Deferred.succeed(l3!, undefined)
      yield* Deferred.succeed(a!, undefined)
      yield* Deferred.succeed(l1!, undefined)
      yield* Fiber.join(f1)
      expect(log).toEqual(["look1+", "look2+", "look1-"])
      yield* Deferred.succeed(l2!, undefined)
      yield* Effect.forEach([f2, fa, f3], Fiber.join)
      expect(log).toEqual(["look1+", "look2+", "look1-", "look2-", "act+", "act-", "look3+", "look3-"])
    }).pipe(Effect.provide(TabTurns.Default)))

  it.effect("a turn is re-entrant (an action's own snapshot runs in its turn); other tabs have lines of their own", () =>
    Effect.gen(function*() {
      const turns = yield* TabTurns
      const inner = turns.lookingIn(tab)(turns.inTurn(tab)(Effect.succeed("inner")))
      expect(yield* turns.inTurn(tab)(inner)).toBe("inner")
      const gate = yield* Deferred.make<void>()
      const log: Array<string> = []
      const held = yield* Effect.fork(turns.inTurn(tab)(request(log, "here", gate)))
      yield* Effect.yieldNow()
      expect(yield* turns.inTurn({ profile: "svc", targetId: "T2" })(Effect.succeed("other tab"))).toBe("other tab")
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(held)
    }).pipe(Effect.provide(TabTurns.Default)))

  it.effect("a request that gives up while waiting leaves the line; one that fails gives its turn back", () =>
    Effect.gen(function*() {
      const turns = yield* TabTurns
      const log: Array<string> = []
      const gate = yield* Deferred.make<void>()
      const first = yield* Effect.fork(turns.inTurn(tab)(request(log, "first", gate)))
      yield* Effect.yieldNow()
      const quitter = yield* Effect.fork(turns.inTurn(tab)(request(log, "quitter", gate)))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(quitter)
      const failing = turns.inTurn(tab)(Effect.fail("boom"))
      const failed = yield* Effect.fork(Effect.either(failing))
      yield* Effect.yieldNow()
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(first)
      expect((yield* Fiber.join(failed))._tag).toBe("Left")
      expect(yield* turns.inTurn(tab)(Effect.succeed("next"))).toBe("next")
      expect(log).toEqual(["first+", "first-"])
    }).pipe(Effect.provide(TabTurns.Default)))

  it.live("afterLooks: on a quiet tab after its quiet time; after the looks under way or coming; at once when an action comes", () =>
    Effect.gen(function*() {
      const turns = yield* TabTurns
      const t0 = Date.now()
      yield* turns.afterLooks(tab, 100)
      expect(Date.now() - t0).toBeGreaterThanOrEqual(95)
      const log: Array<string> = []
      const [l1, l2, a] = yield* Effect.forEach([0, 1, 2], () => Deferred.make<void>())
      const f1 = yield* Effect.fork(turns.lookingIn(tab)(request(log, "look1", l1!)))
      yield* Effect.yieldNow()
      const after = yield* Effect.fork(Effect.zipRight(turns.afterLooks(tab, 400), Effect.sync(() => log.push("after"))))
      yield* Deferred.succeed(l1!, undefined)
      yield* Fiber.join(f1)
      // Another look within the quiet time: it goes first.
      const f2 = yield* Effect.fork(turns.lookingIn(tab)(request(log, "look2", l2!)))
      yield* Effect.sleep("600 millis")
      expect(log).toEqual(["look1+", "look1-", "look2+"])
      yield* Deferred.succeed(l2!, undefined)
      yield* Fiber.join(f2)
      yield* Fiber.join(after)
      expect(log).toEqual(["look1+", "look1-", "look2+", "look2-", "after"])
      // An action waiting behind a look: the wait ends at once, ahead of the action's own turn.
      const l3 = yield* Deferred.make<void>()
      const f3 = yield* Effect.fork(turns.lookingIn(tab)(request(log, "look3", l3)))
      yield* Effect.yieldNow()
      const fa = yield* Effect.fork(turns.inTurn(tab)(request(log, "act", a!)))
      yield* Effect.yieldNow()
      const t1 = Date.now()
      yield* turns.afterLooks(tab, 5_000)
      expect(Date.now() - t1).toBeLessThan(1_000)
      yield* Effect.forEach([l3, a!], (d) => Deferred.succeed(d, undefined))
      yield* Effect.forEach([f3, fa], Fiber.join)
    }).pipe(Effect.provide(TabTurns.Default)))

  it.live("idleFor: true when nothing asks for the tab within the quiet time after the requests under way; false when something does", () =>
    Effect.gen(function*() {
      const turns = yield* TabTurns
      expect(yield* turns.idleFor(tab, 50)).toBe(true)
      // A request under way: the quiet time begins when it is done.
      const gate = yield* Deferred.make<void>()
      const log: Array<string> = []
      const busy = yield* Effect.fork(turns.inTurn(tab)(request(log, "act", gate)))
      yield* Effect.yieldNow()
      const idle = yield* Effect.fork(turns.idleFor(tab, 300))
      yield* Effect.sleep("400 millis")
      expect(idle.unsafePoll()).toBeNull()
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(busy)
      expect(yield* Fiber.join(idle)).toBe(true)
      // Something asks within the quiet time: false at once.
      const second = yield* Effect.fork(turns.idleFor(tab, 5_000))
      yield* Effect.sleep("50 millis")
      const t0 = Date.now()
      yield* turns.lookingIn(tab)(Effect.void)
      expect(yield* Fiber.join(second)).toBe(false)
      expect(Date.now() - t0).toBeLessThan(1_000)
    }).pipe(Effect.provide(TabTurns.Default)))
})
