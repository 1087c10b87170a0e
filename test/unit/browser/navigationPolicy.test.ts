import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { isCloudMetadata, isThisMachine } from "../../../src/browser/policy/addresses.js"
import { checkUrl, type PolicySettings } from "../../../src/browser/policy/checkUrl.js"
import { matchesHost, parseHostPattern } from "../../../src/browser/policy/hostPattern.js"
import { decodeSvcConfig } from "../../../src/config/SvcConfig.js"
import { policySettings } from "../../support/policySettings.js"

// The navigation policy's pieces: host patterns, addresses, and the one decision (every rule, in order).

const pattern = (raw: string) => Either.getOrThrow(parseHostPattern(raw))
const refusal = (raw: string) => Either.flip(parseHostPattern(raw)).pipe(Either.getOrThrow)
/** A host as the browser's URL parser writes it. */
const hostOf = (url: string) => new URL(url).hostname

const settings = policySettings
const rule = (s: PolicySettings, url: string) => {
  const d = checkUrl(s, url)
  return d.allowed ? "allowed" : d.rule
}

describe("host patterns", () => {
  it("a plain host matches itself only; `*.` matches the domain and every host under it", () => {
    const exact = pattern("example.com")
    expect(matchesHost(exact, "example.com")).toBe(true)
    expect(matchesHost(exact, "www.example.com")).toBe(false)
    expect(matchesHost(exact, "badexample.com")).toBe(false)
    const wild = pattern("*.example.com")
    for (const host of ["example.com", "a.example.com", "a.b.example.com"]) expect(matchesHost(wild, host), host).toBe(true)
    for (const host of ["badexample.com", "example.com.evil.net", "example.org"]) expect(matchesHost(wild, host), host).toBe(false)
  })

  it("case, a trailing dot, IDN and IP spellings do not matter", () => {
    expect(matchesHost(pattern("Example.COM."), hostOf("http://EXAMPLE.com./"))).toBe(true)
    expect(matchesHost(pattern("*.bücher.example"), hostOf("https://shop.xn--bcher-kva.example/"))).toBe(true)
    expect(matchesHost(pattern("xn--bcher-kva.example"), hostOf("https://bücher.example/"))).toBe(true)
    expect(matchesHost(pattern("127.0.0.2"), hostOf("http://0x7f.0.0.2/"))).toBe(true)
    expect(matchesHost(pattern("[::1]"), hostOf("http://[0:0::1]/"))).toBe(true)
    expect(matchesHost(pattern("::1"), "[::1]")).toBe(true)
    expect(matchesHost(pattern("127.0.0.1"), hostOf("http://[::ffff:127.0.0.1]/"))).toBe(true)
  })

  it("refuses a scheme, port, path, user or a `*` elsewhere, saying the shape", () => {
    expect(refusal("https://example.com")).toContain("has a scheme")
    expect(refusal("example.com/x")).toContain("has a path")
    expect(refusal("example.com:8080")).toContain("has a port")
    expect(refusal("[::1]:8080")).toContain("has a port")
    expect(refusal("user@example.com")).toContain("has a user name")
    expect(refusal("ex*ample.com")).toContain("`*`")
    expect(refusal("*example.com")).toContain("`*`")
    expect(refusal("*.*.example.com")).toContain("`*`")
    expect(refusal("*.127.0.0.1")).toContain("IP address")
    expect(refusal("")).toContain("is empty")
    expect(refusal("x y")).toContain("is not a host")
    for (const bad of ["https://example.com", "example.com:80"]) expect(refusal(bad)).toContain("*.example.com: the domain")
  })

  it("svc.json takes valid patterns and refuses the others, naming the key and the shape", () => {
    expect(Either.isRight(decodeSvcConfig({ browser: { allowedDomains: ["*.example.com", "127.0.0.2"], allowFileUrls: true } })))
      .toBe(true)
    const bad = decodeSvcConfig({ browser: { blockedDomains: ["https://evil.example/x"] } })
    expect(Either.isLeft(bad)).toBe(true)
    expect(String(Either.flip(bad).pipe(Either.getOrThrow))).toContain("has a scheme")
  })
})

describe("addresses", () => {
  it("this machine however it is written; others are not", () => {
    for (const host of ["localhost", "LOCALHOST.", "app.localhost", "127.0.0.1", "127.1.2.3", "0.0.0.0", "[::1]", "[::]", "[::ffff:7f00:1]", "10.1.2.3", "[fe80::1]"]) {
      expect(isThisMachine(host, settings().interfaces), host).toBe(true)
    }
    for (const host of ["example.com", "10.1.2.4", "[::2]", "localhost.example.com", "128.0.0.1"]) {
      expect(isThisMachine(host, settings().interfaces), host).toBe(false)
    }
  })

  it("cloud metadata services", () => {
    for (const url of ["http://169.254.169.254/", "http://[fd00:ec2::254]/", "http://metadata.google.internal./", "http://2852039166/", "http://[::ffff:169.254.169.254]/"]) {
      expect(isCloudMetadata(hostOf(url)), url).toBe(true)
    }
    expect(isCloudMetadata("169.254.169.253")).toBe(false)
  })
})

