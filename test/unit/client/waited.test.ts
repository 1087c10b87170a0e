import { describe, expect, it } from "@effect/vitest"
import { waitedFor } from "../../../src/client/waited.js"

// What a wait says it waited for, in the CLI's and MCP's answers.

describe("waitedFor", () => {
  it("says each thing waited for, as it was asked", () => {
    expect(waitedFor({ timeMs: 300 })).toBe("0.3 s")
    expect(waitedFor({ text: "Done" })).toBe("\"Done\" to show")
    expect(waitedFor({ textGone: "Loading", url: "**/done" })).toBe("\"Loading\" to go and the URL to match \"**/done\"")
    expect(waitedFor({ selector: "e12", enabled: true })).toBe("[ref=e12] to show and be enabled")
    expect(waitedFor({ selector: "12" })).toBe("[ref=12] to show")
    expect(waitedFor({ selector: "f1e2" })).toBe("[ref=f1e2] to show")
    expect(waitedFor({ selector: "#go" })).toBe("#go to show")
    expect(waitedFor({ load: "networkidle", fn: "() => window.ready" })).toBe("the page's networkidle state and the function to hold")
    expect(waitedFor({})).toBe("")
  })
})
