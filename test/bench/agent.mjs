// Issue 14's agent benchmark: the language-model agent's own cost per tool round, with a fake model that
// answers at once (Anthropic Messages on a loopback port), beside the same browser work done directly
// through the control API, in the same run (the machine is shared and noisy; ratios hold).
//
//  - per tool round: `svc agent ask` with a turn of 10 rounds (each: the model calls browser act click on
//    the same ref) minus the same with no round (the model answers with text at once), divided by 10;
//    the baseline is one click by ref through the control API (POST /act). Overhead = round − click: the
//    model request built and sent, its answer decoded, the tool call decoded and routed, the result
//    encoded (the fake model's own time is in it too, about nothing).
//  - the same in the gateway (warm; what a person's message gets): a webhook from a fake bridge to the
//    reply's send, for a 10-round turn and for none, each in a chat of its own;
//  - memory: the gateway's RSS after the warm-up and after the measured 10-round turns, per turn; and the peak RSS of `svc agent ask` for the 10-round turn minus the 0-round one (sampled from
//    /proc while it runs), and the request size the model got at the last round.
//
// `node test/bench/agent.mjs [runs]` runs only this (build first); run.mjs calls measureAgent.

import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { benchState, spawnGateway } from "./benchGateway.mjs"
import { SVC_BIN } from "./cli-latency.mjs"
import { call, formPage } from "./load.mjs"

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor((s.length - 1) / 2)]
}
const round = (x) => Math.round(x * 10) / 10

/** A model that calls `browser` act click `ref` until the request holds `rounds` tool results, then answers. */
const fakeModel = async () => {
  const state = { rounds: 0, ref: "", targetId: "", lastRequestBytes: 0, requests: 0 }
  const server = http.createServer((req, res) => {
    const chunks = []
    req.on("data", (c) => chunks.push(c))
    req.on("end", () => {
      const raw = Buffer.concat(chunks)
      state.lastRequestBytes = raw.length
      state.requests++
      const body = JSON.parse(raw.toString("utf8"))
      const results = body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((p) => p.type === "tool_result").length
      const content = results < state.rounds
        ? [{ type: "tool_use", id: `toolu_${results}`, name: "browser", input: { action: "act", targetId: state.targetId, request: { kind: "click", ref: state.ref } } }]
        : [{ type: "text", text: `clicked ${results} times` }]
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({
        id: `msg_${state.requests}`, type: "message", role: "assistant", model: body.model, content,
        stop_reason: results < state.rounds ? "tool_use" : "end_turn", stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 }
      }))
    })
  })
  await new Promise((r) => server.listen(0, "127.0.0.1", r))
  return { url: `http://127.0.0.1:${server.address().port}`, state, close: () => new Promise((r) => (server.close(r), server.closeAllConnections())) }
}

/** A bridge server that answers what the channel calls and records when each reply text arrived. */
const fakeBridge = async (password) => {
  const sends = []
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://x")
    let body = ""
    req.on("data", (d) => (body += d))
    req.on("end", () => {
      res.setHeader("content-type", "application/json")
      if (url.searchParams.get("password") !== password) return res.writeHead(401).end("{}")
      let data = null
      if (url.pathname === "/api/v1/server/info") data = { os_version: "15.3.1", server_version: "1.9.0", private_api: true, helper_connected: true }
      else if (url.pathname === "/api/v1/message/query") data = []
      else if (url.pathname === "/api/v1/message/text") {
        const b = JSON.parse(body)
        sends.push({ chat: b.chatGuid, at: performance.now() })
        data = { guid: `sent-${sends.length}`, text: b.message }
      }
      res.end(JSON.stringify({ status: 200, message: "Success", data }))
    })
  })
  await new Promise((r) => server.listen(0, "127.0.0.1", r))
  return { url: `http://127.0.0.1:${server.address().port}`, sends, close: () => new Promise((r) => (server.close(r), server.closeAllConnections())) }
}

const postJson = (port, pathname, payload) =>
  new Promise((resolve, reject) => {
    const body = JSON.stringify(payload)
    const req = http.request({ host: "127.0.0.1", port, path: pathname, method: "POST", headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (res) => {
      res.resume()
      res.on("end", () => resolve(res.statusCode))
    })
    req.on("error", reject)
    req.end(body)
  })

const rssKb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0)

