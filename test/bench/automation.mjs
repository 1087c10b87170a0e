// Issue 3's benchmarks, against a running gateway (see run.mjs):
//  - snapshot overhead: GET /snapshot (format ai) through the gateway (HTTP, auth, ref bookkeeping) vs a
//    direct page.ariaSnapshot({ mode: "ai" }) on the same browser and page, interleaved, small and large page;
//  - click by ref through the CLI, median of 20;
//  - the efficient snapshot's size beside the full AI snapshot on the large page;
//  - click by ref through the control API (an AI ref and a role ref, with the checks that make a ref hit
//    only the element its snapshot showed) vs playwright-core clicking the same button directly, on the
//    small page, interleaved, each started after a random pause of up to two frames (a click waits for
//    animation frames, so without it the fixed rhythm of the loop decides how much of a cost shows);
//  - role snapshot (`--interactive`, with the identity pass that gives refs among look-alikes their element)
//    vs a direct page.ariaSnapshot() of the same page, interleaved: on the small page (no look-alikes) and
//    on a page of rows with look-alike buttons (the identity pass takes an AI snapshot as well);
//  - snapshot --diff on the large page after one counter click vs the full snapshot: chars and ms;
//  - the default (capped) AI snapshot of a page ten times the cap vs the library's whole read of it;
//  - the first AI snapshot of a page of 600 closed <details> vs the library's own first read of it.

import { spawn } from "node:child_process"
import * as http from "node:http"
import { createRequire } from "node:module"
import { SVC_BIN } from "./cli-latency.mjs"

const require = createRequire(import.meta.url)

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor((s.length - 1) / 2)]
}
const round = (x) => Math.round(x * 10) / 10

const page = (n) => {
  const rows = []
  for (let i = 0; i < n; i++) {
    rows.push(
      i % 10 === 0
        ? `<li><button onclick="count.textContent=+count.textContent+1">Button ${i}</button></li>`
        : i % 10 === 1
        ? `<li><a href="#a${i}">Link ${i}</a></li>`
        : i % 10 === 2
        ? `<li><label>Field ${i} <input name="f${i}"></label></li>`
        : `<li><span>Text item ${i}</span> <em>detail ${i}</em></li>`
    )
  }
  return `<!doctype html><title>Bench ${n}</title><h1>Bench page</h1><p>Clicks: <span id="count">0</span></p><ul>${rows.join("")}</ul>`
}

/** Rows of look-alikes: every row has an "Edit" and a "Remove" button and an unnamed checkbox. */
/** A page of questions, each answer in a closed <details> (FAQ and documentation pages are built this way). */
const detailsPage = (n) => {
  const items = []
  for (let i = 0; i < n; i++) {
    items.push(`<section><h2>Question ${i}</h2><details><summary>Answer</summary><p>Answer ${i}, with <a href="#q${i}">a link</a>.</p></details></section>`)
  }
  return `<!doctype html><title>Questions</title><h1>Questions</h1>${items.join("")}`
}

const rowsPage = (n) => {
  const rows = []
  for (let i = 0; i < n; i++) {
    rows.push(`<li><input type="checkbox"> <span>Row ${i}</span> <button>Edit</button> <button>Remove</button></li>`)
  }
  return `<!doctype html><title>Rows</title><h1>Rows</h1><ul>${rows.join("")}</ul>`
}

export const servePages = async () => {
  const pages = { "/small": page(130), "/large": page(1300), "/huge": page(12000), "/rows": rowsPage(40), "/details": detailsPage(600) }
  const server = http.createServer((req, res) => {
    const body = pages[req.url]
    res.writeHead(body ? 200 : 404, { "content-type": "text/html" }).end(body ?? "")
  })
  await new Promise((r) => server.listen(0, "127.0.0.1", r))
  const port = server.address().port
  return { url: (p) => `http://127.0.0.1:${port}${p}`, close: () => new Promise((r) => (server.close(r), server.closeAllConnections())) }
}

const get = (port, token, path) =>
  new Promise((resolve, reject) => {
    const req = http.get({ host: "127.0.0.1", port, path, headers: { authorization: `Bearer ${token}` } }, (res) => {
      let body = ""
      res.on("data", (d) => (body += d))
      res.on("end", () => (res.statusCode === 200 ? resolve(JSON.parse(body)) : reject(new Error(`${res.statusCode} ${body}`))))
    })
    req.on("error", reject)
  })

