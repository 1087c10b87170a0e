import { it } from "@effect/vitest"
import { Effect, Either, TestClock } from "effect"
import { build } from "esbuild"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { promisify } from "node:util"
import { describe, expect } from "vitest"
import { withFileLockSync } from "../../../src/msgbridge/store/durable.js"
import {
  makePairingStore,
  PAIRING_CODE_ALPHABET,
  pairingFilePath,
  PairingStoreCorrupt
} from "../../../src/msgbridge/store/PairingStore.js"

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "svc-pairing-"))
const HOUR = 60 * 60 * 1000

describe("PairingStore", () => {
  it.effect("issues an 8-character unambiguous code, reuses it for the same sender, approves it", () =>
    Effect.gen(function*() {
      const dir = tmp()
      const store = makePairingStore({ credentialsDir: dir })
      const a = yield* store.request("+1 (555) 123-0001", "iMessage;-;+15551230001")
      expect(a.created).toBe(true)
      expect(a.code).toMatch(new RegExp(`^[${PAIRING_CODE_ALPHABET}]{8}$`))
      expect(a.code).not.toMatch(/[01OIL]/)
      const again = yield* store.request("+15551230001", "iMessage;-;+15551230001")
      expect(again).toEqual({ ...a, created: false })
      expect(yield* store.isApproved("+15551230001")).toBe(false)

      yield* TestClock.adjust("10 minutes")
      const listed = yield* store.list()
      expect(listed).toHaveLength(1)
      expect(listed[0]).toMatchObject({ code: a.code, sender: "+15551230001", ageMs: 10 * 60 * 1000 })

      const approved = yield* store.approve(a.code.toLowerCase())
      expect(approved.sender).toBe("+15551230001")
      expect(yield* store.isApproved("+1 555 123 0001")).toBe(true)
      expect(yield* store.list()).toHaveLength(0)
      // A second instance (the CLI) sees the same state.
      expect(yield* makePairingStore({ credentialsDir: dir }).isApproved("+15551230001")).toBe(true)
      const mode = fs.statSync(pairingFilePath(dir)).mode & 0o777
      expect(mode).toBe(0o600)
      expect(yield* store.revoke("+15551230001")).toBe(true)
      expect(yield* store.isApproved("+15551230001")).toBe(false)
    }))

  it.effect("codes expire after an hour; then a new code is issued and the old one refused", () =>
    Effect.gen(function*() {
      const store = makePairingStore({ credentialsDir: tmp() })
      const a = yield* store.request("friend@example.com", "iMessage;-;friend@example.com")
      yield* TestClock.adjust(HOUR - 1)
      expect(yield* store.list()).toHaveLength(1)
      yield* TestClock.adjust(1)
      expect(yield* store.list()).toHaveLength(0)
      const err = yield* Effect.flip(store.approve(a.code))
      expect(err._tag).toBe("PairingCodeUnknown")
      expect(err.message).toContain("svc pairing list msgbridge")
      expect(err.message).toContain("expired")
      const b = yield* store.request("FRIEND@example.com", "iMessage;-;friend@example.com")
      expect(b.created).toBe(true)
      const unknown = yield* Effect.flip(store.approve("ZZZZZZZZ"))
      expect(unknown.message).toMatch(/unknown.*svc pairing list msgbridge/)
    }))

  it.effect("bounds the pending requests per account", () =>
    Effect.gen(function*() {
      const store = makePairingStore({ credentialsDir: tmp(), maxPending: 3 })
      for (const i of [1, 2, 3]) yield* store.request(`+1555000000${i}`, "x")
      const err = yield* Effect.flip(store.request("+15550000004", "x"))
      expect(err._tag).toBe("PairingLimitReached")
      expect(err.message).toContain("limit is 3")
      // An already pending sender still gets its code back.
      expect((yield* store.request("+15550000001", "x")).created).toBe(false)
      yield* TestClock.adjust(HOUR)
      expect((yield* store.request("+15550000004", "x")).created).toBe(true)
    }))

  it.effect("accounts are separate stores", () =>
    Effect.gen(function*() {
      const dir = tmp()
      yield* makePairingStore({ credentialsDir: dir, accountId: "a" }).request("+15550000001", "x")
      expect(yield* makePairingStore({ credentialsDir: dir, accountId: "b" }).list()).toHaveLength(0)
    }))

  it.effect("a corrupt or truncated file is reported and left untouched", () =>
    Effect.gen(function*() {
      const dir = tmp()
      const file = pairingFilePath(dir)
      for (const text of ['{"version":1,"pending":[{"code":"AB', "", '{"version":1}']) {
        fs.writeFileSync(file, text)
        const store = makePairingStore({ credentialsDir: dir })
        const err = yield* Effect.flip(store.request("+15550000001", "x"))
        expect(err).toBeInstanceOf(PairingStoreCorrupt)
        expect(err.message).toContain(file)
        expect(Either.isLeft(yield* Effect.either(store.isApproved("+1")))).toBe(true)
        expect(fs.readFileSync(file, "utf8")).toBe(text)
      }
    }))

  it.effect("a leftover temp file and a stale lock of a dead process are ignored", () =>
    Effect.gen(function*() {
      const dir = tmp()
      const store = makePairingStore({ credentialsDir: dir })
      yield* store.request("+15550000001", "x")
      const file = pairingFilePath(dir)
      fs.writeFileSync(`${file}.999999.deadbeef.tmp`, "{garbage")
      fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: 999_999_9, host: os.hostname(), nonce: "n", at: 0 }))
      const b = yield* store.request("+15550000002", "x")
      expect(b.created).toBe(true)
      expect(yield* makePairingStore({ credentialsDir: dir }).list()).toHaveLength(2)
      expect(fs.existsSync(`${file}.lock`)).toBe(false)
    }))

  it.effect("two instances in one process interleaving writes lose nothing", () =>
    Effect.gen(function*() {
      const dir = tmp()
      const a = makePairingStore({ credentialsDir: dir, maxPending: 1000 })
      const b = makePairingStore({ credentialsDir: dir, maxPending: 1000 })
      yield* Effect.forEach(Array.from({ length: 50 }, (_, i) => i), (i) =>
        (i % 2 === 0 ? a : b).request(`+1555000${String(i).padStart(4, "0")}`, "x"), { concurrency: 8 })
      expect(yield* a.list()).toHaveLength(50)
    }))
})

describe("PairingStore across processes", () => {
  it("concurrent writers in separate processes lose no update", async () => {
    const dir = tmp()
    const bundle = path.join(dir, "writer.mjs")
    await build({
      entryPoints: [path.join(import.meta.dirname, "pairingWriter.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      outfile: bundle,
      logLevel: "silent"
    })
    const run = promisify(execFile)
    const writers = ["p", "q", "r", "s"]
    await Promise.all(writers.map((w) => run(process.execPath, [bundle, dir, w, "40"])))
    const store = makePairingStore({ credentialsDir: dir, maxPending: 10_000 })
    const listed = await Effect.runPromise(store.list())
    expect(listed).toHaveLength(160)
    expect(new Set(listed.map((p) => p.code)).size).toBe(160)
  })

  it("the lock serialises a slow holder against another process's critical section", () => {
    const dir = tmp()
    const lock = path.join(dir, "x.lock")
    const order: Array<string> = []
    withFileLockSync(lock, () => {
      order.push("in")
      expect(() => withFileLockSync(lock, () => order.push("nested"), { timeoutMs: 50 })).toThrow(/timed out/)
      order.push("out")
    })
    withFileLockSync(lock, () => order.push("after"))
    expect(order).toEqual(["in", "out", "after"])
  })
})
