import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Gateway, servePages, startGateway, waitUntil } from "../support/gateway.js"
import { tabSession } from "../support/tabSession.js"

// A snapshot reads every iframe of the page, and the automation library sets up its in-page helpers in each
// frame's document the first time it is asked anything there (as costly in an iframe as in the page). svc
// asks each new iframe document something trivial as soon as it is there, so that the first snapshot finds
// them ready. Seen here over a CDP session of the test's own: the helpers' script is compiled in the
// iframe's utility world although no snapshot was asked for.


const TOP = `<!doctype html><title>Top</title><h1>Top</h1>
<script>window.addFrame = () => { const f = document.createElement("iframe"); f.src = "/frame"; document.body.append(f) }</script>`
const FRAME = `<!doctype html><title>Frame</title><button>In the frame</button>`

describe("iframe documents are made ready for the first snapshot", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>

  beforeAll(async () => {
    pages = await servePages({ "/": TOP, "/frame": FRAME })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc" } } })
  })

  afterAll(async () => {
    await gw?.svc("browser", "stop")
    await gw?.stop()
    await pages?.close()
  })

  it("sets up the library's helpers in a new iframe before any snapshot asks", async () => {
    const opened = await gw.svc("browser", "open", pages.url("/"), "--json")
    expect(opened.code, opened.stderr).toBe(0)
    const { targetId } = JSON.parse(opened.stdout)
    const status = await gw.svc("browser", "status", "--json")
    const tab = await tabSession(JSON.parse(status.stdout).cdpUrl, targetId, { debugger: true })
    try {
      // The iframe comes after the page's own load (and after anything svc reads ahead once it is loaded).
      const added = await gw.svc("browser", "evaluate", "--fn", "() => addFrame()")
      expect(added.code, added.stderr).toBe(0)
      // The tab's main frame has the target's id; the iframe's utility world is the library's world there.
      const helpersInFrame = () => {
        const worlds = new Set(
          tab.contexts
            .filter((c) => c.auxData?.frameId !== targetId && c.name.startsWith("__playwright_utility_world"))
            .map((c) => c.id)
        )
        return tab.scripts.some((s) => worlds.has(s.executionContextId) && s.length > 100_000)
      }
      await waitUntil(helpersInFrame, 10_000)
      expect(helpersInFrame()).toBe(true)
    } finally {
      tab.close()
    }
  })
})
