import { describe, expect, it } from "@effect/vitest"
import { shortenDecodeIssues } from "../../../src/http/decodeErrors.js"

// The control API's 400 for a request its schema refuses: one short line naming the field and what it
// takes, from the issues Schema's ArrayFormatter gives (these are the ones the gateway's routes produce).

const KINDS = ["click", "type", "typeFocused", "press", "clickAt", "back", "forward", "reload", "text", "value", "hover",
  "scrollIntoView", "drag", "select", "fill", "resize", "wait", "evaluate", "close"]

describe("shortenDecodeIssues", () => {
  it("a missing field", () => {
    const short = shortenDecodeIssues([{ _tag: "Missing", path: ["ref"], message: "is missing" }])
    expect(short.message).toBe("ref: is missing")
    expect(short.issues).toEqual([{ _tag: "Missing", path: ["ref"], message: "is missing" }])
  })

  it("a literal union lists what it takes, plainly, and what it got", () => {
    const short = shortenDecodeIssues([{
      _tag: "Type",
      path: ["kind"],
      message: `Expected ${KINDS.map((k) => JSON.stringify(k)).join(" | ")}, actual "clack"`
    }])
    expect(short.message).toBe(`kind: expected one of ${KINDS.join(", ")}, got "clack"`)
    expect(short.message.length).toBeLessThan(300)
  })

  it("one issue per member of a union, and an optional field's `undefined`, fold into one line", () => {
    const members = ["true", "false", "1", "0", ""].map((v) => ({
      _tag: "Type" as const,
      path: ["interactive"],
      message: `Expected ${JSON.stringify(v)}, actual "maybe"`
    }))
    const short = shortenDecodeIssues([...members, { _tag: "Type", path: ["interactive"], message: 'Expected undefined, actual "maybe"' }])
    expect(short.message).toBe('interactive: expected one of true, false, 1, 0, "", got "maybe"')
    expect(short.issues).toHaveLength(1)
  })

  it("an optional field that fails deeper is named there only, not also for its `undefined`", () => {
    const short = shortenDecodeIssues([
      { _tag: "Type", path: ["headers", 0], message: "a header is written \"Name: Value\"" },
      { _tag: "Type", path: ["headers"], message: "Expected undefined, actual [\"bad header\"]" }
    ])
    expect(short.message).toBe("headers[0]: a header is written \"Name: Value\"")
    expect(short.issues).toHaveLength(1)
  })

  it("a refinement's own message, with the value it got", () => {
    const short = shortenDecodeIssues([
      { _tag: "Refinement", path: ["limit"], message: "expected a whole number from 1 to 10000000" },
      { _tag: "Type", path: ["limit"], message: 'Expected undefined, actual "0"' }
    ])
    expect(short.message).toBe('limit: expected a whole number from 1 to 10000000, got "0"')
  })

  it("a wrong type, a nested field, and a message that names its field already", () => {
    expect(shortenDecodeIssues([{ _tag: "Type", path: ["ref"], message: "Expected string, actual 5" }]).message)
      .toBe("ref: expected string, got 5")
    expect(shortenDecodeIssues([{ _tag: "Missing", path: ["fields", 0, "type"], message: "is missing" }]).message)
      .toBe("fields[0].type: is missing")
    expect(shortenDecodeIssues([{ _tag: "Refinement", path: ["to"], message: "to must not be empty" }]).message)
      .toBe("to must not be empty")
  })

  it("a whole struct printed as the expected type is named, not dumped", () => {
    const struct = `{ readonly kind: "click"; readonly targetId?: TargetId | undefined; readonly ref: Ref; ${"x".repeat(200)} }`
    const short = shortenDecodeIssues([{ _tag: "Type", path: [], message: `Expected ${struct}, actual []` }])
    expect(short.message).toBe("the request body: expected a JSON object, got []")
  })

  it("names two fields at most, counts the rest, and stays short whatever the input", () => {
    const short = shortenDecodeIssues([
      { _tag: "Missing", path: ["a"], message: "is missing" },
      { _tag: "Missing", path: ["b"], message: "is missing" },
      { _tag: "Missing", path: ["c"], message: "is missing" },
      { _tag: "Missing", path: ["d"], message: "is missing" }
    ])
    expect(short.message).toBe("a: is missing; b: is missing; and 2 more field(s)")
    expect(short.issues.map((i) => i.path)).toEqual([["a"], ["b"]])
    const huge = shortenDecodeIssues([
      { _tag: "Refinement", path: ["x"], message: "y".repeat(5000) },
      { _tag: "Refinement", path: ["z"], message: `${"w".repeat(5000)}\nsecond line` }
    ])
    expect(huge.message.length).toBeLessThanOrEqual(300)
    expect(huge.message).not.toContain("\n")
    expect(shortenDecodeIssues([]).message).toBe("the request does not match the control API's schema")
  })
})
