import { describe, expect, it } from "@effect/vitest"
import { consoleLines } from "../../../src/mcp/results.js"

// The console as an agent reads it over MCP: logged messages and uncaught errors, in the order they came in.

const logged = (seq: number, text: string, level: "info" | "warning" | "error" = "info") => ({
  seq,
  type: "log",
  level,
  text,
  location: { url: "http://127.0.0.1/p", line: seq, column: 0 },
  // The page's clock: an error's time is when the gateway heard of it, so times do not order the two.
  timestamp: "2026-01-01T00:00:00.050Z"
})
const thrown = (seq: number, message: string) => ({ seq, name: "TypeError", message, stack: null, timestamp: "2026-01-01T00:00:00.001Z" })

describe("consoleLines", () => {
  it("puts uncaught errors among the messages in the order they came (their shared seq), lines counted from 1", () => {
    expect(consoleLines([logged(1, "first"), logged(3, "last", "warning")], [thrown(2, "x is undefined")])).toEqual([
      "[info] first (http://127.0.0.1/p:2)",
      "[error] Uncaught TypeError: x is undefined",
      "[warning] last (http://127.0.0.1/p:4)"
    ])
  })

  it("says nothing when there is nothing", () => {
    expect(consoleLines([], [])).toEqual([])
  })
})
