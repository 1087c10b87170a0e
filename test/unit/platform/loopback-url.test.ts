import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { isLocalHostname, isLoopbackAddress, isLoopbackHostname } from "../../../src/platform/loopback.js"
import { parseUserUrl } from "../../../src/platform/url.js"

describe("loopback", () => {
  it("loopback names and addresses, and nothing else", () => {
    for (const h of ["localhost", "127.0.0.1", "127.1.2.3", "::1", "[::1]", "app.localhost"]) expect(isLoopbackHostname(h), h).toBe(true)
    for (const h of ["0.0.0.0", "[::]", "example.com", "localhost.example.com", "128.0.0.1", "10.0.0.1", "127.0.0.1.nip.io"]) {
      expect(isLoopbackHostname(h), h).toBe(false)
    }
  })

  it("a remote socket address, IPv4-mapped included", () => {
    expect(isLoopbackAddress("::ffff:127.0.0.1")).toBe(true)
    expect(isLoopbackAddress("::1")).toBe(true)
    expect(isLoopbackAddress("::ffff:10.0.0.2")).toBe(false)
  })

  it("the unspecified address dials this machine but is not a loopback name", () => {
    for (const h of ["0.0.0.0", "[::]", "LOCALHOST", "127.0.0.1"]) expect(isLocalHostname(h), h).toBe(true)
    expect(isLocalHostname("example.com")).toBe(false)
  })
})

describe("parseUserUrl", () => {
  const ok = (s: string) => Either.getOrThrow(parseUserUrl(s))
  const problem = (s: string) => Either.flip(parseUserUrl(s)).pipe(Either.getOrThrow)

  it("bare hosts get https, this machine's hosts http", () => {
    expect(ok("example.com/a")).toBe("https://example.com/a")
    expect(ok("bücher.example/x")).toBe("https://xn--bcher-kva.example/x")
    expect(ok("app.localhost:5173")).toBe("http://app.localhost:5173/")
    expect(ok("0.0.0.0:8000/x")).toBe("http://0.0.0.0:8000/x")
    expect(ok("[::1]:8080/")).toBe("http://[::1]:8080/")
  })

  it("says why a text is not a URL", () => {
    expect(problem("  ")).toEqual({ kind: "empty" })
    expect(problem("hello world")).toEqual({ kind: "not-a-url" })
    expect(problem("http://")).toEqual({ kind: "not-a-url" })
  })

  it("reads every scheme as given: whether it opens is the navigation policy's to say", () => {
    expect(ok("file:///tmp/x.html")).toBe("file:///tmp/x.html")
    expect(ok("JavaScript:alert(1)")).toBe("javascript:alert(1)")
    expect(ok("about:settings")).toBe("about:settings")
  })
})
