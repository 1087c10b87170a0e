import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { checkUrl, type PolicySettings } from "../../../src/browser/policy/checkUrl.js"
import { parseHostPattern } from "../../../src/browser/policy/hostPattern.js"
import { notStartingWith, type PausePattern, pausePatterns } from "../../../src/browser/policy/pausePatterns.js"
import { policySettings } from "../../support/policySettings.js"

// The requests the browser pauses for the policy: every URL the policy refuses must be paused (else a page
// could send the browser there unchecked), and the common ones it allows are not (each pause waits for the
// gateway). URLs are matched as the browser's URL parser writes them, with CDP's wildcards.

const settings = (over: Partial<PolicySettings> = {}): PolicySettings =>
  policySettings({ ownPorts: [...policySettings().ownPorts, { port: 18800, name: "DevTools (profile \"work\")" }], ...over })

/** CDP's URL pattern: `*` any run of characters, `?` one, a backslash escapes. */
const globRegex = (pattern: string): RegExp => {
  let re = ""
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === "\\" && i + 1 < pattern.length) re += pattern[++i]!.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
    else if (c === "*") re += "[\\s\\S]*"
    else if (c === "?") re += "[\\s\\S]"
    else re += c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
  }
  return new RegExp(`^${re}$`)
}

/** Whether a document at `url` (as the browser writes it) is paused. */
const paused = (patterns: ReadonlyArray<PausePattern>, url: string, type = "Document") => {
  const written = URL.canParse(url) ? new URL(url).href : url
  return patterns.some((p) => (p.resourceType === undefined || p.resourceType === type) && globRegex(p.urlPattern).test(written))
}

const hosts = [
  "127.0.0.1",
  "localhost",
  "LOCALHOST.",
  "app.localhost",
  "2130706433",
  "0x7f.1",
  "0177.0.0.1",
  "127.1",
  "0.0.0.0",
  "[::1]",
  "[::]",
  "[::ffff:127.0.0.1]",
  "[0:0:0:0:0:ffff:7f00:1]",
  "10.1.2.3",
  "[fe80::1]",
  "169.254.169.254",
  "0xa9fea9fe",
  "2852039166",
  "[::ffff:169.254.169.254]",
  "[::ffff:a9fe:a9fe]",
  "169.254.170.2",
  "100.100.100.200",
  "[::ffff:100.100.100.200]",
  "[fd00:ec2::254]",
  "[fd00:0ec2:0:0:0:0:0:0254]",
  "METADATA.GOOGLE.INTERNAL.",
  "metadata",
  "example.com",
  "docs.python.org"
]
const ports = ["", ":80", ":443", ":8080", ":18789", ":018791", ":18792", ":18800", ":18801"]
const tails = ["", "/", "/tabs?x=1", "/a/b#frag"]
const schemes = ["http://", "https://", "HTTP://", "ws://"]
const userinfo = ["", "user:pw@", "169.254.169.254@"]

const corpus = (): Array<string> => {
  const urls: Array<string> = []
  for (const scheme of schemes) {
    for (const who of userinfo) for (const host of hosts) for (const port of ports) for (const tail of tails) urls.push(`${scheme}${who}${host}${port}${tail}`)
  }
  return urls.concat([
    "file:///etc/passwd",
    "FILE:///etc/hosts",
    "chrome://settings",
    "chrome-extension://abcdefghijklmnop/page.html",
    "view-source:http://example.com/",
    "about:config",
    "about:blank",
    "data:text/html,<h1>hi</h1>",
    "blob:http://example.com/0c1c8e1a-9b45-4bd0-8c4e-5a4a0a9d7d11",
    "javascript:alert(1)",
    "ftp://example.com/x",
    "httpx://example.com/",
    "http+unix://x/",
    "hxxp://example.com/",
    "htt://example.com/",
    "https2://example.com/",
    "filesystem:http://example.com/temporary/x",
    "devtools://devtools/bundled/inspector.html",
    "intent://scan/#Intent;scheme=zxing;end"
  ])
}

