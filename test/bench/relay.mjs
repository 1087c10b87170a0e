// Issue 15's benchmark: the extension relay's per-request cost. One gateway of its own, one page served
// here, opened twice in the same run: in the managed browser (profile `svc`) and in a second headless
// Chromium with the svc relay extension loaded, shared by "clicking" the extension's toolbar icon
// (Extensions.triggerAction over --remote-debugging-pipe), driven with ?profile=relay. Measured through the
// control API, interleaved (managed, relay, managed, ...): an AI snapshot, and a click by ref (a counter
// button, so the ref stays valid), each after a random pause of up to two frames. Reported: medians and the
// ratio relay / managed (target: within 1.3x).
//
// `node test/bench/relay.mjs [runs]` runs it alone (build first: `npm run -s build`).

import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { startBenchGateway } from "./benchGateway.mjs"
import { call } from "./load.mjs"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const CHROMIUM = process.env.SVC_TEST_CHROMIUM ?? "/usr/bin/chromium"
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor((s.length - 1) / 2)]
}
const round = (x) => Math.round(x * 10) / 10
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

const benchPage = () => {
  const rows = []
  for (let i = 0; i < 130; i++) {
    rows.push(
      i === 0
        ? `<li><button onclick="count.textContent=+count.textContent+1">Count</button></li>`
        : i % 10 === 1
        ? `<li><a href="#a${i}">Link ${i}</a></li>`
        : i % 10 === 2
        ? `<li><label>Field ${i} <input name="f${i}"></label></li>`
        : `<li><span>Text item ${i}</span> <em>detail ${i}</em></li>`
    )
  }
  return `<!doctype html><title>Relay bench</title><h1>Relay bench</h1><p>Clicks: <span id="count">0</span></p><ul>${rows.join("")}</ul>`
}

/** A headless Chromium with the unpacked extension, spoken to over the pipe (see test/support/extensionBrowser.ts). */
const launchExtensionBrowser = async () => {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-ext-"))
  const child = spawn(CHROMIUM, [
    "--headless=new", "--no-sandbox", "--remote-debugging-pipe", "--enable-unsafe-extension-debugging",
    `--user-data-dir=${userDataDir}`, "--no-first-run", "--no-default-browser-check",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "about:blank"
  ], { detached: true, stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"] })
  let nextId = 1
  const waiting = new Map()
  let buffer = ""
  child.stdio[4].on("data", (chunk) => {
    buffer += chunk.toString("utf8")
    let end
    while ((end = buffer.indexOf("\0")) >= 0) {
      const m = JSON.parse(buffer.slice(0, end))
      buffer = buffer.slice(end + 1)
      const w = m.id === undefined ? undefined : waiting.get(m.id)
      if (w === undefined) continue
      waiting.delete(m.id)
      if (m.error !== undefined) w.reject(new Error(`${w.method}: ${m.error.message}`))
      else w.resolve(m.result)
    }
  })
  const send = (method, params = {}, sessionId) =>
    new Promise((resolve, reject) => {
      const id = nextId++
      waiting.set(id, { resolve, reject, method })
      child.stdio[3].write(JSON.stringify({ id, method, params, ...(sessionId === undefined ? {} : { sessionId }) }) + "\0")
    })
  const kill = async () => {
    try {
      process.kill(-child.pid, "SIGKILL")
    } catch {}
    await sleep(200)
    fs.rmSync(userDataDir, { recursive: true, force: true })
  }
  const { id: extensionId } = await send("Extensions.loadUnpacked", { path: path.join(root, "extension") })
  const tabIds = async () => new Set((await send("Target.getTargets", { filter: [{ type: "tab" }] })).targetInfos.map((t) => t.targetId))
  const evaluateIn = async (targetId, expression) => {
    const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true })
    try {
      for (let i = 0; ; i++) {
        const r = await send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true }, sessionId)
        if (r.exceptionDetails === undefined) return r.result.value
        if (i > 50) throw new Error(JSON.stringify(r.exceptionDetails))
        await sleep(50)
      }
    } finally {
      await send("Target.detachFromTarget", { sessionId }).catch(() => undefined)
    }
  }
  return {
    kill,
    /** The extension's settings, as its options page saves them. */
    configure: async (token, port) => {
      let worker
      for (let i = 0; i < 200 && worker === undefined; i++) {
        worker = (await send("Target.getTargets")).targetInfos.find((t) => t.type === "service_worker" && t.url.startsWith(`chrome-extension://${extensionId}/`))
        if (worker === undefined) await sleep(50)
      }
      await evaluateIn(worker.targetId, `chrome.storage.local.set({ token: ${JSON.stringify(token)}, port: ${port} })`)
    },
    /** Opens a tab and clicks the extension's toolbar icon on it; answers the page's targetId. */
    openShared: async (url) => {
      const before = await tabIds()
      const { targetId } = await send("Target.createTarget", { url })
      const tab = [...(await tabIds())].find((t) => !before.has(t))
      await send("Extensions.triggerAction", { id: extensionId, targetId: tab })
      return targetId
    }
  }
}

