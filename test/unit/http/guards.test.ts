import { describe, expect, it } from "vitest"
import { checkCredentials, checkHost, checkOrigin } from "../../../src/http/guards.js"
import { secretEquals } from "../../../src/platform/secrets.js"

const token = "t0k3n-abcdefghijklmnopqrstuvwxyz"
const password = "correct horse battery"

describe("credentials", () => {
  it("accepts the bearer token and refuses a wrong or missing one", () => {
    expect(checkCredentials({ authorization: `Bearer ${token}` }, { token, password: undefined }).ok).toBe(true)
    expect(checkCredentials({ authorization: `bearer ${token}` }, { token, password: undefined }).ok).toBe(true)
    const wrong = checkCredentials({ authorization: `Bearer ${token}x` }, { token, password: undefined })
    expect(wrong).toEqual({ ok: false, message: expect.stringContaining("does not match") })
    const missing = checkCredentials({}, { token, password: undefined })
    expect(missing).toEqual({ ok: false, message: expect.stringContaining("Authorization: Bearer") })
  })

  it("accepts the password header and HTTP Basic with the password, any user", () => {
    const creds = { token, password }
    expect(checkCredentials({ "x-svc-password": password }, creds).ok).toBe(true)
    expect(checkCredentials({ "x-svc-password": "nope" }, creds).ok).toBe(false)
    const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`
    expect(checkCredentials({ authorization: basic("anyone", password) }, creds).ok).toBe(true)
    expect(checkCredentials({ authorization: basic("anyone", "nope") }, creds).ok).toBe(false)
  })

  it("does not accept the password where no password is configured, nor the token as a password", () => {
    expect(checkCredentials({ "x-svc-password": token }, { token, password: undefined }).ok).toBe(false)
    const basic = `Basic ${Buffer.from(`u:${token}`).toString("base64")}`
    expect(checkCredentials({ authorization: basic }, { token, password: undefined }).ok).toBe(false)
  })

  it("compares secrets by value whatever their lengths", () => {
    expect(secretEquals("abc", "abc")).toBe(true)
    expect(secretEquals("abc", "abcd")).toBe(false)
    expect(secretEquals("", "x")).toBe(false)
  })
})

describe("Host (DNS rebinding)", () => {
  it.each(["127.0.0.1:18791", "localhost:18791", "[::1]:18791", "127.0.0.1", "LOCALHOST:1"])("accepts %s", (h) => {
    expect(checkHost(h).ok).toBe(true)
  })
  it.each(["evil.example:18791", "192.168.1.5:18791", "127.0.0.1.evil.example", "", "[::2]:1"])("refuses %s", (h) => {
    expect(checkHost(h)).toEqual({ ok: false, message: expect.stringContaining("not a loopback name") })
  })
  it("refuses a missing Host", () => {
    expect(checkHost(undefined).ok).toBe(false)
  })
})

describe("Origin", () => {
  it("refuses cross-site origins on mutating requests only", () => {
    expect(checkOrigin("POST", { origin: "https://evil.example" }).ok).toBe(false)
    expect(checkOrigin("DELETE", { origin: "null" }).ok).toBe(false)
    expect(checkOrigin("POST", { "sec-fetch-site": "cross-site" }).ok).toBe(false)
    expect(checkOrigin("GET", { origin: "https://evil.example" }).ok).toBe(true)
  })
  it("allows loopback origins and requests without an Origin", () => {
    expect(checkOrigin("POST", { origin: "http://127.0.0.1:18791" }).ok).toBe(true)
    expect(checkOrigin("POST", { origin: "http://localhost:3000" }).ok).toBe(true)
    expect(checkOrigin("POST", {}).ok).toBe(true)
  })
})
