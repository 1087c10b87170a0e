// Webhook intake with the echo agent against a minimal fake bridge server on loopback: sustained webhooks
// per second, webhook response latency (p50/p99), webhook → outbound send latency, and zero lost or
// doubled replies. Baseline in the same run: a bare node:http server answering the same POSTs.

import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]
}
const round = (x) => Math.round(x * 10) / 10

/** The bridge calls the echo path makes: server info, send text, read receipt, typing. */
const startBridge = async (password) => {
  const sends = new Map() // message text → [time]
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://x")
    let body = ""
    req.on("data", (d) => (body += d))
    req.on("end", () => {
      res.setHeader("content-type", "application/json")
      if (url.searchParams.get("password") !== password) {
        res.statusCode = 401
        return res.end(JSON.stringify({ status: 401, message: "Unauthorized", error: { type: "x", message: "bad" } }))
      }
      let data = null
      if (url.pathname === "/api/v1/server/info") {
        data = { os_version: "15.3.1", server_version: "1.9.0", private_api: true, helper_connected: true }
      } else if (url.pathname === "/api/v1/message/text") {
        const b = JSON.parse(body)
        const list = sends.get(b.message) ?? []
        list.push(performance.now())
        sends.set(b.message, list)
        data = { guid: `sent-${Math.random()}`, text: b.message }
      }
      res.end(JSON.stringify({ status: 200, message: "Success", data }))
    })
  })
  await new Promise((r) => server.listen(0, "127.0.0.1", r))
  return { url: `http://127.0.0.1:${server.address().port}`, sends, close: () => new Promise((r) => server.close(r)) }
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 })

const post = (port, pathname, payload) =>
  new Promise((resolve, reject) => {
    const body = JSON.stringify(payload)
    const t0 = performance.now()
    const req = http.request(
      { host: "127.0.0.1", port, path: pathname, method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } },
      (res) => {
        res.resume()
        res.on("end", () => resolve({ status: res.statusCode, ms: performance.now() - t0, at: t0 }))
      }
    )
    req.on("error", reject)
    req.end(body)
  })

const drive = async (port, pathname, total, concurrency, payloadFor) => {
  const latencies = []
  const sentAt = new Map()
  let next = 0
  const t0 = performance.now()
  const worker = async () => {
    while (next < total) {
      const i = next++
      const payload = payloadFor(i)
      const r = await post(port, pathname, payload)
      if (r.status !== 200) throw new Error(`webhook ${i} answered ${r.status}`)
      latencies.push(r.ms)
      sentAt.set(i, r.at)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const seconds = (performance.now() - t0) / 1000
  return { latencies, sentAt, perSecond: total / seconds }
}

const message = (i, run) => ({
  type: "new-message",
  data: {
    guid: `bench-${run}-${i}`,
    text: `m${run}-${i}`,
    handle: { address: "+15551230001", service: "iMessage" },
    isFromMe: false,
    attachments: [],
    chats: [{ guid: "iMessage;-;+15551230001", style: 45, chatIdentifier: "+15551230001", displayName: "" }]
  }
})

/** `startGateway(stateDir)` starts the real gateway and returns { port, stop }. */
export async function measureWebhooks({ startGateway, total = 3000, concurrency = 32 }) {
  const password = "bench-password-0123"
  const bridge = await startBridge(password)
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-hooks-"))
  fs.writeFileSync(
    path.join(stateDir, "svc.json"),
    JSON.stringify({ channels: { msgbridge: { serverUrl: bridge.url, password, dmPolicy: "open", sendReadReceipts: true } } })
  )
  const gw = await startGateway(stateDir)
  const run = Math.random().toString(36).slice(2, 8)
  try {
    // Baseline: a bare server answering 200 to the same POSTs.
    const bare = http.createServer((req, res) => {
      req.resume()
      req.on("end", () => res.end("{}"))
    })
    await new Promise((r) => bare.listen(0, "127.0.0.1", r))
    const base = await drive(bare.address().port, "/", total, concurrency, (i) => message(i, run))
    await new Promise((r) => bare.close(r))

    await drive(gw.port, `/msgbridge-webhook?password=${password}`, 200, concurrency, (i) => message(i, `warm${run}`))
    const hooks = await drive(gw.port, `/msgbridge-webhook?password=${password}`, total, concurrency, (i) => message(i, run))
    // Every reply delivered exactly once.
    const deadline = Date.now() + 60_000
    const want = (i) => `echo: m${run}-${i}`
    while (Date.now() < deadline) {
      let done = 0
      for (let i = 0; i < total; i++) if (bridge.sends.has(want(i))) done++
      if (done === total) break
      await new Promise((r) => setTimeout(r, 100))
    }
    await new Promise((r) => setTimeout(r, 500))
    let lost = 0
    let doubled = 0
    const toSend = []
    for (let i = 0; i < total; i++) {
      const s = bridge.sends.get(want(i))
      if (s === undefined) lost++
      else {
        if (s.length > 1) doubled++
        toSend.push(s[0] - hooks.sentAt.get(i))
      }
    }
    return {
      total,
      concurrency,
      perSecond: Math.round(hooks.perSecond),
      p50Ms: round(quantile(hooks.latencies, 0.5)),
      p99Ms: round(quantile(hooks.latencies, 0.99)),
      toSendP50Ms: round(quantile(toSend, 0.5)),
      toSendP99Ms: round(quantile(toSend, 0.99)),
      lost,
      doubled,
      baseline: { perSecond: Math.round(base.perSecond), p99Ms: round(quantile(base.latencies, 0.99)) }
    }
  } finally {
    await gw.stop()
    await bridge.close()
  }
}