/** Run `svc agent ask --json`, sampling its RSS from /proc; wall time, peak RSS (kB) and its result. */
const ask = (env, text) =>
  new Promise((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn(SVC_BIN, ["agent", "ask", text, "--json"], { env, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    let err = ""
    let peak = 0
    const sample = () => {
      try {
        const m = /VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, "utf8"))
        if (m) peak = Math.max(peak, Number(m[1]))
      } catch {}
    }
    const timer = setInterval(sample, 5)
    child.stdout.on("data", (d) => (out += d, sample()))
    child.stderr.on("data", (d) => (err += d))
    child.once("exit", (code) => {
      clearInterval(timer)
      const ms = performance.now() - t0
      if (code !== 0) return reject(new Error(`svc agent ask exited ${code}: ${err}`))
      resolve({ ms, peakKb: peak, result: JSON.parse(out) })
    })
  })

export async function measureAgent({ runs = 5, rounds = 10 } = {}) {
  const model = await fakeModel()
  const password = "bench-bridge-password"
  const bridge = await fakeBridge(password)
  const page = http.createServer((req, res) => res.writeHead(200, { "content-type": "text/html" }).end(formPage()))
  await new Promise((r) => page.listen(0, "127.0.0.1", r))
  const { port, stateDir, env } = await benchState("svc-bench-agent-")
  const configFile = path.join(stateDir, "svc.json")
  const config = JSON.parse(fs.readFileSync(configFile, "utf8"))
  fs.writeFileSync(configFile, JSON.stringify({
    ...config,
    channels: { msgbridge: { serverUrl: bridge.url, password, dmPolicy: "open", allowFrom: ["*"], sendReadReceipts: false } },
    messages: { responsePrefix: "" },
    agent: { provider: "anthropic", model: "bench", apiUrl: model.url, maxSteps: rounds + 2 }
  }), { mode: 0o600 })
  const askEnv = { ...env, ANTHROPIC_API_KEY: "bench-key-0000" }
  const gateway = await spawnGateway(askEnv)
  try {
    const token = JSON.parse(fs.readFileSync(configFile, "utf8")).gateway.auth.token
    const controlPort = port + 2
    const api = async (method, p, body) => {
      const r = await call(undefined, controlPort, token, method, p, body)
      if (r.status !== 200) throw new Error(`${method} ${p}: ${r.status} ${r.text}`)
      return r.json
    }
    await api("POST", "/start?profile=svc")
    const tab = await api("POST", "/tabs/open?profile=svc", { url: `http://127.0.0.1:${page.address().port}/` })
    const snap = await api("GET", `/snapshot?profile=svc&targetId=${tab.targetId}`)
    const ref = /button "Increment counter"[^\n]*?\[ref=([^\]\s]+)\]/.exec(snap.snapshot)?.[1]
    if (ref === undefined) throw new Error(`no ref for the counter button in:\n${snap.snapshot}`)
    model.state.ref = ref
    model.state.targetId = tab.targetId

    const direct = []
    const withRounds = []
    const without = []
    const toolMs = []
    let peakRounds = []
    let peakNone = []
    let lastRequestBytes = 0
    for (let i = 0; i < runs + 1; i++) {
      // The same browser work directly: `rounds` clicks by the same ref through the control API.
      const t0 = performance.now()
      for (let k = 0; k < rounds; k++) await api("POST", "/act?profile=svc", { kind: "click", ref, targetId: tab.targetId })
      const d = (performance.now() - t0) / rounds
      model.state.rounds = 0
      const none = await ask(askEnv, "answer at once")
      model.state.rounds = rounds
      const full = await ask(askEnv, `click the counter ${rounds} times`)
      if (full.result.toolCalls.length !== rounds || full.result.toolCalls.some((c) => c.isError)) {
        throw new Error(`the agent did not do ${rounds} clean rounds: ${JSON.stringify(full.result.toolCalls)}`)
      }
      if (i === 0) continue // warm-up
      direct.push(d)
      without.push(none.ms)
      withRounds.push(full.ms)
      toolMs.push(median(full.result.toolCalls.map((c) => c.ms)))
      peakRounds.push(full.peakKb)
      peakNone.push(none.peakKb)
      lastRequestBytes = model.state.lastRequestBytes
    }
    // Warm: the gateway's own agent, a webhook to the reply's send, each turn in a chat of its own.
    let chat = 0
    const viaWebhook = async (n) => {
      model.state.rounds = n
      const sender = `+1555${String(++chat).padStart(7, "0")}`
      const chatGuid = `iMessage;-;${sender}`
      const t0 = performance.now()
      const status = await postJson(port, `/msgbridge-webhook?password=${password}`, {
        type: "new-message",
        data: { guid: `BENCH-${chat}`, text: "go", handle: { address: sender, service: "iMessage" }, isFromMe: false, attachments: [], dateCreated: Date.now(), chats: [{ guid: chatGuid, style: 45, chatIdentifier: sender, displayName: "" }] }
      })
      if (status !== 200) throw new Error(`webhook answered ${status}`)
      for (;;) {
        const sent = bridge.sends.find((x) => x.chat === chatGuid)
        if (sent !== undefined) return sent.at - t0
        await new Promise((r) => setTimeout(r, 2))
      }
    }
    for (let i = 0; i < 3; i++) await viaWebhook(rounds) // warm-up
    const warmNone = []
    const warmRounds = []
    const rssBefore = rssKb(gateway.pid)
    const warmTurns = Math.max(runs, 5)
    for (let i = 0; i < warmTurns; i++) {
      warmNone.push(await viaWebhook(0))
      warmRounds.push(await viaWebhook(rounds))
    }
    const rssAfter = rssKb(gateway.pid)
    const warmPerRound = (median(warmRounds) - median(warmNone)) / rounds

    const perRound = (median(withRounds) - median(without)) / rounds
    const click = median(direct)
    return {
      runs,
      rounds,
      perRoundMs: round(perRound),
      directClickMs: round(click),
      overheadMs: round(perRound - click),
      toolCallMs: round(median(toolMs)),
      ratio: round(perRound / click),
      askNoRoundMs: round(median(without)),
      askRoundsMs: round(median(withRounds)),
      memoryGrowthKb: median(peakRounds) - median(peakNone),
      warm: {
        perRoundMs: round(warmPerRound),
        overheadMs: round(warmPerRound - click),
        ratio: round(warmPerRound / click),
        noRoundMs: round(median(warmNone)),
        roundsMs: round(median(warmRounds)),
        turns: warmTurns,
        rssGrowthPerTurnKb: Math.round((rssAfter - rssBefore) / warmTurns),
        rssKb: rssAfter
      },
      peakRssKb: median(peakRounds),
      lastRequestBytes
    }
  } finally {
    gateway.kill("SIGTERM")
    await new Promise((r) => (gateway.exitCode !== null ? r() : gateway.once("exit", r)))
    await model.close()
    await bridge.close()
    await new Promise((r) => (page.close(r), page.closeAllConnections()))
  }
}

