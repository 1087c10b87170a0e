import { FileSystem } from "@effect/platform"
import { NodeFileSystem, NodeHttpClient } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type BrowserToolSession, makeBrowserTool } from "../../src/agent/tool/BrowserTool.js"
import { makeControlClientAt } from "../../src/client/ControlClient.js"
import type { ToolResult } from "../../src/agent/tool/toolResult.js"
import { freeCdpPort, type Gateway, servePages, startGateway } from "../support/gateway.js"

// The agent tool `browser` through the real path: its calls go through the typed client to a real gateway
// and a real Chromium; what a model would read comes back (text with refs, PNG images, errors that say how
// to recover), and target routing keeps a sandboxed session on the sandbox browser.

const page = `<!doctype html><title>Tool page</title><h1>Counter</h1>
<button onclick="count.textContent = +count.textContent + 1">Add one</button>
<label>Name <input id="name"></label><p>Count: <span id="count">0</span></p>`

const host: BrowserToolSession = { sandboxed: false, allowHostControl: false, nodesMode: "auto", nodes: () => [] }
const sandboxed: BrowserToolSession = { ...host, sandboxed: true }

const text = (r: ToolResult) => r.content.filter((c) => c.type === "text").map((c) => (c as { text: string }).text).join("\n")
const refOf = (snapshot: string, pattern: RegExp) => {
  const line = snapshot.split("\n").find((l) => pattern.test(l))
  const ref = /\[ref=([^\]]+)\]/.exec(line ?? "")?.[1]
  if (ref === undefined) throw new Error(`no ref for ${pattern} in\n${snapshot}`)
  return ref
}

