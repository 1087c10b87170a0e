// `node test/bench/navigation-policy.mjs`: what the navigation policy's interception costs a page load, measured
// with the library and Chromium directly, the same mechanisms the gateway uses (src/browser/policy/PolicyRouting.ts):
//   none      no interception (the baseline, measured in the same run)
//   documents our CDP session pausing document requests only (always on)
//   local     + the library's routing for URLs on this machine or metadata hosts (no list set)
//   all       + the library's routing for every request (a list set)
// A page with 50 images and 2 scripts on a host that is not loopback by name (site.test, mapped to 127.0.0.1);
// loaded 15 times per variant, interleaved, median ms of page.goto(load). Resources are cacheable (max-age), as
// on most sites, and again with no-store, which shows the interception alone (the library's routing turns the
// HTTP cache off).

import * as http from "node:http"
import { createRequire } from "node:module"

const require = createRequire(import.meta.url)
const { chromium } = require("playwright-core")

const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d4948445200000001000000010806000000" +
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082",
  "hex"
)
const page = (store) =>
  `<!doctype html><title>Fifty</title>` +
  Array.from({ length: 50 }, (_, i) => `<img src="/img/${i}.png?${store}">`).join("") +
  `<script src="/a.js?${store}"></script><script src="/b.js?${store}"></script>`

const server = http.createServer((req, res) => {
  const store = (req.url ?? "").includes("no-store")
  const cache = { "cache-control": store ? "no-store" : "max-age=3600" }
  setTimeout(() => {
    if (req.url.startsWith("/img/")) return res.writeHead(200, { "content-type": "image/png", ...cache }).end(PNG)
    if (req.url.includes(".js")) return res.writeHead(200, { "content-type": "text/javascript", ...cache }).end("void 0")
    res.writeHead(200, { "content-type": "text/html", "cache-control": "no-store" }).end(page(store ? "no-store" : "cache"))
  }, 2)
})
await new Promise((r) => server.listen(0, "127.0.0.1", r))
const port = server.address().port

const LOCAL = /^[a-z][a-z0-9+.-]*:\/\/(?:[^/?#@]*@)?(?:localhost|[^/?#@]*\.localhost|127(?:\.\d{1,3}){3}|0\.0\.0\.0|\[[^\]/]*\]|169\.254\.169\.254|metadata\.google\.internal|metadata)\.?(?::\d+)?(?:[/?#]|$)/i

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", `--host-resolver-rules=MAP site.test 127.0.0.1`]
})

const variant = async (name) => {
  const context = await browser.newContext()
  if (name === "local" || name === "all") {
    await context.route(name === "all" ? "**" : LOCAL, (route) => route.fallback())
  }
  const p = await context.newPage()
  if (name !== "none") {
    const session = await context.newCDPSession(p)
    session.on("Fetch.requestPaused", (e) => session.send("Fetch.continueRequest", { requestId: e.requestId }).catch(() => {}))
    await session.send("Fetch.enable", { patterns: [{ urlPattern: "*", resourceType: "Document", requestStage: "Request" }] })
  }
  return { name, page: p }
}

const names = ["none", "documents", "local", "all"]
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]
for (const store of ["cache", "no-store"]) {
  const variants = await Promise.all(names.map(variant))
  const times = Object.fromEntries(names.map((n) => [n, []]))
  const url = `http://site.test:${port}/${store === "no-store" ? "?no-store" : ""}`
  for (const v of variants) await v.page.goto(url, { waitUntil: "load" }) // warm: connections and, when allowed, the cache
  for (let i = 0; i < 15; i++) {
    for (const v of variants) {
      const t0 = performance.now()
      await v.page.goto(url, { waitUntil: "load" })
      times[v.name].push(performance.now() - t0)
    }
  }
  const base = median(times.none)
  console.log(`resources ${store}:`)
  for (const n of names) {
    const m = median(times[n])
    console.log(`  ${n.padEnd(10)} ${m.toFixed(1).padStart(7)} ms  ×${(m / base).toFixed(2)}`)
  }
  await Promise.all(variants.map((v) => v.page.context().close()))
}
await browser.close()
server.close()