describe("the requests paused for the navigation policy", () => {
  it("with no list set, every URL the policy refuses is paused, however it is written", () => {
    const s = settings()
    const patterns = pausePatterns(s)
    let refused = 0
    for (const url of corpus()) {
      const decision = checkUrl(s, URL.canParse(url) ? new URL(url).href : url)
      if (decision.allowed) continue
      refused++
      expect(paused(patterns, url), `${url} (${decision.rule})`).toBe(true)
    }
    // The corpus exercises each rule many times over.
    expect(refused).toBeGreaterThan(1_000)
  })

  it("with no list set, the common URLs the policy allows are not paused", () => {
    const patterns = pausePatterns(settings())
    for (
      const url of [
        "https://example.com/",
        "https://docs.python.org/3/library/stdtypes.html",
        "http://127.0.0.1:8080/form.html",
        "http://localhost:3000/",
        "http://[::1]:5173/src/main.ts",
        "https://example.com:18790/",
        "https://search.example/?q=metadat"
      ]
    ) expect(paused(patterns, url), url).toBe(false)
  })

  it("a pattern that names svc's port or a metadata host anywhere pauses more than it must, never less", () => {
    const patterns = pausePatterns(settings())
    expect(paused(patterns, "https://example.com/?next=http://127.0.0.1:18791/tabs")).toBe(true)
    expect(paused(patterns, "https://example.com/docs/metadata.html")).toBe(true)
    expect(checkUrl(settings(), "https://example.com/docs/metadata.html").allowed).toBe(true)
  })

  it("a profile's DevTools port added to the settings is paused from then on", () => {
    const before = pausePatterns(settings())
    const after = pausePatterns(settings({ ownPorts: [...settings().ownPorts, { port: 18877, name: "DevTools (profile \"new\")" }] }))
    expect(paused(before, "http://127.0.0.1:18877/json/version")).toBe(false)
    expect(paused(after, "http://127.0.0.1:18877/json/version")).toBe(true)
  })

  it("an own port a URL leaves unwritten (80, 443) pauses every document", () => {
    const patterns = pausePatterns(settings({ ownPorts: [{ port: 80, name: "gateway" }] }))
    expect(patterns).toEqual([{ urlPattern: "*", resourceType: "Document", requestStage: "Request" }])
    expect(paused(patterns, "http://localhost/")).toBe(true)
    expect(paused(patterns, "http://localhost/style.css", "Stylesheet")).toBe(false)
  })

  it("with a list set, every request is paused (documents only for a tab's own interception)", () => {
    const list = [Either.getOrThrow(parseHostPattern("*.example.com"))]
    for (const s of [settings({ blockedDomains: list }), settings({ allowedDomains: list })]) {
      expect(pausePatterns(s)).toEqual([{ urlPattern: "*", requestStage: "Request" }])
      expect(paused(pausePatterns(s), "https://cdn.example.org/app.js", "Script")).toBe(true)
      expect(pausePatterns(s, true)).toEqual([{ urlPattern: "*", resourceType: "Document", requestStage: "Request" }])
    }
  })

  it("the patterns for other schemes match every text but one starting http: or https:", () => {
    const patterns = notStartingWith(["http:", "https:"]).map(globRegex)
    const matched = (text: string) => patterns.some((p) => p.test(text))
    for (const text of ["http://x/", "https://x/", "http:", "https:"]) expect(matched(text), text).toBe(false)
    // A text that is not an http(s) URL leaves the two prefixes at some character: every such departure.
    const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789+-.:"
    const stems = ["", "h", "ht", "htt", "http", "https"]
    let checked = 0
    for (const stem of stems) {
      for (const c of alphabet) {
        const text = stem + c
        if (!/^[a-z]/.test(text) || /^https?:/.test(text) || stems.includes(text)) continue
        checked++
        expect(matched(`${text}x://y/`), text).toBe(true)
        expect(matched(text), text).toBe(true)
      }
    }
    expect(checked).toBeGreaterThan(200)
  })
})
