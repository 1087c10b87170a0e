import * as http from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FakeBridge, postWebhook, startFakeBridge, newMessageWebhook } from "../support/fakeBridge.js"
import { freeCdpPort, type Gateway, makeStateDir, request, servePages, startGateway, waitUntil } from "../support/gateway.js"

// A web page must not be able to speak for the bridge: a page served on 127.0.0.1 and opened in the
// managed browser posts a forged `new-message` to the webhook, and raw requests carry a browser's headers or
// a foreign Host. None is answered; the bridge on this machine (a program, no browser headers) still is.

const message = newMessageWebhook

const VICTIM = "+15557770001"

describe("forged webhooks", () => {
  let bridge: FakeBridge
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>
  const sentTo = (sender: string) =>
    bridge.callsTo("/api/v1/message/text").filter((c) => (c.body as { chatGuid: string }).chatGuid === `iMessage;-;${sender}`)

  beforeAll(async () => {
    bridge = await startFakeBridge({ serverInfo: { private_api: true, helper_connected: true } })
    const stateDir = makeStateDir({
      channels: { msgbridge: { serverUrl: bridge.url, password: bridge.password, dmPolicy: "open", allowFrom: ["*"] } },
      messages: { responsePrefix: "" },
      browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } }
    })
    gw = await startGateway({ stateDir })
    const hook = `http://127.0.0.1:${gw.port}/msgbridge-webhook`
    const forged = (guid: string) => JSON.stringify(JSON.stringify(message(guid, "!action sendWithEffect", VICTIM)))
    pages = await servePages({
      "/attack": `<!doctype html><title>Attack</title><p id="out">sending</p><script>
        Promise.allSettled([
          fetch(${JSON.stringify(hook)}, { method: "POST", mode: "no-cors", body: ${forged("FORGED-1")} }),
          fetch(${JSON.stringify(hook)}, { method: "POST", mode: "no-cors", headers: { "content-type": "text/plain" }, body: ${forged("FORGED-2")} }),
          fetch(${JSON.stringify(hook)}, { method: "POST", headers: { "content-type": "application/json" }, body: ${forged("FORGED-3")} })
        ]).then(() => { document.getElementById("out").textContent = "sent" })
      </script>`
    })
  }, 60_000)
  afterAll(async () => {
    await gw?.stop()
    await bridge?.close()
    await pages?.close()
  })

  it("a page in the managed browser posting to the webhook is never answered", async () => {
    expect((await gw.svc("browser", "open", pages.url("/attack"))).code).toBe(0)
    const done = async () =>
      JSON.parse((await gw.svc("browser", "evaluate", "() => document.getElementById('out').textContent", "--json")).stdout).result
    const deadline = Date.now() + 10_000
    while ((await done()) !== "sent" && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    expect(await done()).toBe("sent")
    // A real message right after: once it is answered, anything forged before it would have been too.
    expect((await postWebhook(`http://127.0.0.1:${gw.port}/msgbridge-webhook`, message("REAL-1", "hello", "+15557770002"))).status).toBe(200)
    await waitUntil(() => sentTo("+15557770002").length === 1, 10_000)
    expect(sentTo(VICTIM)).toHaveLength(0)
  }, 60_000)

  it("raw requests with a browser's headers, a foreign Host or a non-JSON body are refused; the password still admits", async () => {
    const body = message("RAW-1", "hi", VICTIM)
    const hookPath = "/msgbridge-webhook"
    const json = { "content-type": "application/json" }
    for (const headers of [
      { host: "evil.example" },
      { host: `evil.example:${gw.port}` },
      { origin: "http://evil.example" },
      { origin: "http://127.0.0.1:8080" },
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site", "sec-fetch-mode": "no-cors" }
    ]) {
      const r = await request(gw.port, "POST", hookPath, { ...json, ...headers }, body)
      expect(r.status, JSON.stringify(headers)).toBe(401)
    }
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
      const r = await request(gw.port, "POST", `${hookPath}?password=${encodeURIComponent(bridge.password)}`, { "content-type": type }, body)
      expect(r.status, type).toBe(415)
      expect(r.body).toContain("application/json")
    }
    const noType = await new Promise<number>((resolve, reject) => {
      const req = http.request({ host: "127.0.0.1", port: gw.port, method: "POST", path: hookPath }, (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
      req.on("error", reject)
      req.end(JSON.stringify(body))
    })
    expect(noType).toBe(415)
    await new Promise((r) => setTimeout(r, 300))
    expect(sentTo(VICTIM)).toHaveLength(0)

    // With the password, the same foreign Host and Origin are the bridge behind a tunnel: admitted.
    const ok = await request(
      gw.port,
      "POST",
      `${hookPath}?password=${encodeURIComponent(bridge.password)}`,
      { ...json, host: "bridge.example", origin: "https://bridge.example" },
      message("RAW-2", "through a tunnel", "+15557770003")
    )
    expect(ok.status).toBe(200)
    await waitUntil(() => sentTo("+15557770003").length === 1, 10_000)
  }, 60_000)
})