const post = (port, token, path, body) =>
  new Promise((resolve, reject) => {
    const data = JSON.stringify(body)
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": Buffer.byteLength(data) }
      },
      (res) => {
        let text = ""
        res.on("data", (d) => (text += d))
        res.on("end", () => {
          if (res.statusCode !== 200) return reject(new Error(`${res.statusCode} ${text}`))
          // The gateway's Server-Timing parts (ms by name), beside the answer.
          const timing = {}
          for (const part of String(res.headers["server-timing"] ?? "").split(",")) {
            const m = /^\s*([\w-]+);dur=([\d.]+)/.exec(part)
            if (m) timing[m[1]] = Number(m[2])
          }
          const result = JSON.parse(text)
          Object.defineProperty(result, "timing", { value: timing, enumerable: false })
          resolve(result)
        })
      }
    )
    req.on("error", reject)
    req.end(data)
  })

const timeSvc = (svc, args, env) =>
  new Promise((resolve, reject) => {
    const t0 = performance.now()
    const c = spawn(svc, args, { env, stdio: ["ignore", "pipe", "pipe"] })
    let err = ""
    c.stderr.on("data", (d) => (err += d))
    c.once("exit", (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(err))))
  })

/** A random pause of up to two animation frames, before each timed click (see above). */
const jitter = () => new Promise((r) => setTimeout(r, Math.random() * 33))

/** Role snapshots through the API (`--interactive`) vs page.ariaSnapshot() directly, interleaved. */
const roleSnapshotsWith = async ({ controlPort, token, runs }, direct, targetId) => {
  const viaGateway = []
  const viaDirect = []
  let refs = 0
  for (let i = 0; i < runs + 2; i++) {
    let t0 = performance.now()
    await direct.ariaSnapshot()
    const d = performance.now() - t0
    t0 = performance.now()
    const snap = await get(controlPort, token, `/snapshot?profile=svc&interactive=true&targetId=${targetId}&limit=10000000`)
    const g = performance.now() - t0
    refs = Object.keys(snap.refs ?? {}).length
    if (i < 2) continue
    viaDirect.push(d)
    viaGateway.push(g)
  }
  return {
    refs,
    gatewayMs: round(median(viaGateway)),
    directMs: round(median(viaDirect)),
    ratio: Math.round((median(viaGateway) / median(viaDirect)) * 100) / 100
  }
}

const del = (port, token, path) =>
  new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path, method: "DELETE", headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.resume()
      res.on("end", resolve)
    })
    req.on("error", reject)
    req.end()
  })

/**
 * `POST /tabs/open` on a running browser vs the library's newPage() + goto (until the commit), interleaved, the
 * order swapped every run. Each is timed on a quiet browser: the page opened before it (answered at its commit)
 * is let finish loading first, so neither is timed beside the other's load.
 */
