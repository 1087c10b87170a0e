// Webhook intake with the echo agent against a minimal fake bridge server on loopback: sustained webhooks
// per second, webhook response latency (p50/p99), webhook → outbound send latency, and zero lost or
// doubled replies. Baseline in the same run: a bare node:http server answering the same POSTs.
// Also reported: the end-to-end rate (webhooks / time from the first webhook to the last reply), how long
// replies kept coming after the last webhook was answered (drain), and the read receipts and typing starts
// the bridge saw (one of each per answered message is expected).

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
  const calls = { read: 0, typing: 0, connections: 0 }
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
      } else if (url.pathname.endsWith("/read")) {
        calls.read++
      } else if (url.pathname.endsWith("/typing") && req.method === "POST") {
        calls.typing++
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
  server.on("connection", () => calls.connections++)
  await new Promise((r) => server.listen(0, "127.0.0.1", r))
  return { url: `http://127.0.0.1:${server.address().port}`, sends, calls, close: () => new Promise((r) => server.close(r)) }
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

/** `total` POSTs, `concurrency` at a time; with `rate` (per second), each one not before its slot (paced). */
const drive = async (port, pathname, total, concurrency, payloadFor, rate) => {
  const latencies = []
  const sentAt = new Map()
  let next = 0
  const t0 = performance.now()
  let lastAnswer = t0
  const worker = async () => {
    while (next < total) {
      const i = next++
      if (rate !== undefined) {
        const wait = t0 + (i * 1000) / rate - performance.now()
        if (wait > 0) await new Promise((r) => setTimeout(r, wait))
      }
      const payload = payloadFor(i)
      const r = await post(port, pathname, payload)
      if (r.status !== 200) throw new Error(`webhook ${i} answered ${r.status}`)
      latencies.push(r.ms)
      sentAt.set(i, r.at)
      lastAnswer = Math.max(lastAnswer, r.at + r.ms)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const seconds = (performance.now() - t0) / 1000
  return { latencies, sentAt, perSecond: total / seconds, startedAt: t0, lastAnswerAt: lastAnswer }
}

/** Message i of a run; `chats` > 1 spreads the messages over that many DM chats (round robin). */
const message = (i, run, chats = 1) => {
  const address = chats === 1 ? "+15551230001" : `+1555123${String(i % chats).padStart(4, "0")}`
  return {
    type: "new-message",
    data: {
      guid: `bench-${run}-${i}`,
      text: `m${run}-${i}`,
      handle: { address, service: "iMessage" },
      isFromMe: false,
      attachments: [],
      chats: [{ guid: `iMessage;-;${address}`, style: 45, chatIdentifier: address, displayName: "" }]
    }
  }
}

/** `startGateway(stateDir)` starts the real gateway and returns { port, stop }. */
export async function measureWebhooks({ startGateway, total = 3000, concurrency = 32, chats = 1, rate }) {
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
    const base = await drive(bare.address().port, "/", total, concurrency, (i) => message(i, run, chats))
    await new Promise((r) => bare.close(r))

    await drive(gw.port, `/msgbridge-webhook?password=${password}`, 200, concurrency, (i) => message(i, `warm${run}`, chats))
    const want = (i) => `echo: m${run}-${i}`
    const hooks = await drive(gw.port, `/msgbridge-webhook?password=${password}`, total, concurrency, (i) => message(i, run, chats), rate)
    // Every reply delivered exactly once.
    const deadline = Date.now() + 60_000
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
    let lastSend = hooks.startedAt
    for (let i = 0; i < total; i++) {
      const s = bridge.sends.get(want(i))
      if (s === undefined) lost++
      else {
        if (s.length > 1) doubled++
        toSend.push(s[0] - hooks.sentAt.get(i))
        lastSend = Math.max(lastSend, s[0])
      }
    }
    return {
      total,
      concurrency,
      chats,
      ...(rate !== undefined ? { pacedAt: rate } : {}),
      perSecond: Math.round(hooks.perSecond),
      p50Ms: round(quantile(hooks.latencies, 0.5)),
      p99Ms: round(quantile(hooks.latencies, 0.99)),
      toSendP50Ms: round(quantile(toSend, 0.5)),
      toSendP99Ms: round(quantile(toSend, 0.99)),
      deliveredPerSecond: Math.round((total - lost) / ((lastSend - hooks.startedAt) / 1000)),
      drainMs: Math.round(Math.max(0, lastSend - hooks.lastAnswerAt)),
      // Over the warm-up and the run: one of each per message expected (total + 200).
      readReceipts: bridge.calls.read,
      typingStarts: bridge.calls.typing,
      bridgeConnections: bridge.calls.connections,
      lost,
      doubled,
      baseline: { perSecond: Math.round(base.perSecond), p99Ms: round(quantile(base.latencies, 0.99)) }
    }
  } finally {
    await gw.stop()
    await bridge.close()
  }
}

// `node test/bench/webhooks.mjs`: this benchmark alone, against the built gateway (bin/svc gateway run),
// BENCH_RUNS times (default 3; the machine is shared, so report the range). BENCH_TOTAL and
// BENCH_CONCURRENCY override the load, BENCH_CHATS spreads it over that many chats (default 1, as in
// `npm run bench`), BENCH_RATE paces the webhooks at that many per second (default: as fast as answered);
// BENCH_GATEWAY_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/p")
// and BENCH_GATEWAY_BUNDLE (a bundle path, e.g. an unminified build) run the gateway under plain node instead.
const isMain = process.argv[1] !== undefined && import.meta.url === (await import("node:url")).pathToFileURL(process.argv[1]).href
if (isMain) {
  const { spawn } = await import("node:child_process")
  const net = await import("node:net")
  const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..")
  const portFree = (port) =>
    new Promise((resolve) => {
      const s = net.createServer()
      s.once("error", () => resolve(false))
      s.listen({ port, host: "127.0.0.1" }, () => s.close(() => resolve(true)))
    })
  const freePort = async () => {
    for (;;) {
      const p = 30000 + Math.floor(Math.random() * 9000)
      if ((await portFree(p)) && (await portFree(p + 2)) && (await portFree(p + 3))) return p
    }
  }
  const startGateway = async (dir) => {
    const port = await freePort()
    const env = { ...process.env, SVC_STATE_DIR: dir, SVC_GATEWAY_PORT: String(port) }
    const nodeArgs = (process.env.BENCH_GATEWAY_NODE_ARGS ?? "").split(" ").filter((a) => a !== "")
    const bundle = process.env.BENCH_GATEWAY_BUNDLE
    const [cmd, args] = nodeArgs.length > 0 || bundle !== undefined
      ? [process.execPath, [...nodeArgs, bundle ?? path.join(root, "dist/svc.cjs"), "gateway", "run"]]
      : [path.join(root, "bin/svc"), ["gateway", "run"]]
    const child = spawn(cmd, args, { env, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`gateway not ready: ${out}`)), 30_000)
      const onData = (d) => {
        out += d
        if (out.includes("svc gateway ready")) {
          clearTimeout(timer)
          resolve()
        }
      }
      child.stdout.on("data", onData)
      child.stderr.on("data", onData)
      child.once("exit", (code) => reject(new Error(`gateway exited ${code}: ${out}`)))
    })
    return {
      port,
      stop: () =>
        new Promise((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve()
          child.once("exit", () => resolve())
          child.kill("SIGTERM")
        })
    }
  }
  const runs = Number(process.env.BENCH_RUNS ?? 3)
  const total = Number(process.env.BENCH_TOTAL ?? 3000)
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32)
  const chats = Number(process.env.BENCH_CHATS ?? 1)
  const rate = process.env.BENCH_RATE === undefined ? undefined : Number(process.env.BENCH_RATE)
  for (let i = 0; i < runs; i++) {
    const w = await measureWebhooks({ startGateway, total, concurrency, chats, ...(rate !== undefined ? { rate } : {}) })
    console.log(JSON.stringify(w))
  }
}
