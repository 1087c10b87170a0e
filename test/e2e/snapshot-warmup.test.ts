import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Gateway, request, servePages, startGateway, svcSucceeds, waitUntil } from "../support/gateway.js"
import { refOf } from "../support/refs.js"
import { type TabSession, tabSession } from "../support/tabSession.js"

// A snapshot reads every iframe of the page, and the automation library sets up its in-page helpers in each
// frame's document the first time it is asked anything there (as costly in an iframe as in the page). svc
// asks each new iframe document something trivial as soon as it is there, so that the first snapshot finds
// them ready. Seen here over a CDP session of the test's own: the helpers' script is compiled in the
// iframe's utility world although no snapshot was asked for.


const TOP = `<!doctype html><title>Top</title><h1>Top</h1>
<script>window.addFrame = () => { const f = document.createElement("iframe"); f.src = "/frame"; document.body.append(f) }</script>`
const FRAME = `<!doctype html><title>Frame</title><button>In the frame</button>`
const FIRST = `<!doctype html><title>First</title><h1>First</h1><a href="/second">Second page</a>`
const SECOND = `<!doctype html><title>Second</title><h1>Second</h1><button>Here</button>`

/** The library's in-page helpers (a script of over 100 KB) are compiled in the newest document's utility world. */
const helpersInNewestDocument = (tab: TabSession, targetId: string) => {
  const world = tab.contexts.filter((c) => c.auxData?.frameId === targetId && c.name.startsWith("__playwright_utility_world")).pop()
  return world !== undefined && tab.scripts.some((s) => s.executionContextId === world.id && s.length > 100_000)
}
const utilityWorlds = (tab: TabSession, targetId: string) =>
  tab.contexts.filter((c) => c.auxData?.frameId === targetId && c.name.startsWith("__playwright_utility_world")).length

describe("documents are made ready for the first snapshot", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>

  beforeAll(async () => {
    pages = await servePages({ "/": TOP, "/frame": FRAME, "/first": FIRST, "/second": SECOND })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc" } } })
  })

  afterAll(async () => {
    await gw?.svc("browser", "stop")
    await gw?.stop()
    await pages?.close()
  })

  // Nothing is asked of a document while it loads (that held up its load); once the agent has been quiet for
  // a moment after svc took the tab to a new document, the document's first read is done ahead.
  it("reads a tab's new document ahead once the agent is quiet: after open, navigate, and a click that moves", async () => {
    const { targetId } = JSON.parse(await svcSucceeds(gw, "browser", "open", pages.url("/first"), "--json"))
    const status = JSON.parse(await svcSucceeds(gw, "browser", "status", "--json"))
    const tab = await tabSession(status.cdpUrl, targetId, { debugger: true })
    try {
      await waitUntil(() => helpersInNewestDocument(tab, targetId), 10_000)
      expect(helpersInNewestDocument(tab, targetId)).toBe(true)

      const opened = utilityWorlds(tab, targetId)
      await svcSucceeds(gw, "browser", "navigate", pages.url("/second"), "--target-id", targetId)
      await waitUntil(() => utilityWorlds(tab, targetId) > opened && helpersInNewestDocument(tab, targetId), 10_000)
      expect(helpersInNewestDocument(tab, targetId)).toBe(true)

      // A click on a link: the document it lands on is read ahead as well.
      await svcSucceeds(gw, "browser", "navigate", pages.url("/first"), "--target-id", targetId)
      const link = refOf(await svcSucceeds(gw, "browser", "snapshot", "--target-id", targetId), /link "Second page"/)
      const worlds = utilityWorlds(tab, targetId)
      const clicked = JSON.parse(await svcSucceeds(gw, "browser", "click", link, "--target-id", targetId, "--json"))
      expect(clicked.navigation?.url).toBe(pages.url("/second"))
      await waitUntil(() => utilityWorlds(tab, targetId) > worlds && helpersInNewestDocument(tab, targetId), 10_000)
      expect(helpersInNewestDocument(tab, targetId)).toBe(true)
      // And what the agent then asks for is the page it landed on.
      expect(await svcSucceeds(gw, "browser", "snapshot", "--target-id", targetId)).toContain('button "Here"')
    } finally {
      tab.close()
    }
  })

  // svc's ref checks (act/refChecks.ts) must be in place in a document before its first AI read, or every
  // action on the refs that read shows goes the slow way. A tab opened and read at once is read as its
  // document has just committed, before svc may know the world the checks live in.
  it("a tab opened and read at once: the refs it shows can be checked in one call", async () => {
    const auth = { authorization: `Bearer ${gw.token()}` }
    const status = JSON.parse(await svcSucceeds(gw, "browser", "status", "--json"))
    for (let i = 0; i < 5; i++) {
      const opened = await request(gw.controlPort, "POST", "/tabs/open", auth, { url: pages.url("/second") })
      expect(opened.status, opened.body).toBe(200)
      const { targetId } = opened.json()
      const snap = await request(gw.controlPort, "GET", `/snapshot?targetId=${targetId}`, auth)
      expect(snap.json().snapshot).toContain('button "Here"')
      const tab = await tabSession(status.cdpUrl, targetId)
      try {
        // The button the read showed was seen by the checks as the read gave it its ref.
        const seen = "(() => { const s = globalThis.__svcRefChecks; return s !== undefined && s.seen.has(document.querySelector('button')) })()"
        expect(await tab.evaluateInUtility(seen), `tab ${i}`).toBe(true)
      } finally {
        tab.close()
      }
      expect((await request(gw.controlPort, "DELETE", `/tabs/${targetId}`, auth)).status).toBe(200)
    }
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