describe("the browser tool", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>
  let call: (params: unknown, session?: BrowserToolSession) => Promise<ToolResult>

  beforeAll(async () => {
    pages = await servePages({ "/tool": page })
    gw = await startGateway({
      config: {
        browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } }
      }
    })
    const tool = await Effect.runPromise(
      Effect.gen(function*() {
        const { client } = yield* makeControlClientAt({
          baseUrl: `http://127.0.0.1:${gw.controlPort}`,
          headers: { authorization: `Bearer ${gw.token()}` }
        })
        const fs = yield* FileSystem.FileSystem
        return makeBrowserTool(client, (path) => fs.readFile(path))
      }).pipe(Effect.provide(Layer.merge(NodeHttpClient.layer, NodeFileSystem.layer)))
    )
    call = (params, session = host) => Effect.runPromise(tool.run(params, session))
  }, 60_000)
  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
  })

  it("opens a page, snapshots it with refs, clicks by ref and sees the page change", async () => {
    const opened = await call({ action: "open", url: pages.url("/tool") })
    expect(opened.isError, text(opened)).toBe(false)
    const targetId = /opened tab (\S+)/.exec(text(opened))![1]!
    const snap = await call({ action: "snapshot", targetId })
    expect(snap.isError).toBe(false)
    expect(text(snap)).toMatch(/button "Add one" \[ref=\d+\]/)
    // The title is the browser's, which may still show the URL right after the load: not asserted.
    expect(text(snap)).toMatch(/\[ai snapshot of tab \S+: http:\/\/127\.0\.0\.1:\d+\/tool \(".*"\); \d+ lines, \d+ refs/)
    const click = await call({ action: "act", targetId, request: { kind: "click", ref: refOf(text(snap), /"Add one"/) } })
    expect(click.isError, text(click)).toBe(false)
    expect(text(click)).toMatch(/^click \d+: done/)
    // One element's part by its ref.
    const part = text(await call({ action: "snapshot", targetId, ref: refOf(text(snap), /"Add one"/) }))
    expect(part).toMatch(/^\s*- button "Add one"(?: \[active\])? \[ref=\d+\]$/m)
    expect(part).not.toContain("Name")
    const read = await call({ action: "act", targetId, request: { kind: "evaluate", fn: "() => document.getElementById('count').textContent" } })
    expect(text(read)).toContain(`result: "1"`)
    // A search in the snapshot: the heading, then the match under its path, its ref acting.
    const found = text(await call({ action: "snapshot", targetId, find: "ADD ONE" }))
    expect(found).toMatch(/^ai snapshot of tab \S+: http:\/\/127\.0\.0\.1:\d+\/tool/)
    expect(found).toMatch(/^1 line\(s\) match "ADD ONE" \(of \d+ in the page's snapshot\)/m)
    const again = await call({ action: "act", targetId, request: { kind: "click", ref: refOf(found, /"Add one"/) } })
    expect(again.isError, text(again)).toBe(false)
    // The wheel on a page that fits its viewport: nothing moves, and the result says so.
    const wheel = await call({ action: "act", targetId, request: { kind: "scroll", dy: 300 } })
    expect(text(wheel), text(wheel)).toContain(`result: {"x":0,"y":0,"maxX":0,"maxY":0,"moved":false,"scroller":"page"}`)
    // The pointer at a point, as a screenshot shows it (the button's middle): a click, then one by press and release.
    const middle = text(await call({
      action: "act",
      targetId,
      request: { kind: "evaluate", fn: "() => { const r = document.querySelector('button').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2] }" }
    }))
    const [x, y] = JSON.parse(/result: (\[.*\])/.exec(middle)![1]!) as [number, number]
    const clicked = await call({ action: "act", targetId, request: { kind: "clickAt", x, y } })
    expect(clicked.isError, text(clicked)).toBe(false)
    const steps = await call({ action: "act", targetId, batch: [{ kind: "moveAt", x, y }, { kind: "mouseDown" }, { kind: "mouseUp" }] })
    expect(steps.isError, text(steps)).toBe(false)
    expect(text(steps)).toMatch(/^1\. moveAt: done[\s\S]*^2\. mouseDown: done[\s\S]*^3\. mouseUp: done/m)
    expect(text(await call({ action: "act", targetId, request: { kind: "evaluate", fn: "() => document.getElementById('count').textContent" } })))
      .toContain(`result: "4"`)
  }, 60_000)

  it("a screenshot is an image part holding a PNG", async () => {
    const shot = await call({ action: "screenshot" })
    expect(shot.isError, text(shot)).toBe(false)
    const image = shot.content.find((c) => c.type === "image") as { data: Uint8Array; mimeType: string }
    expect(image.mimeType).toBe("image/png")
    const png = Buffer.from(image.data)
    expect(png.toString("hex", 0, 8)).toBe("89504e470d0a1a0a")
    expect(png.readUInt32BE(16)).toBeGreaterThan(100)
  }, 60_000)

  it("close without a targetId closes the current tab and names the tabs left to go on with", async () => {
    const first = /opened tab (\S+)/.exec(text(await call({ action: "open", url: pages.url("/tool") })))![1]!
    const second = /opened tab (\S+)/.exec(text(await call({ action: "open", url: pages.url("/tool") })))![1]!
    const closed = text(await call({ action: "close" }))
    expect(closed).toMatch(new RegExp(`^closed tab ${second}; no tab is current: pass a targetId or focus one of the tabs left:`))
    expect(closed).toContain(`${first} ${pages.url("/tool")}`)
    expect(closed).not.toContain(`${second} `)
    expect((await call({ action: "focus", targetId: first })).isError).toBe(false)
  }, 60_000)

  it("close by targetId answers as close without one: the tab closed, the tabs left, the current one kept", async () => {
    const kept = /opened tab (\S+)/.exec(text(await call({ action: "open", url: pages.url("/tool") })))![1]!
    const other = /opened tab (\S+)/.exec(text(await call({ action: "open", url: `${pages.url("/tool")}?other` })))![1]!
    expect((await call({ action: "focus", targetId: kept })).isError).toBe(false)
    const closed = text(await call({ action: "close", targetId: other }))
    expect(closed).toMatch(new RegExp(`^closed tab ${other}; the current tab is still ${kept}; the tabs left:\\n`))
    expect(closed).toContain(`${kept} ${pages.url("/tool")}`)
    expect(closed).not.toContain(`${other} `)
    expect((await call({ action: "focus", targetId: kept })).isError).toBe(false)
  }, 60_000)

  it("a batch runs in order and stops at the first failure, saying what was not done", async () => {
    expect((await call({ action: "navigate", url: pages.url("/tool") })).isError).toBe(false)
    const snap = text(await call({ action: "snapshot", format: "role", interactive: true }))
    const add = refOf(snap, /"Add one"/)
    const r = await call({
      action: "act",
      batch: [
        { kind: "type", ref: refOf(snap, /textbox "Name"/), text: "Ada" },
        { kind: "click", ref: "e999" },
        { kind: "click", ref: add }
      ]
    })
    expect(r.isError).toBe(true)
    expect(text(r)).toMatch(/1\. type e\d+: done/)
    expect(text(r)).toMatch(/2\. click e999: Conflict: ref e999 cannot be used.*fresh snapshot/s)
    expect(text(r)).toContain("stopped: 1 later action(s) not done")
    const value = await call({ action: "act", request: { kind: "evaluate", fn: "() => [document.getElementById('name').value, document.getElementById('count').textContent]" } })
    // The click after the failing one was not done.
    expect(text(value)).toContain(`result: ["Ada","0"]`)
  }, 60_000)

  it("saves the profile's cookies and local storage to a file and loads them back", async () => {
    await call({ action: "navigate", url: pages.url("/tool") })
    await call({ action: "act", request: { kind: "evaluate", fn: "() => localStorage.setItem('who', 'ada')" } })
    const filename = `tool-state-${process.pid}-${Date.now()}.json`
    const saved = await call({ action: "savestate", filename })
    expect(saved.isError, text(saved)).toBe(false)
    const file = /^saved \d+ cookie\(s\) and the local storage of 1 origin\(s\) to (\/\S+)$/.exec(text(saved))?.[1]
    expect(file, text(saved)).toMatch(new RegExp(`/states/${filename}$`))
    try {
      await call({ action: "act", request: { kind: "evaluate", fn: "() => localStorage.setItem('who', 'eve')" } })
      const loaded = await call({ action: "loadstate", filename })
      expect(text(loaded)).toMatch(/^cleared the profile's cookies and local storage, then loaded \d+ cookie\(s\) and the local storage of 1 origin\(s\) from /)
      expect(text(await call({ action: "act", request: { kind: "evaluate", fn: "() => localStorage.getItem('who')" } }))).toContain(`result: "ada"`)
      expect(text(await call({ action: "loadstate" }))).toBe("action loadstate needs filename")
    } finally {
      fs.rmSync(file!, { force: true })
    }
  }, 60_000)

  it("emulate slows the tab's CPU and network and gives the speed back", async () => {
    await call({ action: "navigate", url: pages.url("/tool") })
    expect(text(await call({ action: "emulate", network: "slow-4g", cpu: 4 })))
      .toBe("network slow-4g (562.5 ms latency, 1440 kbit/s down, 675 kbit/s up), CPU 4x slower (this tab)")
    expect(text(await call({ action: "emulate", network: "none", cpu: 1 }))).toBe("network at full speed, CPU at its own speed (this tab)")
  })

  it("routes answers requests with a given response, lists the routes and removes them", async () => {
    await call({ action: "navigate", url: pages.url("/tool") })
    expect(text(await call({ action: "routes", pattern: "**/mocked", body: "from the route", contentType: "text/plain" })))
      .toBe("route added: **/mocked: answered 200, text/plain, 14 byte(s) (0 request(s) so far)")
    const read = () => call({ action: "act", request: { kind: "evaluate", fn: "() => fetch('/mocked').then((r) => r.text(), () => 'failed')" } })
    expect(text(await read())).toContain('"from the route"')
    expect(text(await call({ action: "routes" }))).toBe("**/mocked: answered 200, text/plain, 14 byte(s) (1 request(s) so far)")
    expect(text(await call({ action: "routes", clear: true }))).toBe("removed 1 route(s)")
    expect(text(await read())).not.toContain("from the route")
  })

  it("styles answers an element's computed values and the rules that set them", async () => {
    await call({ action: "navigate", url: pages.url("/tool") })
    const button = refOf(text(await call({ action: "snapshot" })), /"Add one"/)
    const css = text(await call({ action: "styles", ref: button, properties: ["display"] }))
    expect(css.split("\n").slice(0, 2)).toEqual([`button "Add one" [ref=${button}]`, "computed: display: inline-block"])
    expect(text(await call({ action: "styles" }))).toContain("ref")
  })

  it("bad arguments are errors naming the argument", async () => {
    const wrongType = await call({ action: "snapshot", limit: "many" })
    expect(wrongType.isError).toBe(true)
    expect(text(wrongType)).toMatch(/^invalid browser call: limit: /)
    const unknown = await call({ action: "snapshot", colour: "red" })
    expect(text(unknown)).toMatch(/colour: .*(not expected|unexpected|is unexpected)/i)
    const missing = await call({ action: "open" })
    expect(missing.isError).toBe(true)
    expect(text(missing)).toBe("action open needs url")
    const badAct = await call({ action: "act", request: { kind: "click" } })
    expect(badAct.isError).toBe(true)
    expect(text(badAct)).toMatch(/click: invalid: ref is missing/)
    // An unknown kind is said once, with the kinds there are.
    const badKind = text(await call({ action: "act", request: { kind: "fly" } }))
    expect(badKind).toMatch(/^invalid browser call: request\.kind: expected "click" \| "type" \| .*, got "fly"$/)
    expect(badKind.match(/fly/g)).toHaveLength(1)
    const noAction = await call({ url: "https://example.com" })
    expect(text(noAction)).toMatch(/action is missing/)
  }, 60_000)

  it("a sandboxed session drives the sandbox browser, and may not reach the host's without allowHostControl", async () => {
    const refused = await call({ action: "tabs", target: "host" }, sandboxed)
    expect(refused.isError).toBe(true)
    expect(text(refused)).toContain("agents.defaults.sandbox.browser.allowHostControl")
    const opened = await call({ action: "open", url: pages.url("/tool") }, sandboxed)
    expect(opened.isError, text(opened)).toBe(false)
    const sandboxTab = /opened tab (\S+)/.exec(text(opened))![1]!
    const sandboxTabs = text(await call({ action: "tabs" }, sandboxed))
    expect(sandboxTabs).toContain(`"profile": "sandbox"`)
    expect(sandboxTabs).toContain(sandboxTab)
    // The host's default profile does not have that tab: a profile of its own.
    const hostTabs = text(await call({ action: "tabs" }))
    expect(hostTabs).toContain(`"profile": "svc"`)
    expect(hostTabs).not.toContain(sandboxTab)
    const node = await call({ action: "tabs", target: "node" })
    expect(text(node)).toContain("no browser-capable node is connected")
    await call({ action: "stop" }, sandboxed)
  }, 90_000)
})
