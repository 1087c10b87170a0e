import { describe, expect, it } from "vitest"
import { webhookAuthorised } from "../../../src/msgbridge/webhook.js"

const base = { url: "/msgbridge-webhook", headers: {}, password: "pw-123456", trustedProxies: [] as Array<string> }

describe("webhook auth", () => {
  it("admits the password in the query (password or guid) or a header, from anywhere", () => {
    for (const input of [
      { ...base, url: "/msgbridge-webhook?password=pw-123456", remoteAddress: "203.0.113.5" },
      { ...base, url: "/msgbridge-webhook?guid=pw-123456", remoteAddress: "203.0.113.5" },
      { ...base, headers: { password: "pw-123456" }, remoteAddress: "203.0.113.5" },
      { ...base, headers: { guid: "pw-123456" }, remoteAddress: "203.0.113.5" }
    ]) expect(webhookAuthorised(input)).toBe(true)
  })

  it("refuses a wrong password, even from loopback, and anything remote without one", () => {
    expect(webhookAuthorised({ ...base, url: "/h?password=nope", remoteAddress: "127.0.0.1" })).toBe(false)
    expect(webhookAuthorised({ ...base, remoteAddress: "203.0.113.5" })).toBe(false)
    expect(webhookAuthorised({ ...base, remoteAddress: undefined })).toBe(false)
  })

  it("admits a direct loopback request without a password, but not a proxied one", () => {
    expect(webhookAuthorised({ ...base, remoteAddress: "127.0.0.1" })).toBe(true)
    expect(webhookAuthorised({ ...base, remoteAddress: "::ffff:127.0.0.1" })).toBe(true)
    expect(webhookAuthorised({ ...base, remoteAddress: "::1" })).toBe(true)
    for (const h of ["x-forwarded-for", "x-real-ip", "forwarded", "x-forwarded-host"]) {
      expect(webhookAuthorised({ ...base, headers: { [h]: "127.0.0.1" }, remoteAddress: "127.0.0.1" }), h).toBe(false)
    }
  })

  it("believes a trusted proxy about a loopback client, and only a trusted one", () => {
    const proxied = { ...base, headers: { "x-forwarded-for": "127.0.0.1, 10.0.0.2" }, remoteAddress: "127.0.0.1" }
    expect(webhookAuthorised({ ...proxied, trustedProxies: ["127.0.0.1"] })).toBe(true)
    expect(webhookAuthorised({ ...proxied, headers: { "x-forwarded-for": "203.0.113.9" }, trustedProxies: ["127.0.0.1"] })).toBe(false)
    expect(webhookAuthorised(proxied)).toBe(false)
  })
})
