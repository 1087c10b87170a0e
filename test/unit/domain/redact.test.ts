import { describe, expect, it } from "@effect/vitest"
import { basicAuthOf, redactSecrets, withoutUserinfo } from "../../../src/domain/redact.js"

describe("redactSecrets", () => {
  it("hides the password of the userinfo and keeps the user, the host and the rest as written", () => {
    expect(redactSecrets("http://user:secretpw@host:9")).toBe("http://user:***@host:9")
    expect(redactSecrets("https://user:p%40ss@h.example/devtools?x=1")).toBe("https://user:***@h.example/devtools?x=1")
  })

  it("hides a userinfo without a password whole (it is often the token itself)", () => {
    expect(redactSecrets("wss://abcdef0123@cloud.example/browser")).toBe("wss://***@cloud.example/browser")
    expect(redactSecrets("http://user@host/")).toBe("http://***@host/")
  })

  it("hides the values of secret-looking query parameters, whatever their case", () => {
    const names = [
      "token", "TOKEN", "key", "apikey", "api_key", "apiKey", "x-api-key", "secret", "client_secret", "password",
      "pass", "pwd", "auth", "Authorization", "oauth_token", "x-auth", "access_token", "sig", "signature", "X-Amz-Signature",
      "X-Amz-Credential", "credentials", "sessionid", "jwt"
    ]
    for (const n of names) {
      expect(redactSecrets(`http://h:1/json?${n}=s3cr3t&mode=1`), n).toBe(`http://h:1/json?${n}=***&mode=1`)
    }
  })

  it("keeps the values of other parameters, and empty values", () => {
    const plain = "https://example.com/search?q=monkey&page=2&keyboard=us&token=&design=1&author=ada&authority=x"
    expect(redactSecrets(plain)).toBe(plain)
  })

  it("finds URLs inside longer text: messages, JSON, several at once", () => {
    expect(
      redactSecrets("no browser answers CDP at http://u:pw@127.0.0.1:9/x?token=abc (connection refused).")
    ).toBe("no browser answers CDP at http://u:***@127.0.0.1:9/x?token=*** (connection refused).")
    expect(redactSecrets("see ws://a:b@h/x?key=1, then wss://h2/?auth=2.")).toBe("see ws://a:***@h/x?key=***, then wss://h2/?auth=***.")
    const json = JSON.stringify({ cdpUrl: "http://u:pw@h:1/?token=t", note: "ok" })
    expect(JSON.parse(redactSecrets(json))).toEqual({ cdpUrl: "http://u:***@h:1/?token=***", note: "ok" })
    expect(redactSecrets(JSON.stringify(JSON.stringify({ u: "http://h/?token=t" })))).toBe(
      JSON.stringify(JSON.stringify({ u: "http://h/?token=***" }))
    )
  })

  it("hides secret parameters of a fragment too (OAuth's implicit flow)", () => {
    expect(redactSecrets("https://app.example/cb#access_token=abc&state=1")).toBe("https://app.example/cb#access_token=***&state=1")
    expect(redactSecrets("https://app.example/doc#section-2")).toBe("https://app.example/doc#section-2")
  })

  it("leaves text without URLs alone", () => {
    for (const t of ["", "token=abc", "user:pass@host", "profile far (remote): stopped", "a://", "mailto:x@y.z?subject=hi"]) {
      expect(redactSecrets(t)).toBe(t)
    }
  })

  it("covers ws:// and wss:// like http(s)://", () => {
    expect(redactSecrets("ws://u:p@127.0.0.1:9222/devtools/browser/x?token=t")).toBe(
      "ws://u:***@127.0.0.1:9222/devtools/browser/x?token=***"
    )
    expect(redactSecrets("wss://u:p@h/?apiKey=t")).toBe("wss://u:***@h/?apiKey=***")
  })

  it("is idempotent", () => {
    const once = redactSecrets("http://u:p@h/?token=t")
    expect(redactSecrets(once)).toBe(once)
  })
})

describe("Basic credentials of a URL", () => {
  it("decodes the userinfo into the header and takes it off the URL", () => {
    const u = new URL("http://us%3Aer:p%40ss%20w@127.0.0.1:9/base?token=t")
    expect(basicAuthOf(u)).toBe(`Basic ${Buffer.from("us:er:p@ss w").toString("base64")}`)
    expect(withoutUserinfo(u).href).toBe("http://127.0.0.1:9/base?token=t")
    expect(basicAuthOf(new URL("http://127.0.0.1:9/"))).toBeUndefined()
  })
})
