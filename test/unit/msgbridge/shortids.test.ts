import { it } from "@effect/vitest"
import { Effect, Scope, TestClock, Exit } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect } from "vitest"
import { makeShortIds, shortIdsFilePath } from "../../../src/msgbridge/store/ShortIds.js"

const tmpFile = () => shortIdsFilePath(fs.mkdtempSync(path.join(os.tmpdir(), "svc-short-")), "acct")

describe("ShortIds", () => {
  it.scoped("assigns small numbers, the same guid keeps its number, full guids pass through", () =>
    Effect.gen(function*() {
      const ids = yield* makeShortIds({ file: tmpFile() })
      expect(yield* ids.assign("GUID-A")).toBe("1")
      expect(yield* ids.assign("GUID-B")).toBe("2")
      expect(yield* ids.assign("GUID-A")).toBe("1")
      expect(yield* ids.resolve("2")).toBe("GUID-B")
      expect(yield* ids.resolve(" 02 ")).toBe("GUID-B")
      expect(yield* ids.resolve("7C1E2A90-4B6F-4D2E-9A31-5F0C3E8B1D22")).toBe("7C1E2A90-4B6F-4D2E-9A31-5F0C3E8B1D22")
      const err = yield* Effect.flip(ids.resolve("99"))
      expect(err._tag).toBe("ShortIdUnknown")
      expect(err.message).toBe("short id 99 is no longer known; use the full message id (MessageSidFull)")
    }))

  it.scoped("evicts the oldest beyond capacity and never reuses a number", () =>
    Effect.gen(function*() {
      const ids = yield* makeShortIds({ file: tmpFile(), capacity: 3 })
      for (const g of ["a", "b", "c"]) yield* ids.assign(g)
      yield* ids.assign("a") // a use: b is now the oldest
      expect(yield* ids.assign("d")).toBe("4")
      expect(ids.size()).toBe(3)
      expect((yield* Effect.flip(ids.resolve("2"))).message).toContain("short id 2 is no longer known")
      expect(yield* ids.resolve("1")).toBe("a")
      expect(yield* ids.assign("b")).toBe("5")
    }))

  it.effect("persists write-behind at the flush interval and survives a restart", () =>
    Effect.gen(function*() {
      const file = tmpFile()
      const scope = yield* Scope.make()
      const ids = yield* makeShortIds({ file, flushInterval: "1 second" }).pipe(Scope.extend(scope))
      yield* ids.assign("a")
      yield* ids.assign("b")
      expect(fs.existsSync(file)).toBe(false) // not yet: writes are batched
      yield* TestClock.adjust("1 second")
      expect(JSON.parse(fs.readFileSync(file, "utf8")).entries).toEqual([["1", "a"], ["2", "b"]])
      expect(fs.statSync(file).mode & 0o777).toBe(0o600)
      yield* ids.assign("c")
      yield* Scope.close(scope, Exit.void) // the last changes are flushed on close
      fs.writeFileSync(`${file}.1.dead.tmp`, "{") // a leftover temp file is ignored

      const again = yield* Effect.scoped(Effect.gen(function*() {
        const ids2 = yield* makeShortIds({ file })
        expect(yield* ids2.resolve("3")).toBe("c")
        return yield* ids2.assign("d")
      }))
      expect(again).toBe("4")
    }))

  it.effect("a corrupt cache is refused with a clear message", () =>
    Effect.gen(function*() {
      const file = tmpFile()
      fs.mkdirSync(path.dirname(file), { recursive: true })
      fs.writeFileSync(file, '{"version":1,"next":')
      const err = yield* Effect.flip(Effect.scoped(makeShortIds({ file })))
      expect(err.message).toContain("corrupt")
      expect(err.message).toContain(file)
    }))
})