export async function measureRelay({ runs = 30 } = {}) {
  const gw = await startBenchGateway()
  const server = http.createServer((req, res) => res.writeHead(200, { "content-type": "text/html" }).end(benchPage()))
  await new Promise((r) => server.listen(0, "127.0.0.1", r))
  const url = `http://127.0.0.1:${server.address().port}/bench`
  const browser = await launchExtensionBrowser()
  const agent = new http.Agent({ keepAlive: true })
  const api = (method, p, body) => call(agent, gw.controlPort, gw.token, method, p, body)
  try {
    const opened = await api("POST", "/tabs/open?profile=svc", { url })
    const managed = { profile: "svc", targetId: opened.json.targetId }
    const relayToken = await new Promise((resolve, reject) => {
      const c = spawn(path.join(root, "bin/svc"), ["browser", "extension", "token"], { env: gw.env, stdio: ["ignore", "pipe", "inherit"] })
      let out = ""
      c.stdout.on("data", (d) => (out += d))
      c.once("exit", (code) => (code === 0 ? resolve(out.trim()) : reject(new Error("svc browser extension token failed"))))
    })
    await browser.configure(relayToken, gw.controlPort + 1)
    await sleep(500)
    const relay = { profile: "relay", targetId: await browser.openShared(url) }
    for (let i = 0; i < 200; i++) {
      const tabs = await api("GET", "/tabs?profile=relay")
      if (tabs.status === 200 && tabs.json.tabs.some((t) => t.targetId === relay.targetId)) break
      await sleep(50)
    }
    const snapshot = async (t) => {
      const t0 = performance.now()
      const r = await api("GET", `/snapshot?profile=${t.profile}&targetId=${t.targetId}&format=ai`)
      if (r.status !== 200) throw new Error(`snapshot ${t.profile}: ${r.text}`)
      return { ms: performance.now() - t0, snapshot: r.json.snapshot }
    }
    const refs = {}
    for (const t of [managed, relay]) {
      for (let i = 0; i < 3; i++) await snapshot(t) // warm up: connection, page lookup
      const { snapshot: text } = await snapshot(t)
      refs[t.profile] = /button "Count" \[ref=([^\]]+)\]/.exec(text)[1]
    }
    const click = async (t) => {
      const t0 = performance.now()
      const r = await api("POST", `/act?profile=${t.profile}`, { kind: "click", ref: refs[t.profile], targetId: t.targetId })
      if (r.status !== 200) throw new Error(`click ${t.profile}: ${r.text}`)
      return performance.now() - t0
    }
    for (const t of [managed, relay]) await click(t)
    const times = { snapshot: { svc: [], relay: [] }, click: { svc: [], relay: [] } }
    for (let i = 0; i < runs; i++) {
      for (const t of i % 2 === 0 ? [managed, relay] : [relay, managed]) {
        await sleep(Math.random() * 33)
        times.snapshot[t.profile].push((await snapshot(t)).ms)
        await sleep(Math.random() * 33)
        times.click[t.profile].push(await click(t))
      }
    }
    const summary = (kind) => {
      const m = median(times[kind].svc)
      const r = median(times[kind].relay)
      return { managedMs: round(m), relayMs: round(r), ratio: Math.round((r / m) * 100) / 100 }
    }
    return { runs, snapshot: summary("snapshot"), click: summary("click") }
  } finally {
    agent.destroy()
    await browser.kill()
    server.closeAllConnections()
    server.close()
    await gw.stop()
  }
}

export const printRelay = (r) => {
  for (const [kind, name] of [["snapshot", "AI snapshot"], ["click", "click by ref"]]) {
    const s = r[kind]
    console.log(
      `relay ${name} through the control API (median of ${r.runs}, same page): relay ${s.relayMs} ms; managed profile ${s.managedMs} ms; ratio ${s.ratio}x (target 1.3x)`
    )
  }
}

if (process.argv[1] !== undefined && import.meta.url === (await import("node:url")).pathToFileURL(process.argv[1]).href) {
  printRelay(await measureRelay({ runs: Number(process.argv[2] ?? 30) }))
}