export const printAgent = (r) => {
  console.log(
    `agent tool round (fake model answering at once; ${r.rounds}-round turn vs none, median of ${r.runs}): ${r.perRoundMs} ms per round; ` +
      `direct click by ref through the control API ${r.directClickMs} ms; ratio ${r.ratio}x; agent overhead ${r.overheadMs} ms per round (target: under 10 ms); ` +
      `the tool call itself ${r.toolCallMs} ms`
  )
  console.log(
    `agent tool round in the gateway (warm; webhook to reply, ${r.rounds}-round turn vs none, median of ${r.warm.turns}): ${r.warm.perRoundMs} ms per round; ` +
      `direct click ${r.directClickMs} ms; ratio ${r.warm.ratio}x; agent overhead ${r.warm.overheadMs} ms per round (target: under 10 ms)`
  )
  console.log(
    `agent memory in the gateway: RSS ${Math.round(r.warm.rssKb / 1024)} MiB; ${r.warm.rssGrowthPerTurnKb} kB per ${r.rounds}-round turn over ${r.warm.turns * 2} turns`
  )
  console.log(
    `agent memory: peak RSS of svc agent ask ${Math.round(r.peakRssKb / 1024)} MiB; a ${r.rounds}-round turn adds ${r.memoryGrowthKb} kB over a turn with no round; ` +
      `the model's last request ${r.lastRequestBytes} bytes`
  )
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printAgent(await measureAgent({ runs: Number(process.argv[2] ?? 5) }))
}
