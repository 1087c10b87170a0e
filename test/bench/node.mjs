// Issue 16's benchmark: the node hop. A gateway with its managed browser, and `svc node run` (a state dir
// of its own) dialling it on loopback. Two setups: `shared`, the node's profile attaches to the gateway's
// browser (a cdpUrl profile), so both sides drive the very same tab; `managed`, the node runs its own
// managed browser (as on another machine), the same page open in both. Each request goes once to the
// gateway's managed profile directly (the baseline) and once with `?node=<id>` (gateway → node socket →
// the node's in-process control API → back), interleaved, in the same run:
//  - per-request overhead of the hop: GET /tabs, an AI snapshot, and a click by ref (median of each), and of
//    it the socket's share (Server-Timing: `hop`, the gateway's round trip, less `node`, the node's serving);
//  - a screenshot's transfer: a viewport of noise (a PNG of a few MB) taken through the node vs directly,
//    the difference per MB (the file travels over the socket and is written into the gateway's media folder).
//
// `node test/bench/node.mjs [runs]` runs only this (build first); run.mjs calls measureNode.

import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import { benchState } from "./benchGateway.mjs"
import { SVC_BIN } from "./cli-latency.mjs"

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor((s.length - 1) / 2)]
}
const round = (x) => Math.round(x * 100) / 100

/** One control API request on a keep-alive agent: status, JSON and the Server-Timing parts. */
const request = (agent, port, token, method, path, body) =>
  new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body)
    const req = http.request(
      {
        host: "127.0.0.1", port, path, method, agent,
        headers: { authorization: `Bearer ${token}`, ...(data !== undefined ? { "content-type": "application/json" } : {}) }
      },
      (res) => {
        const chunks = []
        res.on("data", (d) => chunks.push(d))
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          const timing = Object.fromEntries(
            String(res.headers["server-timing"] ?? "").split(",").map((p) => /^\s*(\w+);dur=([\d.]+)/.exec(p)).filter(Boolean)
              .map((m) => [m[1], Number(m[2])])
          )
          resolve({ status: res.statusCode, text, json: text.startsWith("{") ? JSON.parse(text) : undefined, timing })
        })
      }
    )
    req.on("error", reject)
    req.end(data)
  })

const PAGE = `<!doctype html><title>Node bench</title><h1>Node bench</h1>
<button onclick="count.textContent = +count.textContent + 1">Add one</button><p>Count: <span id="count">0</span></p>
<ul>${Array.from({ length: 60 }, (_, i) => `<li><a href="#i${i}">Item ${i}</a> <span>detail ${i}</span></li>`).join("")}</ul>`

// A viewport of random pixels: a PNG that does not compress (a few MB), for the transfer time per MB.
const NOISE = `<!doctype html><title>Noise</title><style>body{margin:0}</style><canvas id="c"></canvas><script>
const c = document.getElementById("c"); c.width = innerWidth; c.height = innerHeight
const x = c.getContext("2d"), d = x.createImageData(c.width, c.height)
for (let i = 0; i < d.data.length; i++) d.data[i] = (i % 4 === 3) ? 255 : Math.random() * 256 | 0
x.putImageData(d, 0, 0)</script>`

const serve = async () => {
  const server = http.createServer((req, res) =>
    res.writeHead(200, { "content-type": "text/html" }).end(req.url === "/noise" ? NOISE : PAGE))
  await new Promise((r) => server.listen(0, "127.0.0.1", r))
  return {
    url: (p) => `http://127.0.0.1:${server.address().port}${p}`,
    close: () => new Promise((r) => (server.close(r), server.closeAllConnections()))
  }
}