describe("checkUrl", () => {
  it("scheme: http(s), about:blank, data: and blob: open; file: only with allowFileUrls; the rest never", () => {
    const s = settings()
    for (const url of ["https://example.com/", "http://example.com:8080/x", "about:blank", "data:text/html,hi", "blob:https://example.com/0b7c"]) {
      expect(rule(s, url), url).toBe("allowed")
    }
    for (const url of ["file:///etc/passwd", "javascript:alert(1)", "chrome://settings", "about:settings", "ftp://x.org/", "view-source:https://a.b/", "not a url"]) {
      expect(rule(s, url), url).toBe("scheme")
    }
    expect(rule(settings({ allowFileUrls: true }), "file:///etc/passwd")).toBe("allowed")
    const file = checkUrl(s, "file:///etc/passwd")
    expect(!file.allowed && file.message).toContain("svc config set browser.allowFileUrls true")
    const js = checkUrl(s, "javascript:alert(1)")
    expect(!js.allowed && js.message).toContain("svc browser evaluate")
  })

  it("ownPort: svc's ports on this machine, however written, whatever the lists say", () => {
    const s = settings({ allowedDomains: [pattern("localhost"), pattern("127.0.0.1")] })
    for (const url of [
      "http://127.0.0.1:18791/",
      "http://localhost:18789/x",
      "http://LOCALHOST.:18792/",
      "http://app.localhost:18791/",
      "http://2130706433:18791/",
      "http://0x7f000001:18791/",
      "http://0177.0.0.1:18791/",
      "http://127.1:18791/",
      "http://[::1]:18791/",
      "http://[::ffff:127.0.0.1]:18791/",
      "http://0.0.0.0:18791/",
      "http://10.1.2.3:18789/",
      "ws://127.0.0.1:18792/extension",
      "http://allowed.example@127.0.0.1:18791/"
    ]) {
      expect(rule(s, url), url).toBe("ownPort")
    }
    for (const url of ["http://127.0.0.1:18790/", "http://localhost/", "http://example.com:18791/"]) {
      expect(rule(settings(), url), url).toBe("allowed")
    }
    const d = checkUrl(s, "http://127.0.0.1:18791/")
    expect(!d.allowed && d.message).toContain("svc's own browser control port")
  })

  it("cloudMetadata: refused by default; an exact allowedDomains entry opens it", () => {
    expect(rule(settings(), "http://169.254.169.254/latest/meta-data/")).toBe("cloudMetadata")
    expect(rule(settings(), "http://metadata.google.internal/")).toBe("cloudMetadata")
    expect(rule(settings({ allowedDomains: [pattern("*.google.internal")] }), "http://metadata.google.internal/")).toBe("cloudMetadata")
    expect(rule(settings({ allowedDomains: [pattern("169.254.169.254")] }), "http://169.254.169.254/")).toBe("allowed")
  })

  it("blockedDomains refuses a match; userinfo, case and trailing dots do not hide the host", () => {
    const s = settings({ blockedDomains: [pattern("*.evil.example")] })
    for (const url of ["https://evil.example/", "https://WWW.Evil.Example./x", "http://allowed.com@evil.example/", "https://a.b.evil.example:8443/"]) {
      expect(rule(s, url), url).toBe("blockedDomains")
    }
    expect(rule(s, "https://notevil.example/")).toBe("allowed")
    const d = checkUrl(s, "https://evil.example/")
    expect(!d.allowed && d.message).toContain(
      "blocked by browser.blockedDomains pattern *.evil.example; remove it from svc.json to allow"
    )
  })

  it("allowedDomains: when set, a host must match one; blockedDomains still wins", () => {
    const s = settings({ allowedDomains: [pattern("*.good.example"), pattern("10.0.0.7")], blockedDomains: [pattern("bad.good.example")] })
    expect(rule(s, "https://good.example/")).toBe("allowed")
    expect(rule(s, "https://www.good.example/")).toBe("allowed")
    expect(rule(s, "http://10.0.0.7:8080/")).toBe("allowed")
    expect(rule(s, "http://allowed.good.example@other.example/")).toBe("allowedDomains")
    expect(rule(s, "https://good.example.other.net/")).toBe("allowedDomains")
    expect(rule(s, "https://bad.good.example/")).toBe("blockedDomains")
    expect(rule(s, "about:blank")).toBe("allowed")
    const d = checkUrl(s, "https://other.example/")
    expect(!d.allowed && d.message).toContain("matches no pattern of browser.allowedDomains (*.good.example, 10.0.0.7)")
  })
})
