import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { browserCli } from "../support/browserCli.js"
import { freeCdpPort, type Gateway, servePages, startGateway } from "../support/gateway.js"

// A page reached through a URL that carries secrets (a password in the userinfo, a token in the query, as a
// magic sign-in link does): every answer that names the page's URL, and every error message, shows them as
// *** (through the real path: bin/svc → gateway → Chromium), while the browser itself went to the whole URL.

const page = `<!doctype html><title>Signed</title><a href="/next">next</a>`

describe("secrets in page URLs", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>
  const { evaluate, ok } = browserCli(() => gw)

  beforeAll(async () => {
    pages = await servePages({ "/app": page })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } } })
  })
  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
  })

  it("answers name the page with its secrets hidden; the browser had them", async () => {
    const port = new URL(pages.url("/")).port
    const secretUrl = `http://ada:hunter2@127.0.0.1:${port}/app?access_token=tok-SECRET-1&page=2`
    const shown = `http://ada:***@127.0.0.1:${port}/app?access_token=***&page=2`
    const outputs = [
      await ok("open", secretUrl),
      await ok("navigate", secretUrl),
      await ok("tabs"),
      await ok("tabs", "--json"),
      await ok("snapshot", "--json"),
      await ok("requests"),
      await ok("requests", "--json"),
      await ok("click", "--json", "--at", "1,1")
    ]
    expect(outputs[0]).toContain(shown)
    expect(outputs[1]).toBe(`navigated to ${shown} (HTTP 200): Signed`)
    expect(JSON.parse(outputs[4]!).url).toBe(shown)
    for (const out of outputs) {
      expect(out).not.toContain("hunter2")
      expect(out).not.toContain("tok-SECRET-1")
    }
    // The page itself was loaded with the token (the browser keeps no password in location).
    expect(await evaluate("() => location.search")).toBe("?access_token=tok-SECRET-1&page=2")

    const failed = await gw.svc("browser", "navigate", "http://no-such-host.invalid/?api_key=key-SECRET-2")
    expect(failed.code).toBe(1)
    expect(failed.stderr).toContain("navigate http://no-such-host.invalid/?api_key=***: the page could not be loaded")
    const json = await gw.svc("browser", "navigate", "--json", "http://no-such-host.invalid/?api_key=key-SECRET-2")
    expect(json.stdout).toContain("api_key=***")
    expect(json.stdout + json.stderr).not.toContain("key-SECRET-2")
  })
})
