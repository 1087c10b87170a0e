import { it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect } from "vitest"
import { dedupeJournalPath, makeDedupe } from "../../../src/msgbridge/store/Dedupe.js"

const tmpFile = () => dedupeJournalPath(fs.mkdtempSync(path.join(os.tmpdir(), "svc-dedupe-")), "acct")
const lines = (file: string) => fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "")

describe("Dedupe", () => {
  it.scoped("markIfNew is true once, durable before it returns", () =>
    Effect.gen(function*() {
      const file = tmpFile()
      const d = yield* makeDedupe({ file })
      expect(yield* d.markIfNew("g1")).toBe(true)
      expect(lines(file)).toHaveLength(1) // on disk already
      expect(yield* d.markIfNew("g1")).toBe(false)
      expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    }))

  it.scoped("concurrent callers with the same guid: exactly one wins; batches are group-committed", () =>
    Effect.gen(function*() {
      const file = tmpFile()
      const d = yield* makeDedupe({ file })
      const guids = Array.from({ length: 200 }, (_, i) => `g${i % 50}`)
      const results = yield* Effect.forEach(guids, (g) => d.markIfNew(g), { concurrency: "unbounded" })
      expect(results.filter((x) => x)).toHaveLength(50)
      expect(lines(file)).toHaveLength(50)
    }))

  it.effect("a restart remembers what was seen, the inbox and the cursor", () =>
    Effect.gen(function*() {
      const file = tmpFile()
      yield* Effect.scoped(Effect.gen(function*() {
        const d = yield* makeDedupe({ file })
        yield* d.markIfNew("seen-1")
        expect(yield* d.accept("m1", { type: "new-message", data: { guid: "m1" } })).toBe(true)
        expect(yield* d.accept("m2", { type: "new-message", data: { guid: "m2" } })).toBe(true)
        expect(yield* d.accept("m1", { again: true })).toBe(false)
        yield* d.done("m1")
        yield* d.advance(1000)
        yield* d.advance(500) // never backwards
      }))
      yield* Effect.scoped(Effect.gen(function*() {
        const d = yield* makeDedupe({ file })
        expect(yield* d.markIfNew("seen-1")).toBe(false)
        expect(yield* d.markIfNew("m1")).toBe(false)
        expect(yield* d.accept("m2", {})).toBe(false)
        const pending = yield* d.pending()
        expect(pending.map((p) => p.guid)).toEqual(["m2"])
        expect(pending[0]!.event).toEqual({ type: "new-message", data: { guid: "m2" } })
        expect(yield* d.cursor()).toBe(1000)
        yield* d.done("m2")
        expect(yield* d.pending()).toEqual([])
      }))
    }))

  it.effect("a reply's mark survives a restart and a compaction; pending says the reply had started", () =>
    Effect.gen(function*() {
      const file = tmpFile()
      yield* Effect.scoped(Effect.gen(function*() {
        const d = yield* makeDedupe({ file, capacity: 5 })
        yield* d.accept("r1", { n: 1 })
        yield* d.accept("r2", { n: 2 })
        yield* d.replying("r1")
        yield* d.replying("r1") // once
        expect(lines(file).filter((l) => l.includes('"out"'))).toHaveLength(1)
        expect(d.health()).toMatchObject({ ok: true, failedWrites: 0 })
        // Enough records to compact: the mark must stay with its inbox entry.
        for (let i = 0; i < 300; i++) yield* d.markIfNew(`filler-${i}`)
      }))
      yield* Effect.scoped(Effect.gen(function*() {
        const d = yield* makeDedupe({ file, capacity: 5 })
        const pending = yield* d.pending()
        expect(pending.map((p) => [p.guid, p.replying])).toEqual([["r1", true], ["r2", false]])
      }))
    }))

  it.effect("a torn last line is dropped; damage elsewhere is reported", () =>
    Effect.gen(function*() {
      const file = tmpFile()
      yield* Effect.scoped(Effect.gen(function*() {
        const d = yield* makeDedupe({ file })
        yield* d.markIfNew("a")
      }))
      fs.appendFileSync(file, '{"t":"seen","g":"b","a')
      yield* Effect.scoped(Effect.gen(function*() {
        const d = yield* makeDedupe({ file })
        expect(d.isSeen("a")).toBe(true)
        expect(yield* d.markIfNew("b")).toBe(true)
      }))
      expect(lines(file).map((l) => JSON.parse(l).g)).toEqual(["a", "b"])

      fs.writeFileSync(file, '{"t":"seen","g":"a","at":0}\ngarbage\n{"t":"seen","g":"b","at":0}\n')
      const err = yield* Effect.flip(Effect.scoped(makeDedupe({ file })))
      expect(err.message).toContain("damaged at line 2")
      expect(fs.readFileSync(file, "utf8")).toContain("garbage")
    }))

  it.effect("bounded: old guids are forgotten, pending inbox entries kept, the journal compacted", () =>
    Effect.gen(function*() {
      const file = tmpFile()
      yield* Effect.scoped(Effect.gen(function*() {
        const d = yield* makeDedupe({ file, capacity: 10, sync: false })
        yield* d.accept("keep", { x: 1 })
        for (let i = 0; i < 300; i++) yield* d.markIfNew(`g${i}`)
        expect(d.isSeen("g0")).toBe(false)
        expect(d.isSeen("g299")).toBe(true)
        expect(d.isSeen("keep")).toBe(true)
      }))
      expect(lines(file).length).toBeLessThan(150)
      fs.writeFileSync(`${file}.1.dead.tmp`, "{")
      yield* Effect.scoped(Effect.gen(function*() {
        const d = yield* makeDedupe({ file, capacity: 10 })
        expect((yield* d.pending()).map((p) => p.guid)).toEqual(["keep"])
        expect(yield* d.markIfNew("g299")).toBe(false)
      }))
    }))
})
