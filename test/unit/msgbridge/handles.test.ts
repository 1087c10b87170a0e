import { describe, expect, it } from "vitest"
import { chatGuidKey, isAllowed, looksLikeLocalNumber, normalizeHandle, parseChatGuid } from "../../../src/msgbridge/channel/Handles.js"

describe("normalizeHandle", () => {
  it.each([
    ["+1 (555) 123-0001", "+15551230001"],
    ["+1.555.123.0001", "+15551230001"],
    ["  +15551230001 ", "+15551230001"],
    ["tel:+1 555 123 0001", "+15551230001"],
    ["555-123-0001", "5551230001"], // no + → bare digits, no country guessed
    ["Friend@Example.COM", "friend@example.com"],
    ["mailto:Friend@Example.com", "friend@example.com"],
    ["chat_id:42", "chat_id:42"],
    ["CHAT_ID: 42", "chat_id:42"],
    ["chat_guid:iMessage;+;chat123", "chat_guid:iMessage;+;chat123"],
    ["chat_identifier:chat123", "chat_identifier:chat123"],
    ["*", "*"],
    ["SomeHandle", "somehandle"],
    ["1+2", "1+2"]
  ])("%s → %s", (raw, want) => {
    expect(normalizeHandle(raw)).toBe(want)
  })

  it("flags numbers written without +", () => {
    expect(looksLikeLocalNumber("(555) 123-0001")).toBe(true)
    expect(looksLikeLocalNumber("+15551230001")).toBe(false)
    expect(looksLikeLocalNumber("a@b.c")).toBe(false)
  })
})

describe("parseChatGuid", () => {
  it("parses DMs, groups, SMS and any", () => {
    expect(parseChatGuid("iMessage;-;+1 555 123 0001")).toMatchObject({
      service: "iMessage", isGroup: false, identifier: "+1 555 123 0001", normalizedIdentifier: "+15551230001"
    })
    expect(parseChatGuid("iMessage;+;chat482919384756")).toMatchObject({ isGroup: true, identifier: "chat482919384756" })
    expect(parseChatGuid("SMS;-;+15551230001")).toMatchObject({ service: "SMS", isGroup: false })
    expect(parseChatGuid("any;-;Friend@Example.com")).toMatchObject({ service: "any", normalizedIdentifier: "friend@example.com" })
    expect(parseChatGuid("not a guid")).toBeUndefined()
    expect(chatGuidKey("any;-;+15551230001")).toBe(chatGuidKey("iMessage;-;+1 (555) 123-0001"))
    expect(chatGuidKey("iMessage;+;chat1")).not.toBe(chatGuidKey("iMessage;-;chat1"))
  })
})

describe("isAllowed", () => {
  const target = { sender: "+15551230001", chatGuid: "iMessage;-;+15551230001", chatId: 7, chatIdentifier: "+15551230001" }
  it.each([
    [["+1 (555) 123-0001"], true],
    [["5551230001"], false],
    [["chat_guid:any;-;+15551230001"], true],
    [["chat_id:7"], true],
    [["chat_identifier:+15551230001"], true],
    [["*"], true],
    [["+15551230002"], false],
    [[], false]
  ] as const)("%j → %s", (list, want) => {
    expect(isAllowed(list, target)).toBe(want)
  })
  it("matches e-mail senders case-insensitively", () => {
    expect(isAllowed(["FRIEND@example.com"], { sender: "friend@EXAMPLE.com" })).toBe(true)
  })
})