const spawnUntil = (args, env, ready) =>
  new Promise((resolve, reject) => {
    const child = spawn(SVC_BIN, args, { env, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    const timer = setTimeout(() => reject(new Error(`not ready: ${out}`)), 60_000)
    const onData = (d) => {
      out += d
      if (ready(out)) {
        clearTimeout(timer)
        resolve({ child, out: () => out })
      }
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", onData)
    child.once("exit", (code) => reject(new Error(`svc ${args.join(" ")} exited ${code}: ${out}`)))
  })

const stop = (child) =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once("exit", resolve)
    child.kill("SIGTERM")
  })

export async function measureNode({ runs = 30, setup = "shared" } = {}) {
  const pages = await serve()
  const gw = await benchState("svc-bench-node-gw-")
  const nodeState = await benchState("svc-bench-node-host-")
  delete gw.env.NODE_OPTIONS
  delete nodeState.env.NODE_OPTIONS
  const { child: gateway } = await spawnUntil(["gateway", "run"], gw.env, (o) => o.includes("svc gateway ready"))
  const gwConfig = JSON.parse(fs.readFileSync(`${gw.stateDir}/svc.json`, "utf8"))
  const token = gwConfig.gateway.auth.token
  // shared: the node's profile is the gateway's browser, the same tab on both sides.
  const cdpPort = gwConfig.browser.profiles.svc.cdpPort
  if (setup === "shared") fs.writeFileSync(
    `${nodeState.stateDir}/svc.json`,
    JSON.stringify({ browser: { defaultProfile: "shared", profiles: { shared: { cdpUrl: `http://127.0.0.1:${cdpPort}` } } } }),
    { mode: 0o600 }
  )
  let node
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  try {
    node = await spawnUntil(
      ["node", "run", "--gateway", `ws://127.0.0.1:${gw.port}`, "--token", token, "--name", "bench"],
      nodeState.env,
      (o) => o.includes("svc node: connected to")
    )
    const id = /as node ([0-9a-f]{16})/.exec(node.out())[1]
    let lastTiming = {}
    const api = async (method, path, body) => {
      const r = await request(agent, gw.port + 2, token, method, path, body)
      if (r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${r.text}`)
      lastTiming = r.timing
      return r.json
    }
    await api("POST", "/nodes/approve", { id })
    const on = (path, where) => (where === "node" ? `${path}${path.includes("?") ? "&" : "?"}node=${id}` : path)

    // One tab driven from both sides (shared), or the same page in each browser (managed).
    await api("POST", "/start")
    const targetId = (await api("POST", "/tabs/open", { url: pages.url("/page") })).targetId
    const tab = {
      direct: targetId,
      node: setup === "shared" ? targetId : (await api("POST", on("/tabs/open", "node"), { url: pages.url("/page") })).targetId
    }
    const refOf = async (where) => {
      const snap = await api("GET", on(`/snapshot?format=ai&targetId=${tab[where]}`, where))
      const m = /button "Add one"[^\n]*?\[ref=(\w+)\]/.exec(snap.snapshot)
      if (m === null) throw new Error(`no button in the ${where} snapshot:\n${snap.snapshot.slice(0, 500)}`)
      return m[1]
    }
    // Each kind: an untimed step first (a click's ref comes from that side's own latest snapshot, since
    // both sides snapshot the same tab), then the timed request.
    const none = async () => undefined
    const kinds = {
      tabs: [none, (where) => api("GET", on("/tabs", where))],
      snapshot: [none, (where) => api("GET", on(`/snapshot?format=ai&targetId=${tab[where]}`, where))],
      click: [refOf, (where, ref) => api("POST", on("/act", where), { kind: "click", ref, targetId: tab[where] })]
    }
    const times = {}
    for (const [kind, [prepare, request]] of Object.entries(kinds)) {
      times[kind] = { direct: [], node: [], transport: [] }
      for (let i = 0; i < runs + 3; i++) {
        for (const where of i % 2 === 0 ? ["direct", "node"] : ["node", "direct"]) {
          const prepared = await prepare(where)
          const t0 = performance.now()
          await request(where, prepared)
          if (i < 3) continue
          times[kind][where].push(performance.now() - t0)
          // The socket's share: the hop as the gateway timed it, less the node's own serving.
          if (where === "node") times[kind].transport.push(lastTiming.hop - lastTiming.node)
        }
      }
    }
    const results = { runs, setup }
    for (const [kind, t] of Object.entries(times)) {
      const direct = median(t.direct)
      const viaNode = median(t.node)
      results[kind] = {
        directMs: round(direct),
        nodeMs: round(viaNode),
        overheadMs: round(viaNode - direct),
        transportMs: round(median(t.transport)),
        ratio: round(viaNode / direct)
      }
    }

    // Screenshots of a noise page: the transfer's cost per MB.
    for (const where of setup === "shared" ? ["direct"] : ["direct", "node"]) {
      await api("POST", on("/navigate", where), { url: pages.url("/noise"), targetId: tab[where] })
    }
    const shots = { direct: [], node: [], transport: [] }
    let bytes = 0
    const shotRuns = Math.max(5, Math.round(runs / 3))
    for (let i = 0; i < shotRuns + 1; i++) {
      for (const where of i % 2 === 0 ? ["direct", "node"] : ["node", "direct"]) {
        const t0 = performance.now()
        const shot = await api("POST", on("/screenshot", where), { targetId: tab[where] })
        const ms = performance.now() - t0
        if (i > 0) shots[where].push(ms)
        if (i > 0 && where === "node") shots.transport.push(lastTiming.hop - lastTiming.node)
        if (where === "node") {
          bytes = shot.bytes
          if (!shot.path.startsWith(gw.stateDir)) throw new Error(`the node's screenshot is not in the gateway's media folder: ${shot.path}`)
        }
      }
    }
    const mb = bytes / (1024 * 1024)
    const directShot = median(shots.direct)
    const nodeShot = median(shots.node)
    results.screenshot = {
      setup,
      runs: shotRuns,
      mb: round(mb),
      directMs: round(directShot),
      nodeMs: round(nodeShot),
      transferMsPerMb: round((nodeShot - directShot) / mb),
      socketMsPerMb: round(median(shots.transport) / mb)
    }
    return results
  } finally {
    agent.destroy()
    if (node !== undefined) await stop(node.child)
    await stop(gateway)
    await pages.close()
    fs.rmSync(gw.stateDir, { recursive: true, force: true })
    fs.rmSync(nodeState.stateDir, { recursive: true, force: true })
  }
}

export function printNode(r) {
  for (const [kind, what] of [["tabs", "GET /tabs"], ["snapshot", "AI snapshot"], ["click", "click by ref"]]) {
    const k = r[kind]
    console.log(
      `node hop (${r.setup}), ${what} (median of ${r.runs}): via the node ${k.nodeMs} ms; ${r.setup === "shared" ? "the same tab" : "the same page"} on the gateway's managed profile ${k.directMs} ms; ` +
        `overhead ${k.overheadMs} ms (target: under 10 ms), of which the socket both ways ${k.transportMs} ms; ratio ${k.ratio}x`
    )
  }
  const s = r.screenshot
  console.log(
    `node hop (${s.setup}), screenshot of ${s.mb} MB (median of ${s.runs}): via the node ${s.nodeMs} ms; directly ${s.directMs} ms; ` +
      `transfer ${s.transferMsPerMb} ms per MB (the socket's share, file written on the gateway included: ${s.socketMsPerMb} ms per MB)`
  )
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const setup of ["shared", "managed"]) printNode(await measureNode({ runs: Number(process.argv[2] ?? 30), setup }))
}
