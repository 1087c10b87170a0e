import { describe, expect, it } from "vitest"
import { webhookAuthorised } from "../../../src/msgbridge/webhook.js"

const local = { host: "127.0.0.1:18789" }
const base = { url: "/msgbridge-webhook", headers: local as Record<string, string>, password: "pw-123456", trustedProxies: [] as Array<string> }

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
      expect(webhookAuthorised({ ...base, headers: { ...local, [h]: "127.0.0.1" }, remoteAddress: "127.0.0.1" }), h).toBe(false)
    }
  })

  it("believes a trusted proxy about a loopback client, and only a trusted one", () => {
    const proxied = { ...base, headers: { ...local, "x-forwarded-for": "127.0.0.1, 10.0.0.2" }, remoteAddress: "127.0.0.1" }
    expect(webhookAuthorised({ ...proxied, trustedProxies: ["127.0.0.1"] })).toBe(true)
    expect(webhookAuthorised({ ...proxied, headers: { ...local, "x-forwarded-for": "203.0.113.9" }, trustedProxies: ["127.0.0.1"] })).toBe(false)
    expect(webhookAuthorised(proxied)).toBe(false)
  })

  it("gives no loopback trust to a browser's request (a page can post to loopback) or to a non-loopback Host", () => {
    const loop = { ...base, remoteAddress: "127.0.0.1" }
    for (const headers of [
      { origin: "http://127.0.0.1:8000" },
      { origin: "http://evil.example" },
      { origin: "null" },
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
      { "sec-fetch-site": "same-origin" },
      { "sec-fetch-mode": "no-cors" },
      { "sec-fetch-dest": "empty" },
      { "sec-fetch-user": "?1" }
    ]) {
      expect(webhookAuthorised({ ...loop, headers: { ...local, ...headers } }), JSON.stringify(headers)).toBe(false)
      // The password still admits it: it proves the sender is the bridge.
      expect(webhookAuthorised({ ...loop, url: "/h?password=pw-123456", headers: { ...local, ...headers } })).toBe(true)
    }
    for (const host of ["evil.example", "evil.example:18789", "127.0.0.1.nip.io", "localhost.evil.example", ""]) {
      expect(webhookAuthorised({ ...loop, headers: { host } }), host).toBe(false)
    }
    expect(webhookAuthorised({ ...loop, headers: {} })).toBe(false)
    for (const host of ["localhost:18789", "[::1]:18789", "127.0.0.1"]) {
      expect(webhookAuthorised({ ...loop, headers: { host } }), host).toBe(true)
    }
    // Node's fetch adds a lone Sec-Fetch-Mode: cors; that is a program, not a page.
    expect(webhookAuthorised({ ...loop, headers: { ...local, "sec-fetch-mode": "cors" } })).toBe(true)
  })
})
