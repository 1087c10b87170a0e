import { describe, expect, it } from "vitest"
import { logText } from "../../../src/platform/logText.js"

describe("logText", () => {
  it("keeps one line: newlines, NUL and escape sequences are shown escaped", () => {
    expect(logText("GUID-1\n[12:00:00] INFO forged line")).toBe("GUID-1\\n[12:00:00] INFO forged line")
    expect(logText("a\u0000b\u001b[31mc\r\td\u2028")).toBe("a\\u0000b\\u001b[31mc\\r\\td\\u2028")
    expect(logText("plain text, unicode ok: é ✓")).toBe("plain text, unicode ok: é ✓")
  })
  it("cuts long text and says how much more there was", () => {
    const out = logText("x".repeat(2_000), 100)
    expect(out.startsWith("x".repeat(100))).toBe(true)
    expect(out).toContain("[1900 more characters]")
  })
})
