import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { NavigateRequest, Tab } from "../../../src/domain/browser.js"
import { NotFound } from "../../../src/domain/errors.js"

// What the gateway answers hides the secrets of the URLs in it as it is encoded; what it is sent keeps them.

describe("ShownText in answers", () => {
  const url = "https://ada:pw@example.com/in?token=abc&page=2"

  it("an answer's URL and an error's message are encoded with their secrets hidden, and read back as they came", () => {
    const tab = { index: 0, targetId: "T", title: "In", url, type: "page", current: true }
    const encoded = Schema.encodeUnknownSync(Tab)(tab) as { url: string }
    expect(encoded.url).toBe("https://ada:***@example.com/in?token=***&page=2")
    expect((Schema.decodeUnknownSync(Tab)(encoded) as { url: string }).url).toBe(encoded.url)
    const error = Schema.encodeSync(NotFound)(new NotFound({ message: `no tab at ${url}` }))
    expect(error.message).toBe("no tab at https://ada:***@example.com/in?token=***&page=2")
  })

  it("a request keeps the URL it was sent whole", () => {
    expect(Schema.encodeSync(NavigateRequest)({ url })).toEqual({ url })
  })
})
