import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { capText, READ_LIMIT } from "../../../src/browser/act/moreActions.js"
import { ActRequest } from "../../../src/domain/browser.js"

describe("text and value are capped with a marker", () => {
  it("leaves text up to the limit as it is", () => {
    expect(capText("x".repeat(READ_LIMIT))).toBe("x".repeat(READ_LIMIT))
    expect(capText("")).toBe("")
  })
  it("cuts longer text and says how much there was", () => {
    expect(capText("abcdef", 4)).toBe("abcd… [truncated: 4 of 6 characters shown]")
  })
})

describe("the new act kinds decode", () => {
  const decode = Schema.decodeUnknownEither(ActRequest)
  it("back, forward, reload take nothing but a tab and a timeout", () => {
    for (const kind of ["back", "forward", "reload"]) expect(decode({ kind, timeoutMs: 1000 })._tag).toBe("Right")
  })
  it("text and value need a ref; typeFocused takes no ref; clickAt needs both coordinates", () => {
    expect(decode({ kind: "text", ref: "e3" })._tag).toBe("Right")
    expect(decode({ kind: "value" })._tag).toBe("Left")
    expect(decode({ kind: "typeFocused", text: "12" })).toMatchObject({ _tag: "Right", right: { kind: "typeFocused", text: "12" } })
    expect(decode({ kind: "clickAt", x: 10, y: 20 })._tag).toBe("Right")
    expect(decode({ kind: "clickAt", x: 10 })._tag).toBe("Left")
  })
})
