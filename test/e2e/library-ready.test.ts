import { WebSocket } from "ws"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Gateway, getJson, startGateway } from "../support/gateway.js"

// A managed browser the gateway starts is connected to by the automation library as soon as its DevTools
// answer (the library itself was loaded while Chromium started), so the first request that needs the
// library does not wait for either.


/** The browser's targets, asked over a CDP connection of the test's own. */
const targets = async (cdpUrl: string): Promise<Array<{ type: string; attached: boolean; url: string }>> => {
  const { webSocketDebuggerUrl } = await getJson(`${cdpUrl}/json/version`)
  const ws = new WebSocket(webSocketDebuggerUrl)
  try {
    await new Promise((resolve, reject) => (ws.once("open", resolve), ws.once("error", reject)))
    const answer = new Promise<any>((resolve) => ws.on("message", (d) => resolve(JSON.parse(String(d)))))
    ws.send(JSON.stringify({ id: 1, method: "Target.getTargets" }))
    return (await answer).result.targetInfos
  } finally {
    ws.close()
  }
}

describe("the automation library is ready with the browser", () => {
  let gw: Gateway

  beforeAll(async () => {
    gw = await startGateway({ config: { browser: { defaultProfile: "svc" } } })
  })

  afterAll(async () => {
    await gw?.svc("browser", "stop")
    await gw?.stop()
  })

  it("connects to a browser it starts without waiting for a request that needs it", async () => {
    const started = await gw.svc("browser", "start", "--json")
    expect(started.code, started.stderr).toBe(0)
    const cdpUrl: string = JSON.parse(started.stdout).status.cdpUrl
    expect(cdpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    // The library attaches to every tab it knows: the browser's first tab shows as attached, although
    // nothing has asked for a tab, a snapshot or an action yet.
    let pages: Array<{ type: string; attached: boolean }> = []
    for (const t0 = Date.now(); Date.now() - t0 < 10_000;) {
      pages = (await targets(cdpUrl)).filter((t) => t.type === "page")
      if (pages.length > 0 && pages.every((t) => t.attached)) break
      await new Promise((r) => setTimeout(r, 50))
    }
    expect(pages.length).toBeGreaterThan(0)
    expect(pages.every((t) => t.attached), JSON.stringify(pages)).toBe(true)
  })
})
