import { describe, expect, it } from "@effect/vitest"
import { consoleLines } from "../../../src/mcp/results.js"

// The console as an agent reads it over MCP: logged messages and uncaught errors, in the order they happened.

const logged = (seq: number, timestamp: string, text: string, level: "info" | "warning" | "error" = "info") => ({
  seq,
  type: "log",
  level,
  text,
  location: { url: "http://127.0.0.1/p", line: seq, column: 0 },
  timestamp
})
const thrown = (seq: number, timestamp: string, message: string) => ({ seq, name: "TypeError", message, stack: null, timestamp })

describe("consoleLines", () => {
  it("puts uncaught errors among the messages by time, lines counted from 1", () => {
    expect(consoleLines(
      [logged(1, "2026-01-01T00:00:00.001Z", "first"), logged(2, "2026-01-01T00:00:00.050Z", "last", "warning")],
      [thrown(1, "2026-01-01T00:00:00.020Z", "x is undefined")]
    )).toEqual([
      "[info] first (http://127.0.0.1/p:2)",
      "[error] Uncaught TypeError: x is undefined",
      "[warning] last (http://127.0.0.1/p:3)"
    ])
  })

  it("within one millisecond keeps each list's order, messages before errors", () => {
    const at = "2026-01-01T00:00:00.001Z"
    expect(consoleLines([logged(7, at, "a"), logged(8, at, "b")], [thrown(3, at, "c"), thrown(4, at, "d")])).toEqual([
      "[info] a (http://127.0.0.1/p:8)",
      "[info] b (http://127.0.0.1/p:9)",
      "[error] Uncaught TypeError: c",
      "[error] Uncaught TypeError: d"
    ])
  })

  it("says nothing when there is nothing", () => {
    expect(consoleLines([], [])).toEqual([])
  })
})
