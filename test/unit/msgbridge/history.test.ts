import { it } from "@effect/vitest"
import { Effect, Exit, Logger, Scope, TestClock } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect } from "vitest"
import {
  HISTORY_TEXT_MAX,
  HISTORY_TRUNCATED_MARKER,
  type HistoryEntry,
  historyFilePath,
  makeChatHistory
} from "../../../src/msgbridge/store/History.js"

const tmpFile = () => historyFilePath(fs.mkdtempSync(path.join(os.tmpdir(), "svc-history-")), "acct")
const DM = "iMessage;-;+15551230001"
const GROUP = "iMessage;+;chat482919384756102934"

let clock = 0
const msg = (text: string, extra: Partial<HistoryEntry> = {}): HistoryEntry => ({
  sender: "+15551230001",
  text,
  at: ++clock,
  fromMe: false,
  messageGuid: `guid-${text}`,
  ...extra
})
const texts = (entries: ReadonlyArray<HistoryEntry>) => entries.map((e) => e.text)

describe("ChatHistory", () => {
  it("historyFilePath sits beside the account's other state", () => {
    expect(historyFilePath("/s/msgbridge", "work acct")).toBe(path.join("/s/msgbridge", "work_acct", "history.json"))
    expect(historyFilePath("/s/msgbridge")).toBe(path.join("/s/msgbridge", "default", "history.json"))
  })

  it.scoped("recent: oldest first, the last `limit`, the current message excluded, 0 disables", () =>
    Effect.gen(function*() {
      const h = yield* makeChatHistory({ file: tmpFile(), perChat: 50 })
      for (const t of ["one", "two", "three"]) yield* h.record(DM, msg(t))
      yield* h.record(DM, { sender: "me", text: "reply", at: ++clock, fromMe: true }) // a reply the gateway sent: no guid
      yield* h.record(DM, msg("current"))
      yield* h.record(GROUP, msg("elsewhere"))

      expect(texts(yield* h.recent(DM, 10, "guid-current"))).toEqual(["one", "two", "three", "reply"])
      expect(texts(yield* h.recent(DM, 2, "guid-current"))).toEqual(["three", "reply"])
      expect(texts(yield* h.recent(DM, 2))).toEqual(["reply", "current"])
      expect(yield* h.recent(DM, 0, "guid-current")).toEqual([])
      expect(yield* h.recent("iMessage;-;nobody", 5)).toEqual([])
      const [reply] = yield* h.recent(DM, 1, "guid-current")
      expect(reply).toEqual({ sender: "me", text: "reply", at: clock - 2, fromMe: true })
    }))

  it.scoped("bounded: perChat entries per chat, text truncated with a marker, a redelivered guid replaces its entry", () =>
    Effect.gen(function*() {
      const h = yield* makeChatHistory({ file: tmpFile(), perChat: 3 })
      for (const t of ["a", "b", "c", "d", "e"]) yield* h.record(GROUP, msg(t))
      expect(texts(yield* h.recent(GROUP, 100))).toEqual(["c", "d", "e"])

      yield* h.record(GROUP, msg("d", { text: "d (edited)" }))
      expect(texts(yield* h.recent(GROUP, 100))).toEqual(["c", "d (edited)", "e"])

      yield* h.record(GROUP, msg("long", { text: "x".repeat(10_000) }))
      const long = (yield* h.recent(GROUP, 1))[0]!.text
      expect(long).toHaveLength(HISTORY_TEXT_MAX)
      expect(long.endsWith(HISTORY_TRUNCATED_MARKER)).toBe(true)

      const none = yield* makeChatHistory({ file: tmpFile(), perChat: 0 })
      yield* none.record(GROUP, msg("ignored"))
      expect(yield* none.recent(GROUP, 10)).toEqual([])
    }))

  it.scoped("evicts the least recently active chat beyond maxChats", () =>
    Effect.gen(function*() {
      const h = yield* makeChatHistory({ file: tmpFile(), perChat: 5, maxChats: 2 })
      yield* h.record("chat-a", msg("a1"))
      yield* h.record("chat-b", msg("b1"))
      yield* h.record("chat-a", msg("a2")) // a is active again: b is now the least recent
      yield* h.record("chat-c", msg("c1"))
      expect(yield* h.recent("chat-b", 5)).toEqual([])
      expect(texts(yield* h.recent("chat-a", 5))).toEqual(["a1", "a2"])
      expect(texts(yield* h.recent("chat-c", 5))).toEqual(["c1"])
    }))

  it.scoped("a total size cap evicts whole old chats first, then the oldest entries of the newest", () =>
    Effect.gen(function*() {
      const h = yield* makeChatHistory({ file: tmpFile(), perChat: 10, maxTotalChars: 100 })
      yield* h.record("chat-a", msg("a", { text: "a".repeat(40), sender: "s" }))
      yield* h.record("chat-b", msg("b", { text: "b".repeat(40), sender: "s" }))
      yield* h.record("chat-b", msg("b2", { text: "c".repeat(40), sender: "s" }))
      expect(yield* h.recent("chat-a", 5)).toEqual([])
      expect((yield* h.recent("chat-b", 5)).length).toBe(2)
      yield* h.record("chat-b", msg("b3", { text: "d".repeat(40), sender: "s" }))
      expect(texts(yield* h.recent("chat-b", 5))).toEqual(["c".repeat(40), "d".repeat(40)])
    }))

  it.effect("persists write-behind (0600) and survives a re-make, smaller bounds applied on load", () =>
    Effect.gen(function*() {
      const file = tmpFile()
      const scope = yield* Scope.make()
      const h = yield* makeChatHistory({ file, perChat: 10, flushInterval: "5 seconds" }).pipe(Scope.extend(scope))
      yield* h.record(DM, msg("one"))
      yield* h.record(DM, msg("two"))
      expect(fs.existsSync(file)).toBe(false) // batched
      yield* TestClock.adjust("5 seconds")
      expect(fs.existsSync(file)).toBe(true)
      expect(fs.statSync(file).mode & 0o777).toBe(0o600)
      yield* h.record(GROUP, msg("three"))
      yield* Scope.close(scope, Exit.void) // the rest is flushed at the end

      yield* Effect.scoped(Effect.gen(function*() {
        const again = yield* makeChatHistory({ file, perChat: 10 })
        expect(texts(yield* again.recent(DM, 10))).toEqual(["one", "two"])
        expect(texts(yield* again.recent(GROUP, 10))).toEqual(["three"])
        expect((yield* again.recent(DM, 10))[0]).toMatchObject({ sender: "+15551230001", fromMe: false, messageGuid: "guid-one" })
      }))

      yield* Effect.scoped(Effect.gen(function*() {
        const smaller = yield* makeChatHistory({ file, perChat: 1, maxChats: 1 })
        expect(yield* smaller.recent(DM, 10)).toEqual([]) // GROUP was the most recently active
        expect(texts(yield* smaller.recent(GROUP, 10))).toEqual(["three"])
      }))
      // the trimmed history was written back
      expect(JSON.parse(fs.readFileSync(file, "utf8")).chats.map((c: [string, unknown]) => c[0])).toEqual([GROUP])
    }))

  it.effect("a damaged file: start empty with a warning, keep the damaged one aside, write afresh", () =>
    Effect.gen(function*() {
      const file = tmpFile()
      fs.mkdirSync(path.dirname(file), { recursive: true })
      fs.writeFileSync(file, '{"version":1,"chats":[["x", [{"sender":')
      const logs: Array<string> = []
      const logger = Logger.make(({ message }) => logs.push(String(message)))

      yield* Effect.scoped(Effect.gen(function*() {
        const h = yield* makeChatHistory({ file, perChat: 5 })
        expect(yield* h.recent("x", 5)).toEqual([])
        yield* h.record("x", msg("fresh"))
      })).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)))

      expect(logs.some((l) => l.includes("damaged") && l.includes(file))).toBe(true)
      expect(fs.readFileSync(`${file}.corrupt`, "utf8")).toContain('"sender":')
      yield* Effect.scoped(Effect.gen(function*() {
        const h = yield* makeChatHistory({ file, perChat: 5 })
        expect(texts(yield* h.recent("x", 5))).toEqual(["fresh"])
      }))

      // valid JSON of the wrong shape is damage too
      fs.writeFileSync(file, JSON.stringify({ version: 2, chats: {} }))
      const empty = yield* Effect.scoped(Effect.flatMap(makeChatHistory({ file, perChat: 5 }), (h) => h.recent("x", 5)))
      expect(empty).toEqual([])
    }))

  it.effect("an unreadable history path is an error that names it", () =>
    Effect.gen(function*() {
      const file = tmpFile()
      fs.mkdirSync(file, { recursive: true }) // a directory where the file should be
      const err = yield* Effect.flip(Effect.scoped(makeChatHistory({ file, perChat: 5 })))
      expect(err._tag).toBe("HistoryStoreError")
      expect(err.message).toContain(file)
    }))
})
