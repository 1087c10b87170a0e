// `svc mcp` per tool call, beside playwright-core doing the same thing directly on the same page of the
// same browser, interleaved, in the same run (the machine is shared and noisy; ratios hold):
//  - cold start: spawn `svc mcp` with no gateway running until the first browser_navigate has loaded a form
//    page (the gateway, the browser and the MCP handshake included);
//  - snapshot of the form page: browser_snapshot vs page.ariaSnapshot({ mode: "ai" });
//  - click by ref: browser_click vs locator.click() of the same button;
//  - hover by ref: browser_hover vs locator.hover(), each moving the pointer onto a button it is not over;
//  - type by ref: browser_type vs locator.fill() of the same field;
//  - select by ref: browser_select_option vs locator.selectOption() of the same select;
//  - screenshot: browser_take_screenshot (the PNG inline) vs page.screenshot();
//  - evaluate: browser_evaluate of a function reading the title vs page.evaluate() of the same function;
//  - evaluate by ref: browser_evaluate of a function reading the button's text, given the button's ref, vs
//    locator.evaluate() of the same function on the same button.
// Wall time around one tools/call round trip, as an agent's MCP client sees it.
//
// `node test/bench/mcp.mjs [runs]` runs only this (build first); run.mjs calls measureMcp.

import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as fs from "node:fs"
import * as http from "node:http"
import { createRequire } from "node:module"
import * as path from "node:path"
import { benchState } from "./benchGateway.mjs"
import { call } from "./load.mjs"
import { SVC_BIN } from "./cli-latency.mjs"

const require = createRequire(import.meta.url)
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor((s.length - 1) / 2)]
}
const round = (x) => Math.round(x * 10) / 10

const fields = Array.from({ length: 12 }, (_, i) => `<label>Field ${i} <input name="f${i}"></label><br>`).join("")
const FORM = `<!doctype html><title>Form</title><h1>Sign-up form</h1><form onsubmit="return false">${fields}
<label><input type="checkbox" name="terms"> I agree</label>
<select name="plan"><option>Free</option><option>Pro</option></select>
<button type="button" onclick="document.getElementById('status').textContent = 'count ' + (++window.n)">Increment counter</button>
<button type="submit" onmouseover="window.sendHovers = (window.sendHovers || 0) + 1">Send</button></form><p id="status">idle</p><script>window.n = 0</script>`

const servePage = async () => {
  const server = http.createServer((req, res) => res.writeHead(200, { "content-type": "text/html" }).end(FORM))
  await new Promise((r) => server.listen(0, "127.0.0.1", r))
  return {
    url: `http://127.0.0.1:${server.address().port}/form`,
    close: () => new Promise((r) => (server.close(r), server.closeAllConnections()))
  }
}

const text = (r) => r.content.filter((c) => c.type === "text").map((c) => c.text).join("\n")
const must = (r, what) => {
  if (r.isError) throw new Error(`${what}: ${text(r)}`)
  return r
}

/** The control API itself (no MCP): to tell the MCP layer's cost from the gateway's. */
const controlCall = (port, token, method, path, body) =>
  call(undefined, port, token, method, path, body).then((r) =>
    r.status === 200 ? r.json : Promise.reject(new Error(`${r.status} ${r.text}`))
  )

/** Time `f` and return [ms, value]. */
const timed = async (f) => {
  const t0 = performance.now()
  const v = await f()
  return [performance.now() - t0, v]
}

