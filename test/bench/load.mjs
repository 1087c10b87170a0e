// Issue 12's load benchmark: many clients on one tab at once. Each client loops for a while over a
// snapshot, a click by a ref from its own last snapshot, and a screenshot, all on the same tab of a form
// page that never changes on its own (a click only counts). Reported: per request kind, p50/p99 latency
// and failures (a false "element changed" or 404 is a failure: the page never changed), and how evenly
// the clients were served (fewest and most requests a client got done). The baseline, measured in the
// same run, is one client doing the same loop alone.
//
// `node test/bench/load.mjs [clients] [seconds]` runs it alone against a gateway of its own (build first).

import * as http from "node:http"

/** One control API request (with a keep-alive `agent`, or none); resolves with the status, never rejects. */
export const call = (agent, port, token, method, path, body) =>
  new Promise((resolve) => {
    const data = body === undefined ? undefined : JSON.stringify(body)
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path,
        method,
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          ...(data !== undefined ? { "content-type": "application/json", "content-length": Buffer.byteLength(data) } : {})
        }
      },
      (res) => {
        const chunks = []
        res.on("data", (d) => chunks.push(d))
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          let json
          try {
            json = JSON.parse(text)
          } catch {
            json = undefined
          }
          resolve({ status: res.statusCode, json, text })
        })
      }
    )
    req.on("error", (e) => resolve({ status: 0, json: undefined, text: String(e) }))
    req.end(data)
  })

export const formPage = () => {
  const fields = []
  for (let i = 0; i < 12; i++) {
    fields.push(`<p><label>Field ${i} <input name="f${i}" value="v${i}"></label></p>`)
  }
  return `<!doctype html><title>Load form</title><h1>Order form</h1>
<form onsubmit="return false">${fields.join("")}
<p><label>Size <select name="size"><option>S</option><option>M</option><option>L</option></select></label></p>
<p><button type="button" id="inc" onclick="count.textContent=+count.textContent+1">Increment counter</button>
<button type="button">Reset</button> <button type="submit">Submit order</button></p></form>
<p>Clicks: <span id="count">0</span></p>`
}

const pct = (xs, p) => {
  if (xs.length === 0) return null
  const s = [...xs].sort((a, b) => a - b)
  return Math.round(s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] * 10) / 10
}

const REF = /button "Increment counter"[^\n]*?\[ref=([^\]]+)\]/

/** `clients` loops for `seconds` on one tab; what each kind of request took and how each failed. */
export async function loadOneTab({ controlPort, token, targetId, clients, seconds }) {
  const q = `profile=svc&targetId=${targetId}`
  const kinds = { snapshot: [], click: [], screenshot: [] }
  const failures = []
  const perClient = []
  const until = performance.now() + seconds * 1000
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 })
  const client = async () => {
    let done = 0
    let ref
    while (performance.now() < until) {
      for (const kind of ["snapshot", "click", "screenshot"]) {
        if (kind === "click" && ref === undefined) continue
        const t0 = performance.now()
        const r = kind === "snapshot"
          ? await call(agent, controlPort, token, "GET", `/snapshot?${q}&format=ai`)
          : kind === "click"
          ? await call(agent, controlPort, token, "POST", `/act?profile=svc`, { kind: "click", ref, targetId })
          : await call(agent, controlPort, token, "POST", `/screenshot?profile=svc`, { targetId })
        const ms = performance.now() - t0
        if (r.status === 200) {
          kinds[kind].push(ms)
          done++
          if (kind === "snapshot") ref = REF.exec(r.json?.snapshot ?? "")?.[1]
        } else {
          failures.push({ kind, status: r.status, message: (r.json?.message ?? r.text).slice(0, 300) })
        }
      }
    }
    perClient.push(done)
  }
  await Promise.all(Array.from({ length: clients }, client))
  agent.destroy()
  const summary = {}
  for (const [kind, xs] of Object.entries(kinds)) {
    summary[kind] = { ok: xs.length, failed: failures.filter((f) => f.kind === kind).length, p50Ms: pct(xs, 50), p99Ms: pct(xs, 99) }
  }
  return {
    clients,
    seconds,
    ...summary,
    fewestDone: Math.min(...perClient),
    mostDone: Math.max(...perClient),
    failures: failures.slice(0, 5)
  }
}

/** One client alone (the baseline), then `clients` at once, on one tab of the form page. */
export async function measureLoad({ svcJson, controlPort, token, clients = 50, seconds = 30, serveUrl }) {
  const tab = await svcJson(["browser", "open", serveUrl])
  const alone = await loadOneTab({ controlPort, token, targetId: tab.targetId, clients: 1, seconds: Math.min(5, seconds) })
  const loaded = await loadOneTab({ controlPort, token, targetId: tab.targetId, clients, seconds })
  await svcJson(["browser", "close", tab.targetId]).catch(() => undefined)
  const ratio = (k, p) => (alone[k][p] && loaded[k][p] ? Math.round((loaded[k][p] / alone[k][p]) * 10) / 10 : null)
  return {
    alone,
    loaded,
    p99VsAlone: { snapshot: ratio("snapshot", "p99Ms"), click: ratio("click", "p99Ms"), screenshot: ratio("screenshot", "p99Ms") }
  }
}

if (process.argv[1] !== undefined && import.meta.url === (await import("node:url")).pathToFileURL(process.argv[1]).href) {
  const { startBenchGateway } = await import("./benchGateway.mjs")
  const clients = Number(process.argv[2] ?? 50)
  const seconds = Number(process.argv[3] ?? 30)
  const server = http.createServer((req, res) => res.writeHead(200, { "content-type": "text/html" }).end(formPage()))
  await new Promise((r) => server.listen(0, "127.0.0.1", r))
  const gw = await startBenchGateway()
  try {
    const r = await measureLoad({ ...gw, clients, seconds, serveUrl: `http://127.0.0.1:${server.address().port}/form` })
    console.log(JSON.stringify(r, null, 2))
  } finally {
    await gw.stop()
    server.close()
    server.closeAllConnections()
  }
}
