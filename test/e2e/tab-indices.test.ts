import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freeCdpPort, type Gateway, servePages, startGateway } from "../support/gateway.js"

// Tab indices through the real path: an index from an earlier listing keeps naming the same tab while
// other tabs open and close, and an index that named a closed tab names nothing afterwards.

interface ListedTab {
  readonly index: number
  readonly targetId: string
  readonly url: string
  readonly current: boolean
}

describe("tab indices", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>

  beforeAll(async () => {
    pages = await servePages({
      "/a": "<!doctype html><title>A</title><h1>A</h1>",
      "/b": "<!doctype html><title>B</title><h1>B</h1>",
      "/c": "<!doctype html><title>C</title><h1>C</h1>"
    })
    const cdpPort = await freeCdpPort()
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort } } } } })
  })

  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
  })

  const list = async (): Promise<Array<ListedTab>> => {
    const r = await gw.svc("browser", "tab", "--json")
    expect(r.code, r.stderr).toBe(0)
    return JSON.parse(r.stdout).tabs
  }
  const openTab = async (...args: Array<string>): Promise<ListedTab> => {
    const r = await gw.svc("browser", "tab", "new", ...args, "--json")
    expect(r.code, r.stderr).toBe(0)
    return JSON.parse(r.stdout)
  }

  it("lists tabs in opening order; old indices keep naming their tabs; a closed tab's index is not reused", async () => {
    const a = await openTab(pages.url("/a"))
    const b = await openTab(pages.url("/b"))
    const c = await openTab(pages.url("/c"))
    // The browser's first tab (about:blank) was there before: it comes first, then a, b, c as opened.
    const before = await list()
    expect(before.map((t) => t.targetId).slice(-3)).toEqual([a.targetId, b.targetId, c.targetId])
    expect(before.map((t) => t.index)).toEqual([0, 1, 2, 3])
    expect([a.index, b.index, c.index]).toEqual([1, 2, 3])

    // A new tab takes the next index and shifts nobody; its human line names its index and targetId.
    const human = await gw.svc("browser", "tab", "new")
    expect(human.code, human.stderr).toBe(0)
    const d = /^opened tab (\d+)\s+(\S+)\s+about:blank$/m.exec(human.stdout)
    expect(d, human.stdout).not.toBeNull()
    expect(Number(d![1])).toBe(4)
    const after = await list()
    for (const t of before) expect(after.find((x) => x.index === t.index)?.targetId).toBe(t.targetId)
    expect(after.at(-1)).toMatchObject({ index: 4, targetId: d![2], current: true })

    // `tab select <old index>` focuses the tab that index named in the first listing.
    const selected = await gw.svc("browser", "tab", "select", String(b.index))
    expect(selected.code, selected.stderr).toBe(0)
    expect(selected.stdout).toContain(`focused tab ${b.index}  ${b.targetId}`)
    expect((await list()).find((t) => t.current)?.targetId).toBe(b.targetId)

    // Close the middle tab: the others keep their indices, and its index names nothing from now on.
    const closed = await gw.svc("browser", "tab", "close", String(b.index))
    expect(closed.code, closed.stderr).toBe(0)
    const gap = await list()
    expect(gap.map((t) => t.index)).toEqual([0, 1, 3, 4])
    expect(gap.find((t) => t.index === c.index)?.targetId).toBe(c.targetId)
    const e = await openTab()
    expect(e.index).toBe(5)
    const stale = await gw.svc("browser", "tab", "select", String(b.index))
    expect(stale.code).not.toBe(0)
    expect(stale.stderr).toContain(`no tab at index ${b.index}`)
    expect(stale.stderr).toContain("0, 1, 3, 4, 5")
    expect((await list()).find((t) => t.current)?.targetId).toBe(e.targetId)
  })

  it("an act close answers the tabs left; closing another tab leaves the current one current", async () => {
    const act = async (body: Record<string, unknown>) => {
      const r = await fetch(`http://127.0.0.1:${gw.controlPort}/act`, {
        method: "POST",
        headers: { Authorization: `Bearer ${gw.token()}`, "Content-Type": "application/json" },
        body: JSON.stringify(body)
      })
      expect(r.status, await r.clone().text()).toBe(200)
      return (await r.json()) as { targetId: string; tabs?: Array<ListedTab> }
    }
    const x = await openTab(pages.url("/a"))
    const y = await openTab(pages.url("/b"))
    // y is current; closing x by its targetId answers the tabs left, y still current among them.
    const closedX = await act({ kind: "close", targetId: x.targetId })
    expect(closedX.targetId).toBe(x.targetId)
    const left = await list()
    expect(closedX.tabs?.map((t) => t.targetId)).toEqual(left.map((t) => t.targetId))
    expect(left.map((t) => t.targetId)).not.toContain(x.targetId)
    expect(closedX.tabs?.find((t) => t.current)?.targetId).toBe(y.targetId)
    expect(left.find((t) => t.current)?.targetId).toBe(y.targetId)
    // Closing the current tab leaves none current, and says which are left.
    const closedY = await act({ kind: "close" })
    expect(closedY.targetId).toBe(y.targetId)
    expect(closedY.tabs?.map((t) => t.targetId)).toEqual((await list()).map((t) => t.targetId))
    expect(closedY.tabs?.some((t) => t.current)).toBe(false)
    expect(closedY.tabs?.map((t) => t.targetId)).not.toContain(y.targetId)
  })

  it("a tab closed as soon as it opened is gone, every time (the browser drops a close now and then: it is asked again)", async () => {
    // Before the close was asked again, one or two in a hundred of these stayed open (an act close then timed out).
    const call = async (method: string, path: string, body?: unknown) => {
      const r = await fetch(`http://127.0.0.1:${gw.controlPort}${path}`, {
        method,
        headers: { Authorization: `Bearer ${gw.token()}`, "Content-Type": "application/json" },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {})
      })
      const text = await r.text()
      expect(r.status, `${method} ${path}: ${text}`).toBe(200)
      return JSON.parse(text) as { targetId: string; tabs?: Array<ListedTab> }
    }
    for (let i = 0; i < 80; i++) {
      const { targetId } = await call("POST", "/tabs/open", { url: pages.url("/a") })
      if (i % 2 === 0) {
        const closed = await call("POST", "/act", { kind: "close" })
        expect(closed.tabs?.map((t) => t.targetId)).not.toContain(targetId)
      } else {
        await call("DELETE", `/tabs/${targetId}`)
      }
      expect((await call("GET", "/tabs")).tabs?.map((t) => t.targetId)).not.toContain(targetId)
    }
  }, 120_000)
})
