import { it } from "@effect/vitest"
import { Effect, Exit, Fiber, Scope } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect } from "vitest"
import { dedupeJournalPath, makeDedupe } from "../../../src/msgbridge/store/Dedupe.js"

// The journal's group-commit writer: what was acknowledged is on disk, also around the end of its scope.

const tmpFile = () => dedupeJournalPath(fs.mkdtempSync(path.join(os.tmpdir(), "svc-dedupe-w-")), "acct")
const lines = (file: string) => fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "")

describe("Dedupe writer", () => {
  it.live("every acknowledged accept is a whole line on disk; records queued behind a commit go out together", () =>
    Effect.gen(function*() {
      const file = tmpFile()
      yield* Effect.scoped(Effect.gen(function*() {
        const d = yield* makeDedupe({ file })
        const results = yield* Effect.forEach(
          Array.from({ length: 500 }, (_, i) => i),
          (i) => d.accept(`m${i}`, { type: "new-message", data: { guid: `m${i}`, text: "é".repeat(i % 7) } }),
          { concurrency: "unbounded" }
        )
        expect(results.every((r) => r)).toBe(true)
        expect(lines(file)).toHaveLength(500)
        yield* Effect.forEach(Array.from({ length: 500 }, (_, i) => i), (i) => d.done(`m${i}`), { concurrency: 50 })
      }))
      const d2 = yield* Effect.scoped(Effect.gen(function*() {
        const d = yield* makeDedupe({ file })
        return { pending: yield* d.pending(), seen: d.isSeen("m499") }
      }))
      expect(d2).toEqual({ pending: [], seen: true })
    }))

  it.live("closing while a commit is in flight: that commit completes, later calls fail with a closed journal", () =>
    Effect.gen(function*() {
      const file = tmpFile()
      const scope = yield* Scope.make()
      const d = yield* Scope.extend(makeDedupe({ file }), scope)
      const inFlight = yield* Effect.fork(Effect.forEach(["a", "b", "c"], (g) => d.accept(g, { g }), { concurrency: "unbounded" }))
      yield* Effect.yieldNow()
      yield* Scope.close(scope, Exit.void)
      const exit = yield* Fiber.await(inFlight)
      // Whatever was acknowledged is on disk; nothing half-written.
      const onDisk = lines(file).map((l) => JSON.parse(l).g as string)
      if (Exit.isSuccess(exit)) expect(onDisk.sort()).toEqual(["a", "b", "c"])
      for (const l of fs.readFileSync(file, "utf8").split("\n").slice(0, -1)) expect(() => JSON.parse(l)).not.toThrow()
      const late = yield* Effect.flip(d.accept("late", {}))
      expect(late.message).toContain("is closed")
    }))
})