export async function measureMcp({ runs = 10 } = {}) {
  const { chromium } = require("playwright-core")
  const page = await servePage()
  const { port, stateDir, env } = await benchState("svc-bench-mcp-")
  delete env.NODE_OPTIONS

  const client = new Client({ name: "svc-bench", version: "1" })
  let browser
  const results = {}
  try {
    const [coldMs] = await timed(async () => {
      await client.connect(new StdioClientTransport({ command: SVC_BIN, args: ["mcp"], env, stderr: "ignore" }))
      must(await client.callTool({ name: "browser_navigate", arguments: { url: page.url } }), "navigate")
    })
    results.coldStartMs = round(coldMs)
    const call = async (name, args = {}) => must(await client.callTool({ name, arguments: args }), name)

    const status = JSON.parse(text(await call("browser_status")))
    browser = await chromium.connectOverCDP(status.cdpUrl)
    const direct = browser.contexts().flatMap((c) => c.pages()).find((p) => p.url() === page.url)
    if (direct === undefined) throw new Error("the form page is not among the browser's pages")
    const button = direct.getByRole("button", { name: "Increment counter", exact: true })

    const token = JSON.parse(fs.readFileSync(path.join(stateDir, "svc.json"), "utf8")).gateway.auth.token
    const api = (method, p, body) => controlCall(port + 2, token, method, p, body)
    const steps = Object.fromEntries(["snapshot", "click", "hover", "type", "select", "screenshot", "evaluate", "evaluateRef"].map((s) => [s, [[], [], []]]))
    const TITLE = "() => document.title"
    let chars = 0
    let clicks = 0
  let sendHovers = 0
    for (let i = 0; i < runs + 2; i++) {
      const [d] = await timed(() => direct.ariaSnapshot({ mode: "ai" }))
      const [m, snap] = await timed(() => call("browser_snapshot"))
      chars = text(snap).length
      const ref = /button "Increment counter"[^\n]*?\[ref=([^\]\s]+)\]/.exec(text(snap))?.[1]
      if (ref === undefined) throw new Error(`no ref for the counter button in:\n${text(snap)}`)
      const refOf = (re) => {
        const found = new RegExp(`${re.source}[^\\n]*?\\[ref=([^\\]\\s]+)\\]`).exec(text(snap))?.[1]
        if (found === undefined) throw new Error(`no ref for ${re} in:\n${text(snap)}`)
        return found
      }
      const sendRef = refOf(/button "Send"/)
      const fieldRef = refOf(/textbox "Field 3"/)
      const planRef = refOf(/combobox/)
      const [dc] = await timed(() => button.click())
      const [mc] = await timed(() => call("browser_click", { ref }))
      const [ac] = await timed(() => api("POST", "/act", { kind: "click", ref }))
      // Each hover moves the pointer from the button it is over onto the other one.
      const [mh] = await timed(() => call("browser_hover", { ref: sendRef }))
      const [dh] = await timed(() => button.hover())
      const [ah] = await timed(() => api("POST", "/act", { kind: "hover", ref: sendRef }))
      sendHovers += 2
      await button.hover()
      const field = direct.locator("input[name=f3]")
      const [dt] = await timed(() => field.fill(`direct ${i}`))
      const [mt] = await timed(() => call("browser_type", { ref: fieldRef, text: `mcp ${i}` }))
      if ((await field.inputValue()) !== `mcp ${i}`) throw new Error(`browser_type left ${await field.inputValue()}`)
      const [at] = await timed(() => api("POST", "/act", { kind: "type", ref: fieldRef, text: `api ${i}` }))
      const plan = direct.locator("select[name=plan]")
      const [dsel] = await timed(() => plan.selectOption("Pro"))
      const [msel] = await timed(() => call("browser_select_option", { ref: planRef, values: ["Free"] }))
      if ((await plan.inputValue()) !== "Free") throw new Error(`browser_select_option left ${await plan.inputValue()}`)
      const [asel] = await timed(() => api("POST", "/act", { kind: "select", ref: planRef, values: ["Pro"] }))
      // The API's own snapshot after the click: refs stay the ones the MCP snapshot gave.
      const [a] = await timed(() => api("GET", "/snapshot"))
      clicks += 3
      const [ds] = await timed(() => direct.screenshot())
      const [ms, shot] = await timed(() => call("browser_take_screenshot"))
      const [as] = await timed(() => api("POST", "/screenshot", {}))
      if (!shot.content.some((c) => c.type === "image")) throw new Error("browser_take_screenshot answered no image")
      const [de] = await timed(() => direct.evaluate(() => document.title))
      const [me, title] = await timed(() => call("browser_evaluate", { function: TITLE }))
      const [ae] = await timed(() => api("POST", "/act", { kind: "evaluate", fn: TITLE }))
      if (text(title) !== JSON.stringify("Form")) throw new Error(`browser_evaluate read ${text(title)} for the title`)
      const [dr] = await timed(() => button.evaluate((el) => el.textContent))
      const [mr, label] = await timed(() => call("browser_evaluate", { function: "(el) => el.textContent", ref }))
      const [ar] = await timed(() => api("POST", "/act", { kind: "evaluate", fn: "(el) => el.textContent", ref }))
      if (text(label) !== JSON.stringify("Increment counter")) throw new Error(`browser_evaluate by ref read ${text(label)}`)
      if (i < 2) continue
      const measured = [
        ["snapshot", m, d, a],
        ["click", mc, dc, ac],
        ["hover", mh, dh, ah],
        ["type", mt, dt, at],
        ["select", msel, dsel, asel],
        ["screenshot", ms, ds, as],
        ["evaluate", me, de, ae],
        ["evaluateRef", mr, dr, ar]
      ]
      for (const [step, x, y, z] of measured) {
        steps[step][0].push(x)
        steps[step][1].push(y)
        steps[step][2].push(z)
      }
    }
    const shown = await direct.locator("#status").textContent()
    if (shown !== `count ${clicks}`) throw new Error(`expected ${clicks} clicks to land, the page says ${shown}`)
    const hovered = await direct.evaluate(() => window.sendHovers)
    if (hovered !== sendHovers) throw new Error(`expected ${sendHovers} hovers over Send to land, the page counted ${hovered}`)
    for (const [step, [viaMcp, viaDirect, viaApi]] of Object.entries(steps)) {
      results[step] = {
        mcpMs: round(median(viaMcp)),
        directMs: round(median(viaDirect)),
        apiMs: round(median(viaApi)),
        plusMs: round(median(viaMcp) - median(viaDirect)),
        ratio: Math.round((median(viaMcp) / median(viaDirect)) * 100) / 100
      }
    }
    results.snapshot.chars = chars
    results.runs = runs
  } finally {
    await browser?.close().catch(() => undefined)
    await client.close().catch(() => undefined)
    await page.close()
    fs.rmSync(stateDir, { recursive: true, force: true })
  }
  return results
}

export const printMcp = (r) => {
  console.log(`MCP cold start (spawn \`svc mcp\`, no gateway running, to the form page loaded): ${r.coldStartMs} ms`)
  const names = {
    snapshot: `snapshot of the form page (${r.snapshot.chars} chars)`,
    click: "click by ref",
    hover: "hover by ref",
    type: "type by ref",
    select: "select by ref",
    screenshot: "screenshot",
    evaluate: "evaluate (the title)",
    evaluateRef: "evaluate by ref (the button's text)"
  }
  for (const step of ["snapshot", "click", "hover", "type", "select", "screenshot", "evaluate", "evaluateRef"]) {
    const s = r[step]
    console.log(
      `MCP ${names[step]} (median of ${r.runs}): svc mcp ${s.mcpMs} ms; playwright-core directly ${s.directMs} ms; ratio ${s.ratio}x (+${s.plusMs} ms); the control API alone ${s.apiMs} ms`
    )
  }
}

if (process.argv[1] !== undefined && import.meta.url === (await import("node:url")).pathToFileURL(process.argv[1]).href) {
  printMcp(await measureMcp({ runs: Number(process.argv[2] ?? 10) }))
}