const opens = async ({ controlPort, token, runs }, context, url) => {
  const viaGateway = []
  const viaDirect = []
  const loaded = async (page) => {
    await page.waitForLoadState("load").catch(() => undefined)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const direct = async () => {
    const t0 = performance.now()
    const page = await context.newPage()
    await page.goto(url, { waitUntil: "commit" })
    const ms = performance.now() - t0
    await loaded(page)
    return { ms, close: () => page.close() }
  }
  const gateway = async () => {
    const known = new Set(context.pages())
    const t0 = performance.now()
    const tab = await post(controlPort, token, "/tabs/open?profile=svc", { url })
    const ms = performance.now() - t0
    const page = context.pages().find((p) => !known.has(p)) ?? await context.waitForEvent("page", { timeout: 5_000 }).catch(() => undefined)
    if (page !== undefined) await loaded(page)
    return { ms, close: () => del(controlPort, token, `/tabs/${tab.targetId}?profile=svc`) }
  }
  for (let i = 0; i < runs + 2; i++) {
    const directFirst = i % 2 === 0
    const a = directFirst ? await direct() : await gateway()
    const b = directFirst ? await gateway() : await direct()
    const [d, g] = directFirst ? [a, b] : [b, a]
    await d.close()
    await g.close()
    if (i < 2) continue
    viaDirect.push(d.ms)
    viaGateway.push(g.ms)
  }
  return {
    gatewayMs: round(median(viaGateway)),
    directMs: round(median(viaDirect)),
    plusMs: round(median(viaGateway) - median(viaDirect)),
    ratio: Math.round((median(viaGateway) / median(viaDirect)) * 100) / 100
  }
}

/**
 * `svcJson(args)` runs the CLI with --json; `controlPort` and `token` reach the gateway directly;
 * `cdpUrl` is the managed browser's CDP endpoint.
 */
export async function measureAutomation({ svc, env, svcJson, controlPort, token, cdpUrl, runs = 10 }) {
  const { chromium } = require("playwright-core")
  const pages = await servePages()
  const browser = await chromium.connectOverCDP(cdpUrl)
  const results = {}
  const roleSnapshots = (direct, targetId) => roleSnapshotsWith({ controlPort, token, runs }, direct, targetId)
  try {
    for (const size of ["small", "large"]) {
      const tab = await svcJson(["browser", "open", pages.url(`/${size}`)])
      await new Promise((r) => setTimeout(r, 300))
      const direct = browser.contexts().flatMap((c) => c.pages()).find((p) => p.url() === pages.url(`/${size}`))
      const viaGateway = []
      const viaDirect = []
      let chars = 0
      for (let i = 0; i < runs + 2; i++) {
        let t0 = performance.now()
        const text = await direct.ariaSnapshot({ mode: "ai" })
        const d = performance.now() - t0
        t0 = performance.now()
        const snap = await get(controlPort, token, `/snapshot?profile=svc&format=ai&targetId=${tab.targetId}&limit=10000000`)
        const g = performance.now() - t0
        chars = text.length
        if (snap.truncated) throw new Error("the benchmark's snapshot was truncated")
        if (i < 2) continue
        viaDirect.push(d)
        viaGateway.push(g)
      }
      results[`snapshot_${size}`] = {
        chars,
        gatewayMs: round(median(viaGateway)),
        directMs: round(median(viaDirect)),
        ratio: Math.round((median(viaGateway) / median(viaDirect)) * 100) / 100
      }
      if (size === "small") {
        // Click by ref through the API vs a direct click of the same button, interleaved: first with an AI
        // ref, then with a role ref.
        const button = direct.getByRole("button", { name: "Button 0", exact: true })
        const clicks = runs * 3
        const clickRuns = async (ref) => {
          const viaApi = []
          const viaDirect = []
          const safety = []
          for (let i = 0; i < clicks + 2; i++) {
            await jitter()
            let t0 = performance.now()
            await button.click()
            const d = performance.now() - t0
            await jitter()
            t0 = performance.now()
            const r = await post(controlPort, token, "/act?profile=svc", { kind: "click", ref, targetId: tab.targetId })
            const a = performance.now() - t0
            if (i < 2) continue
            viaDirect.push(d)
            viaApi.push(a)
            // What the safety adds to the action (Server-Timing): checking and guarding the ref, the look at
            // the browser before it, and the guards' release with the last look after it.
            safety.push((r.timing.ref ?? 0) + (r.timing.watch ?? 0) + (r.timing.after ?? 0))
          }
          return { api: median(viaApi), direct: median(viaDirect), safety: median(safety) }
        }
        const refFor = async (query) => {
          const snap = await get(controlPort, token, `/snapshot?profile=svc&${query}&targetId=${tab.targetId}`)
          const ref = /button "Button 0" \[ref=([^\]]+)\]/.exec(snap.snapshot)?.[1]
          if (ref === undefined) throw new Error(`no ref for Button 0 (${query})`)
          return ref
        }
        const ai = await clickRuns(await refFor("format=ai"))
        const role = await clickRuns(await refFor("interactive=true"))
        const count = Number(await direct.locator("#count").textContent())
        if (count !== 4 * (clicks + 2)) throw new Error(`expected ${4 * (clicks + 2)} clicks to land, saw ${count}`)
        results.clickApi = {
          directMs: round((ai.direct + role.direct) / 2),
          aiMs: round(ai.api),
          roleMs: round(role.api),
          aiRatio: Math.round((ai.api / ai.direct) * 100) / 100,
          roleRatio: Math.round((role.api / role.direct) * 100) / 100,
          aiPlusMs: round(ai.api - ai.direct),
          rolePlusMs: round(role.api - role.direct),
          aiSafetyMs: round(ai.safety),
          roleSafetyMs: round(role.safety),
          runs: clicks
        }
        results.roleSnapshot_small = await roleSnapshots(direct, tab.targetId)
        // The first snapshot of a new document beside the next one, asked at once after the navigation's answer
        // (a script) and after half a second (an agent reads the answer and thinks first; svc reads the new
        // document ahead once the tab is quiet): navigate back and forth, time the first and the next.
        const firstSnapshots = async (pauseMs) => {
          const firsts = []
          const seconds = []
          const navs = []
          for (let i = 0; i < runs + 1; i++) {
            let t0 = performance.now()
            await post(controlPort, token, "/navigate?profile=svc", { url: pages.url(i % 2 === 0 ? "/rows" : "/small"), targetId: tab.targetId })
            const nav = performance.now() - t0
            if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs))
            t0 = performance.now()
            await get(controlPort, token, `/snapshot?profile=svc&format=ai&targetId=${tab.targetId}`)
            const first = performance.now() - t0
            t0 = performance.now()
            await get(controlPort, token, `/snapshot?profile=svc&format=ai&targetId=${tab.targetId}`)
            const second = performance.now() - t0
            if (i === 0) continue
            navs.push(nav)
            firsts.push(first)
            seconds.push(second)
          }
          return {
            navigateMs: round(median(navs)),
            firstMs: round(median(firsts)),
            nextMs: round(median(seconds)),
            ratio: Math.round((median(firsts) / median(seconds)) * 100) / 100,
            runs: firsts.length
          }
        }
        // The first snapshot of a page of 600 closed <details>, beside the library's own first read of it in
        // its own tab: both documents new each time.
        const closedDetails = async () => {
          const svcMs = []
          const directMs = []
          for (let i = 0; i < runs + 1; i++) {
            await post(controlPort, token, "/navigate?profile=svc", { url: pages.url("/details"), targetId: tab.targetId })
            let t0 = performance.now()
            await get(controlPort, token, `/snapshot?profile=svc&format=ai&targetId=${tab.targetId}`)
            const svcFirst = performance.now() - t0
            await direct.goto(pages.url("/details"))
            t0 = performance.now()
            await direct.ariaSnapshot({ mode: "ai" })
            const directFirst = performance.now() - t0
            if (i === 0) continue
            svcMs.push(svcFirst)
            directMs.push(directFirst)
          }
          await direct.goto(pages.url("/small"))
          return {
            svcMs: round(median(svcMs)),
            directMs: round(median(directMs)),
            ratio: Math.round((median(svcMs) / median(directMs)) * 100) / 100,
            runs: svcMs.length
          }
        }
        results.closedDetails = await closedDetails()
        results.firstSnapshot = await firstSnapshots(0)
        results.firstSnapshotAfterPause = await firstSnapshots(500)
        await post(controlPort, token, "/navigate?profile=svc", { url: pages.url("/small"), targetId: tab.targetId })
        results.open = await opens({ controlPort, token, runs }, direct.context(), pages.url("/small"))
      }
      if (size === "large") {
        const efficient = await get(controlPort, token, `/snapshot?profile=svc&efficient=true&targetId=${tab.targetId}`)
        results.efficientSize = { efficientChars: efficient.snapshot.length, fullChars: chars, interactive: efficient.stats?.interactive }
        // Click by ref through the CLI: the first button of the page, 20 times.
        const snap = await get(controlPort, token, `/snapshot?profile=svc&format=ai&targetId=${tab.targetId}&limit=10000000`)
        const ref = /button "Button 0" \[ref=([^\]]+)\]/.exec(snap.snapshot)?.[1]
        if (ref === undefined) throw new Error("no ref for Button 0")
        const times = []
        for (let i = 0; i < 22; i++) {
          const ms = await timeSvc(svc, ["browser", "click", ref, "--target-id", tab.targetId, "--browser-profile", "svc"], env)
          if (i >= 2) times.push(ms)
        }
        const count = await direct.locator("#count").textContent()
        if (count !== "22") throw new Error(`expected 22 clicks to land, saw ${count}`)
        results.clickByRef = { medianMs: round(median(times)), runs: times.length }
        // snapshot --diff after one counter click vs the full snapshot, interleaved (each after its own click).
        const snapshotPath = (diff) => `/snapshot?profile=svc&format=ai&targetId=${tab.targetId}&limit=10000000${diff ? "&diff=true" : ""}`
        const clickOnce = () => post(controlPort, token, "/act?profile=svc", { kind: "click", ref, targetId: tab.targetId })
        await get(controlPort, token, snapshotPath(false))
        const diffMs = []
        const fullMs = []
        let diffChars = 0
        let fullChars = 0
        for (let i = 0; i < runs + 2; i++) {
          await clickOnce()
          let t0 = performance.now()
          const d = await get(controlPort, token, snapshotPath(true))
          const dm = performance.now() - t0
          if (d.diff?.base !== "previous") throw new Error(`expected a diff, got ${JSON.stringify(d.diff)}`)
          await clickOnce()
          t0 = performance.now()
          const f = await get(controlPort, token, snapshotPath(false))
          const fm = performance.now() - t0
          if (i < 2) continue
          diffMs.push(dm)
          fullMs.push(fm)
          diffChars = d.snapshot.length
          fullChars = f.snapshot.length
        }
        results.snapshotDiff = {
          diffChars,
          fullChars,
          charsRatio: Math.round((diffChars / fullChars) * 10000) / 10000,
          diffMs: round(median(diffMs)),
          fullMs: round(median(fullMs)),
          msRatio: Math.round((median(diffMs) / median(fullMs)) * 100) / 100,
          runs
        }
      }
    }
    {
      const tab = await svcJson(["browser", "open", pages.url("/rows")])
      await new Promise((r) => setTimeout(r, 300))
      const direct = browser.contexts().flatMap((c) => c.pages()).find((p) => p.url() === pages.url("/rows"))
      results.roleSnapshot_rows = await roleSnapshots(direct, tab.targetId)
    }
    {
      // A page far over the default cap (about 800,000 characters of AI snapshot): the gateway's default
      // snapshot reads it only as far as the cap reaches; the library reads all of it.
      const tab = await svcJson(["browser", "open", pages.url("/huge")])
      await new Promise((r) => setTimeout(r, 300))
      const direct = browser.contexts().flatMap((c) => c.pages()).find((p) => p.url() === pages.url("/huge"))
      const viaGateway = []
      const viaDirect = []
      let chars = 0
      let directChars = 0
      for (let i = 0; i < runs + 2; i++) {
        let t0 = performance.now()
        directChars = (await direct.ariaSnapshot({ mode: "ai" })).length
        const d = performance.now() - t0
        t0 = performance.now()
        const snap = await get(controlPort, token, `/snapshot?profile=svc&format=ai&targetId=${tab.targetId}`)
        const g = performance.now() - t0
        if (!snap.truncated) throw new Error("the benchmark's capped snapshot was not cut")
        chars = snap.snapshot.length
        if (i < 2) continue
        viaDirect.push(d)
        viaGateway.push(g)
      }
      results.snapshot_capped = {
        chars,
        directChars,
        gatewayMs: round(median(viaGateway)),
        directMs: round(median(viaDirect)),
        ratio: Math.round((median(viaGateway) / median(viaDirect)) * 100) / 100
      }
    }
  } finally {
    await browser.close().catch(() => undefined)
    await pages.close()
  }
  return results
}

// `node test/bench/automation.mjs [runs]`: only these measurements, against a gateway of its own (a temp
// state dir, free ports), without the rest of run.mjs. Build first (`npm run -s build`).
if (process.argv[1] !== undefined && import.meta.url === (await import("node:url")).pathToFileURL(process.argv[1]).href) {
  const { startBenchGateway } = await import("./benchGateway.mjs")
  const gw = await startBenchGateway()
  try {
    const runs = Number(process.argv[2] ?? 10)
    const r = await measureAutomation({ svc: SVC_BIN, ...gw, runs })
    console.log(JSON.stringify(r, null, 2))
  } finally {
    await gw.stop()
  }
}
