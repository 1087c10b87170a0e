import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import {
  type AxNode,
  type AxTree,
  DEFAULT_SNAPSHOT_LIMIT,
  type FrameGap,
  frameGap,
  renderAriaSnapshot,
  yamlScalar
} from "../../../src/browser/snapshot/AriaFormat.js"
import { Cdp, makeCdp } from "../../../src/browser/cdp/Cdp.js"
import { CdpDiscovery, DiscoveryHttpClient } from "../../../src/browser/cdp/discovery.js"
import { type CdpEndpoint, rewriteWebSocketUrl } from "../../../src/browser/cdp/endpoints.js"
import { redactSecrets } from "../../../src/domain/redact.js"
import { dialTarget } from "../../../src/browser/cdp/socket/connection.js"
import { jpegSize, pngSize } from "../../../src/browser/cdp/png.js"
import { normaliseTabUrl } from "../../../src/browser/cdp/tabUrl.js"
import { buttonsPage, closedPort, type FakeCdpOptions, fakeCdp, fakePng, pageTarget } from "../../support/fakeCdp.js"

// --- AriaFormat ------------------------------------------------------------------------------------------

const v = (value: unknown) => ({ value })
const p = (name: string, value: unknown) => ({ name, value: { value } })

/** What Chromium 156 answers for a small form page (trimmed to the fields the renderer reads). */
const formPage: Array<AxNode> = [
  { nodeId: "1", ignored: false, role: v("RootWebArea"), name: v("T1"), properties: [p("url", "http://x/")], childIds: ["9"] },
  { nodeId: "9", parentId: "1", ignored: true, role: v("none"), childIds: ["12"] },
  { nodeId: "12", parentId: "9", ignored: true, role: v("none"), childIds: ["13", "2", "18", "19", "40"] },
  { nodeId: "13", parentId: "12", ignored: false, role: v("heading"), name: v("Hello"), properties: [p("level", 1)], childIds: ["23"] },
  { nodeId: "23", parentId: "13", ignored: false, role: v("StaticText"), name: v("Hello"), childIds: ["-1"] },
  { nodeId: "-1", parentId: "23", ignored: false, role: v("InlineTextBox"), name: v("Hello") },
  { nodeId: "2", parentId: "12", ignored: false, role: v("form"), name: v(""), childIds: ["14", "3", "16", "17"] },
  { nodeId: "14", parentId: "2", ignored: false, role: v("LabelText"), name: v(""), childIds: ["24"] },
  { nodeId: "24", parentId: "14", ignored: false, role: v("StaticText"), name: v("Name") },
  {
    nodeId: "3",
    parentId: "2",
    ignored: false,
    role: v("textbox"),
    name: v("Name"),
    value: v("bob"),
    properties: [p("focusable", true), p("editable", "plaintext")],
    childIds: ["15"]
  },
  { nodeId: "15", parentId: "3", ignored: false, role: v("generic"), name: v(""), childIds: ["25"] },
  { nodeId: "25", parentId: "15", ignored: false, role: v("StaticText"), name: v("bob") },
  { nodeId: "16", parentId: "2", ignored: true, role: v("none"), childIds: ["4", "26"] },
  { nodeId: "4", parentId: "16", ignored: false, role: v("checkbox"), name: v("Agree"), properties: [p("checked", "true")] },
  { nodeId: "26", parentId: "16", ignored: true, role: v("none") },
  { nodeId: "17", parentId: "2", ignored: false, role: v("button"), name: v("Go"), properties: [p("disabled", true)], childIds: ["27"] },
  { nodeId: "27", parentId: "17", ignored: false, role: v("StaticText"), name: v("Go") },
  { nodeId: "18", parentId: "12", ignored: false, role: v("link"), name: v("More"), properties: [p("url", "http://x/more")], childIds: ["28"] },
  { nodeId: "28", parentId: "18", ignored: false, role: v("StaticText"), name: v("More") },
  { nodeId: "19", parentId: "12", ignored: false, role: v("list"), name: v(""), childIds: ["20"] },
  { nodeId: "20", parentId: "19", ignored: false, role: v("listitem"), name: v(""), properties: [p("level", 1)], childIds: ["29", "30"] },
  { nodeId: "29", parentId: "20", ignored: false, role: v("ListMarker"), name: v("• ") },
  { nodeId: "30", parentId: "20", ignored: false, role: v("StaticText"), name: v("one") },
  { nodeId: "40", parentId: "12", ignored: false, role: v("paragraph"), name: v(""), childIds: ["41", "44", "43"] },
  { nodeId: "41", parentId: "40", ignored: false, role: v("StaticText"), name: v("Hi ") },
  { nodeId: "44", parentId: "40", ignored: false, role: v("strong"), name: v(""), childIds: ["42"] },
  { nodeId: "42", parentId: "44", ignored: false, role: v("StaticText"), name: v("bold") },
  { nodeId: "43", parentId: "40", ignored: false, role: v("StaticText"), name: v(" there") }
]

describe("AriaFormat", () => {
  it("renders Chromium's tree like Playwright's aria snapshot: roles, names, states, values, no refs", () => {
    const r = renderAriaSnapshot({ nodes: formPage })
    expect(r.text).toBe(
      [
        `- heading "Hello" [level=1]`,
        `- form:`,
        `  - text: Name`,
        `  - textbox "Name": bob`,
        `  - checkbox "Agree" [checked]`,
        `  - button "Go" [disabled]`,
        `- link "More":`,
        `  - /url: http://x/more`,
        `- list:`,
        `  - listitem: one`,
        `- paragraph: Hi bold there`
      ].join("\n")
    )
    expect(r).toMatchObject({ nodes: 10, total: 10, truncated: false })
  })

  it("keeps a named generic, drops ignored subtrees, marks states (mixed, pressed, unchecked, collapsed), masks passwords", () => {
    const nodes: Array<AxNode> = [
      { nodeId: "r", ignored: false, role: v("RootWebArea"), childIds: ["g", "h", "c", "t"] },
      { nodeId: "g", parentId: "r", ignored: false, role: v("generic"), name: v("Card"), childIds: [] },
      { nodeId: "h", parentId: "r", ignored: true, role: v("none"), childIds: ["hs"] },
      { nodeId: "hs", parentId: "h", ignored: true, role: v("StaticText"), name: v("hidden") },
      { nodeId: "c", parentId: "r", ignored: false, role: v("checkbox"), name: v("Some"), properties: [p("checked", "mixed")] },
      { nodeId: "t", parentId: "r", ignored: false, role: v("button"), name: v("Bold"), properties: [p("pressed", "true"), p("expanded", true)] },
      { nodeId: "u", parentId: "r", ignored: false, role: v("checkbox"), name: v("None"), properties: [p("checked", "false")] },
      { nodeId: "m", parentId: "r", ignored: false, role: v("button"), name: v("Menu"), properties: [p("expanded", false)] },
      // Chromium's password value: a bullet per character; shown as the fixed mask, which hides the length.
      { nodeId: "w", parentId: "r", ignored: false, role: v("textbox"), name: v("Password"), value: v("\u2022".repeat(15)) }
    ]
    nodes[0] = { ...nodes[0]!, childIds: ["g", "h", "c", "t", "u", "m", "w"] }
    expect(renderAriaSnapshot({ nodes }).text).toBe(
      [
        `- generic "Card"`,
        `- checkbox "Some" [checked=mixed]`,
        `- button "Bold" [expanded] [pressed]`,
        `- checkbox "None" [unchecked]`,
        `- button "Menu" [collapsed]`,
        `- textbox "Password": ••••••••`
      ].join("\n")
    )
  })

  it("truncates at the limit, says so on a final line with how to raise it, and still counts everything", () => {
    const r = renderAriaSnapshot({ nodes: buttonsPage(10) }, { limit: 3 })
    const lines = r.text.split("\n")
    expect(lines).toHaveLength(4)
    expect(lines.slice(0, 3)).toEqual([`- button "Button 0"`, `- button "Button 1"`, `- button "Button 2"`])
    expect(lines[3]).toMatch(/^# truncated: showed 3 of 10 nodes; raise the limit with --limit <n> \(--limit 10 shows all\)$/)
    expect(r).toMatchObject({ nodes: 3, total: 10, truncated: true })
    expect(renderAriaSnapshot({ nodes: buttonsPage(10) }, { limit: 10 }).truncated).toBe(false)
  })

  it("defaults the limit to 2000 nodes", () => {
    const r = renderAriaSnapshot({ nodes: buttonsPage(DEFAULT_SNAPSHOT_LIMIT + 5) })
    expect(DEFAULT_SNAPSHOT_LIMIT).toBe(2000)
    expect(r).toMatchObject({ nodes: 2000, total: 2005, truncated: true })
  })

  it("inlines captured iframe documents under their iframe line and marks the ones it could not reach", () => {
    const frameNodes: Array<AxNode> = [
      { nodeId: "1", ignored: false, role: v("RootWebArea"), name: v("inner"), childIds: ["2"] },
      { nodeId: "2", parentId: "1", ignored: false, role: v("button"), name: v("Frame btn") }
    ]
    const nodes: Array<AxNode> = [
      { nodeId: "1", ignored: false, role: v("RootWebArea"), childIds: ["2", "3"] },
      { nodeId: "2", parentId: "1", ignored: false, role: v("Iframe"), name: v("same"), backendDOMNodeId: 22 },
      { nodeId: "3", parentId: "1", ignored: false, role: v("Iframe"), name: v("far"), backendDOMNodeId: 33 }
    ]
    const frames = new Map<number, AxTree | FrameGap>([
      [22, { nodes: frameNodes }],
      [33, frameGap("frame is not reachable")]
    ])
    expect(renderAriaSnapshot({ nodes, frames }).text).toBe(
      [`- iframe "same":`, `  - button "Frame btn"`, `- iframe "far" [not captured: frame is not reachable]`].join("\n")
    )
    // Without frame data the iframe is still listed.
    expect(renderAriaSnapshot({ nodes }).text).toBe(`- iframe "same"\n- iframe "far"`)
  })

  it("survives a very deep tree without overflowing the stack", () => {
    const depth = 20_000
    const nodes: Array<AxNode> = Array.from({ length: depth }, (_, i) => ({
      nodeId: `n${i}`,
      ...(i > 0 ? { parentId: `n${i - 1}` } : {}),
      ignored: false,
      role: v(i % 2 === 0 ? "group" : "generic"),
      name: v(""),
      childIds: i + 1 < depth ? [`n${i + 1}`] : []
    }))
    const r = renderAriaSnapshot({ nodes }, { limit: 100_000 })
    expect(r.nodes).toBe(depth / 2)
  })

  it("quotes YAML scalars only when plain text would be misread", () => {
    expect(yamlScalar("hello world")).toBe("hello world")
    expect(yamlScalar("true")).toBe(`"true"`)
    expect(yamlScalar("42")).toBe(`"42"`)
    expect(yamlScalar("- item")).toBe(`"- item"`)
    expect(yamlScalar("a: b")).toBe(`"a: b"`)
    expect(yamlScalar("")).toBe(`""`)
    expect(yamlScalar(`say "hi"`)).toBe(`say "hi"`)
  })
})

// --- Pure helpers ----------------------------------------------------------------------------------------

describe("Cdp helpers", () => {
  it("normalises tab URLs and refuses what a tab should not open", () => {
    expect(normaliseTabUrl("https://example.com/a?b=1")).toBe("https://example.com/a?b=1")
    expect(normaliseTabUrl("example.com")).toBe("https://example.com/")
    expect(normaliseTabUrl("example.com:8443/x")).toBe("https://example.com:8443/x")
    expect(normaliseTabUrl("localhost:3000/app")).toBe("http://localhost:3000/app")
    expect(normaliseTabUrl("127.0.0.1:8080")).toBe("http://127.0.0.1:8080/")
    expect(normaliseTabUrl("about:blank")).toBe("about:blank")
    expect(normaliseTabUrl("data:text/html,<h1>x</h1>")).toBe("data:text/html,<h1>x</h1>")
    // Schemes are the navigation policy's to refuse (Tabs.open asks it first): here they are only read.
    expect(normaliseTabUrl("file:///tmp/x.html")).toBe("file:///tmp/x.html")
    for (const bad of ["", "   ", "not a url", "http://"]) {
      const r = normaliseTabUrl(bad)
      expect(r, bad).toMatchObject({ _tag: "InvalidRequest" })
      expect((r as { message: string }).message, bad).toContain("https://example.com/page")
    }
  })

  it("points an advertised localhost websocket back at the endpoint's host and keeps its query", () => {
    expect(rewriteWebSocketUrl("https://cdp.example.net/b?token=t", "ws://127.0.0.1:9222/devtools/browser/x")).toBe(
      "wss://cdp.example.net/devtools/browser/x?token=t"
    )
    expect(rewriteWebSocketUrl("http://127.0.0.1:9222", "ws://localhost:9222/devtools/browser/x")).toBe(
      "ws://localhost:9222/devtools/browser/x"
    )
    expect(rewriteWebSocketUrl("http://10.0.0.5:9222", "ws://remote.example:9222/devtools/browser/x")).toBe(
      "ws://remote.example:9222/devtools/browser/x"
    )
  })

  it("carries an endpoint's credentials to its own websocket, never to another host", () => {
    expect(rewriteWebSocketUrl("http://u:p@127.0.0.1:9", "ws://127.0.0.1:9/devtools/browser/x")).toBe(
      "ws://u:p@127.0.0.1:9/devtools/browser/x"
    )
    expect(rewriteWebSocketUrl("https://u:p@cdp.example.net/b?token=t", "ws://localhost:9222/devtools/browser/x")).toBe(
      "wss://u:p@cdp.example.net/devtools/browser/x?token=t"
    )
    expect(rewriteWebSocketUrl("http://u:p@10.0.0.5:9222", "ws://remote.example:9222/devtools/browser/x")).toBe(
      "ws://remote.example:9222/devtools/browser/x"
    )
    expect(rewriteWebSocketUrl("http://u:p@127.0.0.1:9", "ws://127.0.0.1:10/devtools/browser/x")).toBe(
      "ws://127.0.0.1:10/devtools/browser/x"
    )
  })

  it("dials a websocket without credentials in its URL, sending them decoded as HTTP Basic", () => {
    const basic = (userPass: string) => `Basic ${Buffer.from(userPass, "utf8").toString("base64")}`
    expect(dialTarget("ws://u:p%40ss%3Aw%25rd%23%C3%A9@127.0.0.1:9/devtools/browser/x?token=t")).toEqual({
      url: "ws://127.0.0.1:9/devtools/browser/x?token=t",
      headers: { authorization: basic("u:p@ss:w%rd#é") }
    })
    // A colon and a non-ASCII letter left raw in the password, as people write them.
    expect(dialTarget("wss://u:a:b\u00e9@h.example/d").headers).toEqual({ authorization: basic("u:a:bé") })
    expect(dialTarget("ws://127.0.0.1:9/devtools/browser/x")).toEqual({ url: "ws://127.0.0.1:9/devtools/browser/x", headers: {} })
  })

  it("hides credentials and tokens in URLs meant for messages", () => {
    expect(redactSecrets("wss://user:pw@h.example/x?token=abc&mode=1")).toBe("wss://user:***@h.example/x?token=***&mode=1")
  })

  it("reads JPEG dimensions from the first start-of-frame segment, past others and fill bytes", () => {
    const jpeg = Uint8Array.from([
      0xff, 0xd8, // start of image
      0xff, 0xe0, 0x00, 0x04, 0x4a, 0x46, // APP0, 2 bytes of data
      0xff, 0xc4, 0x00, 0x03, 0x00, // DHT: a marker in the SOF range that is not one
      0xff, 0xff, // a fill byte
      0xff, 0xc2, 0x00, 0x11, 0x08, 0x02, 0x9b, 0x05, 0x00, 0x03 // SOF2: precision 8, height 667, width 1280
    ])
    expect(jpegSize(jpeg)).toEqual({ width: 1280, height: 667 })
    expect(jpegSize(jpeg.subarray(0, 20))).toBeUndefined()
    expect(jpegSize(fakePng(7, 5))).toBeUndefined()
  })

  it("reads PNG dimensions from the IHDR chunk", () => {
    expect(pngSize(fakePng(7, 5))).toEqual({ width: 7, height: 5 })
    expect(pngSize(new Uint8Array([1, 2, 3]))).toBeUndefined()
  })
})

// --- Cdp against the fake endpoint -------------------------------------------------------------------------

const endpoint = (url: string, overrides: Partial<CdpEndpoint> = {}): CdpEndpoint => ({
  url,
  timeoutMs: 1_000,
  handshakeTimeoutMs: 1_000,
  commandTimeoutMs: 1_000,
  ...overrides
})

/** A fresh fake and a fresh Cdp (connection reuse on), both closed with the test's scope. */
const setup = (options: FakeCdpOptions = {}) =>
  Effect.gen(function*() {
    const fake = yield* fakeCdp(options)
    const cdp = yield* makeCdp()
    return { fake, cdp, ep: endpoint(fake.httpUrl) }
  })

describe("Cdp (fake endpoint)", () => {
  it.scopedLive("lists page targets only, in the browser's order", () =>
    Effect.gen(function*() {
      const { cdp, ep } = yield* setup({
        targets: [
          pageTarget("P2", "https://b.example/", "B"),
          { targetId: "SW", type: "service_worker", title: "sw", url: "https://b.example/sw.js" },
          pageTarget("P1", "https://a.example/", "A")
        ]
      })
      const tabs = yield* cdp.listTabs(ep)
      expect(tabs).toEqual([
        { targetId: "P2", title: "B", url: "https://b.example/", type: "page" },
        { targetId: "P1", title: "A", url: "https://a.example/", type: "page" }
      ])
    }))

  it.scopedLive("reports the version and the websocket to use", () =>
    Effect.gen(function*() {
      const { cdp, ep, fake } = yield* setup()
      expect(yield* cdp.version(ep)).toEqual({
        browser: "FakeChrome/1.0",
        protocolVersion: "1.3",
        webSocketDebuggerUrl: fake.wsUrl
      })
    }))

  it.scopedLive("works through a path prefix and token (a proxy in front of a remote browser)", () =>
    Effect.gen(function*() {
      const { cdp, ep, fake } = yield* setup({ pathPrefix: "/browser/abc", token: "s3cret-token" })
      expect(ep.url).toContain("/browser/abc?token=")
      expect((yield* cdp.listTabs(ep)).map((t) => t.targetId)).toEqual(["PAGE-1"])
      // The same browser reached directly by its websocket.
      const direct = endpoint(fake.wsUrl)
      expect((yield* cdp.listTabs(direct)).map((t) => t.targetId)).toEqual(["PAGE-1"])
      expect((yield* cdp.version(direct)).browser).toBe("FakeChrome/1.0")
    }))

  it.scopedLive("an endpoint nobody listens on is BrowserUnavailable saying how to start it", () =>
    Effect.gen(function*() {
      const cdp = yield* makeCdp()
      const port = yield* Effect.promise(() => closedPort())
      const err = yield* Effect.flip(cdp.listTabs(endpoint(`http://127.0.0.1:${port}/?token=hush-hush`)))
      expect(err._tag).toBe("BrowserUnavailable")
      expect(err.message).toContain(`no browser answers CDP at http://127.0.0.1:${port}/`)
      expect(err.message).toContain("connection refused")
      expect(err.message).toContain("svc browser start")
      expect(err.message).toContain("cdpUrl")
      expect(err.message).not.toContain("hush-hush")
    }))

  it.scopedLive("an HTTP endpoint that never answers fails within browser.remoteCdpTimeoutMs", () =>
    Effect.gen(function*() {
      const { cdp, fake } = yield* setup()
      fake.behaviour.httpHang = true
      const started = Date.now()
      const err = yield* Effect.flip(cdp.listTabs(endpoint(fake.httpUrl, { timeoutMs: 200 })))
      expect(Date.now() - started).toBeLessThan(1_000)
      expect(err._tag).toBe("BrowserUnavailable")
      expect(err.message).toContain("did not answer /json/version within 200 ms (browser.remoteCdpTimeoutMs)")
    }))

  it.scopedLive("an HTTP error status says the URL is not a CDP endpoint", () =>
    Effect.gen(function*() {
      const { cdp, ep, fake } = yield* setup()
      fake.behaviour.httpStatus = 404
      const err = yield* Effect.flip(cdp.version(ep))
      expect(err.message).toContain("answered HTTP 404 for /json/version")
    }))

  it.scopedLive("a 401 or 403 says authentication failed, naming what to check, and hides the credentials", () =>
    Effect.gen(function*() {
      const { cdp, fake } = yield* setup()
      const withPassword = endpoint(fake.httpUrl.replace("http://", "http://agent:hush-hush@"))
      for (const status of [401, 403]) {
        fake.behaviour.httpStatus = status
        const refused = yield* Effect.flip(cdp.listTabs(withPassword))
        expect(refused._tag).toBe("BrowserUnavailable")
        expect(refused.message).toMatch(new RegExp(`^authentication failed: .*answered HTTP ${status}`))
        expect(refused.message).toContain("Check the user and password in cdpUrl")
        expect(refused.message).toContain("agent:***@")
        expect(refused.message).not.toContain("hush-hush")
      }
      const without = yield* Effect.flip(cdp.version(endpoint(fake.httpUrl)))
      expect(without.message).toContain("Give the credentials in cdpUrl")
    }))

  it.scopedLive("an answer that is not JSON, or has no websocket, says the URL is not a usable CDP endpoint", () =>
    Effect.gen(function*() {
      const { cdp, ep, fake } = yield* setup({ token: "hush-hush" })
      fake.behaviour.versionBody = "<html>hello</html>"
      const notJson = yield* Effect.flip(cdp.version(ep))
      expect(notJson.message).toContain("answered /json/version with something that is not JSON")
      fake.behaviour.versionBody = JSON.stringify({ Browser: "Locked/1" })
      const noWs = yield* Effect.flip(cdp.listTabs(ep))
      expect(noWs.message).toContain("/json/version has no webSocketDebuggerUrl")
      for (const e of [notJson, noWs]) {
        expect(e._tag).toBe("BrowserUnavailable")
        expect(e.message).not.toContain("hush-hush")
      }
    }))

  it.scopedLive("the launcher's probe: a loopback port's version, or CdpProbeFailed when nothing answers", () =>
    Effect.gen(function*() {
      const fake = yield* fakeCdp()
      const context = yield* Layer.build(CdpDiscovery.Default.pipe(Layer.provide(DiscoveryHttpClient)))
      const discovery = Context.get(context, CdpDiscovery)
      expect(yield* discovery.probe(fake.port)).toEqual({
        browser: "FakeChrome/1.0",
        protocolVersion: "1.3",
        webSocketDebuggerUrl: fake.wsUrl
      })
      const port = yield* Effect.promise(() => closedPort())
      expect(yield* Effect.flip(discovery.probe(port))).toMatchObject({ _tag: "CdpProbeFailed" })
      fake.behaviour.httpHang = true
      const started = Date.now()
      expect(yield* Effect.flip(discovery.probe(fake.port, 150))).toMatchObject({ _tag: "CdpProbeFailed" })
      expect(Date.now() - started).toBeLessThan(1_000)
    }))

  it.scopedLive("a websocket handshake that never finishes fails within browser.remoteCdpHandshakeTimeoutMs", () =>
    Effect.gen(function*() {
      const { cdp, fake } = yield* setup()
      fake.behaviour.upgradeHang = true
      const started = Date.now()
      const err = yield* Effect.flip(cdp.listTabs(endpoint(fake.httpUrl, { handshakeTimeoutMs: 200 })))
      expect(Date.now() - started).toBeLessThan(1_000)
      expect(err.message).toContain("did not finish within 200 ms (browser.remoteCdpHandshakeTimeoutMs)")
      // A failed connection is not remembered: once the browser answers, the next call works.
      fake.behaviour.upgradeHang = false
      expect(yield* cdp.listTabs(endpoint(fake.httpUrl, { handshakeTimeoutMs: 200 }))).toHaveLength(1)
    }))

  it.scopedLive("a command the browser never answers fails within the command timeout", () =>
    Effect.gen(function*() {
      const { cdp, fake } = yield* setup()
      fake.behaviour.hang.add("Target.getTargets")
      const started = Date.now()
      const err = yield* Effect.flip(cdp.listTabs(endpoint(fake.httpUrl, { commandTimeoutMs: 150 })))
      expect(Date.now() - started).toBeLessThan(1_000)
      expect(err._tag).toBe("BrowserUnavailable")
      expect(err.message).toContain("did not answer Target.getTargets within 150 ms")
    }))

  it.scopedLive("an unknown targetId is NotFound pointing at `svc browser tabs`, for every tab method", () =>
    Effect.gen(function*() {
      const { cdp, ep } = yield* setup()
      const failures = [
        cdp.activateTab(ep, "NOPE"),
        Effect.asVoid(cdp.closeTab(ep, "NOPE")),
        cdp.ariaSnapshot(ep, "NOPE", {}),
        cdp.screenshot(ep, "NOPE", {})
      ]
      for (const f of failures) {
        const err = yield* Effect.flip(f)
        expect(err._tag).toBe("NotFound")
        expect(err.message).toContain(`"NOPE"`)
        expect(err.message).toContain("svc browser tabs")
      }
    }))

  it.scopedLive("a targetId that is not a tab is NotFound", () =>
    Effect.gen(function*() {
      const { cdp, ep } = yield* setup({
        targets: [pageTarget("P1"), { targetId: "SW", type: "service_worker", title: "", url: "https://x/sw.js" }]
      })
      const err = yield* Effect.flip(cdp.closeTab(ep, "SW"))
      expect(err).toMatchObject({ _tag: "NotFound" })
      expect(err.message).toContain("is a service_worker, not a tab")
    }))

  it.scopedLive("a socket dropped mid-call is BrowserUnavailable, and the next call reconnects", () =>
    Effect.gen(function*() {
      const { cdp, ep, fake } = yield* setup()
      expect(yield* cdp.listTabs(ep)).toHaveLength(1)
      fake.behaviour.dropOn.add("Target.getTargets")
      const err = yield* Effect.flip(cdp.listTabs(ep))
      expect(err._tag).toBe("BrowserUnavailable")
      expect(err.message).toContain("closed while sending Target.getTargets")
      fake.behaviour.dropOn.clear()
      expect(yield* cdp.listTabs(ep)).toHaveLength(1)
      expect(fake.connections()).toBe(2)
    }))

  it.scopedLive("a protocol error that is not about the target is BrowserUnavailable naming the method", () =>
    Effect.gen(function*() {
      const { cdp, ep, fake } = yield* setup()
      fake.behaviour.errors["Target.createTarget"] = { code: -32000, message: "Failed to open new tab" }
      const err = yield* Effect.flip(cdp.openTab(ep, "https://example.com"))
      expect(err._tag).toBe("BrowserUnavailable")
      expect(err.message).toContain("refused Target.createTarget: Failed to open new tab")
    }))

  it.scopedLive("reuses one browser websocket across calls and closes it with its scope", () =>
    Effect.gen(function*() {
      const fake = yield* fakeCdp()
      const ep = endpoint(fake.httpUrl)
      const scope = yield* Scope.make()
      const cdp = yield* Scope.extend(makeCdp(), scope)
      for (let i = 0; i < 5; i++) yield* cdp.listTabs(ep)
      expect(fake.connections()).toBe(1)
      expect(fake.openSockets()).toBe(1)
      yield* Scope.close(scope, Exit.void)
      yield* Effect.sleep("50 millis")
      expect(fake.openSockets()).toBe(0)
    }))

  it.scopedLive("without reuse every call opens and closes its own websocket", () =>
    Effect.gen(function*() {
      const fake = yield* fakeCdp()
      const ep = endpoint(fake.httpUrl)
      const cdp = yield* makeCdp({ reuseConnections: false })
      for (let i = 0; i < 3; i++) yield* cdp.listTabs(ep)
      expect(fake.connections()).toBe(3)
      yield* Effect.sleep("50 millis")
      expect(fake.openSockets()).toBe(0)
    }))

  it.scopedLive("an idle connection closes after its time to live", () =>
    Effect.gen(function*() {
      const fake = yield* fakeCdp()
      const cdp = yield* makeCdp({ idleTimeToLive: "100 millis" })
      yield* cdp.listTabs(endpoint(fake.httpUrl))
      expect(fake.openSockets()).toBe(1)
      yield* Effect.sleep("300 millis")
      expect(fake.openSockets()).toBe(0)
    }))

  it.scopedLive("opens a tab (bare host normalised to https) and refuses URLs it cannot open", () =>
    Effect.gen(function*() {
      const { cdp, ep, fake } = yield* setup()
      const tab = yield* cdp.openTab(ep, "example.com/x")
      expect(tab).toMatchObject({ url: "https://example.com/x", type: "page" })
      expect(fake.targets[0]!.targetId).toBe(tab.targetId)
      const err = yield* Effect.flip(cdp.openTab(ep, "not a url"))
      expect(err._tag).toBe("InvalidRequest")
    }))

  it.scopedLive("activates and closes tabs", () =>
    Effect.gen(function*() {
      const { cdp, ep } = yield* setup({ targets: [pageTarget("A"), pageTarget("B")] })
      yield* cdp.activateTab(ep, "B")
      expect((yield* cdp.listTabs(ep)).map((t) => t.targetId)).toEqual(["B", "A"])
      yield* cdp.closeTab(ep, "B")
      expect((yield* cdp.listTabs(ep)).map((t) => t.targetId)).toEqual(["A"])
    }))

  it.scopedLive("a close the browser drops is sent again until the tab goes; a tab that never goes is a Conflict, not closed", () =>
    Effect.gen(function*() {
      const { cdp, ep } = yield* setup({ targets: [pageTarget("A"), { ...pageTarget("B"), closesDropped: 2 }, { ...pageTarget("C"), closesDropped: Infinity }] })
      const started = Date.now()
      const left = yield* cdp.closeTab(ep, "B")
      // Asked twice more, half a second apart; the tabs left come back.
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_000)
      expect(left?.map((t) => t.targetId)).toEqual(["A", "C"])
      expect((yield* cdp.listTabs(ep)).map((t) => t.targetId)).toEqual(["A", "C"])
      const err = yield* Effect.flip(cdp.closeTab(ep, "C", 700))
      expect(err._tag).toBe("Conflict")
      expect(err.message).toBe("tab C is still open 0.7s after it was asked to close (its page may be stuck in an unload " +
        "handler); `svc browser tabs` shows it, and `svc browser close C` asks again")
      expect((yield* cdp.listTabs(ep)).map((t) => t.targetId)).toEqual(["A", "C"])
    }))

  it.scopedLive("snapshots through a session it detaches afterwards, with url, title and truncation", () =>
    Effect.gen(function*() {
      const { cdp, ep, fake } = yield* setup()
      fake.targets[0]!.axNodes = formPage
      const full = yield* cdp.ariaSnapshot(ep, "PAGE-1", {})
      expect(full).toMatchObject({ url: "http://x/", title: "T1", nodes: 10, truncated: false })
      expect(full.snapshot).toContain(`- textbox "Name": bob`)
      expect(fake.openSessions()).toBe(0)

      fake.targets[0]!.axNodes = buttonsPage(50)
      const cut = yield* cdp.ariaSnapshot(ep, "PAGE-1", { limit: 10 })
      expect(cut).toMatchObject({ nodes: 10, truncated: true, title: "Buttons" })
      expect(cut.snapshot.split("\n").at(-1)).toContain("showed 10 of 50 nodes")
      expect(cut.snapshot.split("\n").at(-1)).toContain("--limit")
      expect(fake.openSessions()).toBe(0)
    }))

  it.scopedLive("a socket dropped during a snapshot is BrowserUnavailable, not a hang", () =>
    Effect.gen(function*() {
      const { cdp, ep, fake } = yield* setup()
      fake.behaviour.dropOn.add("Accessibility.getFullAXTree")
      const err = yield* Effect.flip(cdp.ariaSnapshot(ep, "PAGE-1", {}))
      expect(err._tag).toBe("BrowserUnavailable")
      expect(err.message).toContain("Accessibility.getFullAXTree")
    }))

  it.scopedLive("an iframe the browser cannot describe is listed as not captured", () =>
    Effect.gen(function*() {
      const { cdp, ep, fake } = yield* setup()
      fake.targets[0]!.axNodes = [
        { nodeId: "1", ignored: false, role: v("RootWebArea"), name: v("F"), childIds: ["2"] },
        { nodeId: "2", parentId: "1", ignored: false, role: v("Iframe"), name: v("ad"), backendDOMNodeId: 7 }
      ]
      const r = yield* cdp.ariaSnapshot(ep, "PAGE-1", {})
      expect(r.snapshot).toBe(`- iframe "ad" [not captured: no frame document]`)
    }))

  it.scopedLive("inlines same-process frames from the page's session and out-of-process ones from their target", () =>
    Effect.gen(function*() {
      const { cdp, ep, fake } = yield* setup()
      const inner = (label: string): Array<AxNode> => [
        { nodeId: "1", ignored: false, role: v("RootWebArea"), name: v(label), childIds: ["2"] },
        { nodeId: "2", parentId: "1", ignored: false, role: v("button"), name: v(`${label} button`) }
      ]
      Object.assign(fake.targets[0]!, {
        axNodes: [
          { nodeId: "1", ignored: false, role: v("RootWebArea"), name: v("F"), childIds: ["2", "3", "4"] },
          { nodeId: "2", parentId: "1", ignored: false, role: v("Iframe"), name: v("local"), backendDOMNodeId: 21 },
          { nodeId: "3", parentId: "1", ignored: false, role: v("Iframe"), name: v("remote"), backendDOMNodeId: 31 },
          { nodeId: "4", parentId: "1", ignored: false, role: v("Iframe"), name: v("gone"), backendDOMNodeId: 41 }
        ],
        iframes: { 21: "FRAME-L", 31: "FRAME-R", 41: "FRAME-GONE" },
        localFrames: { "FRAME-L": inner("Local") }
      })
      fake.targets.push({ targetId: "FRAME-R", type: "iframe", title: "", url: "https://other.example/", axNodes: inner("Remote") })
      const r = yield* cdp.ariaSnapshot(ep, "PAGE-1", {})
      expect(r.snapshot).toBe(
        [
          `- iframe "local":`,
          `  - button "Local button"`,
          `- iframe "remote":`,
          `  - button "Remote button"`,
          `- iframe "gone" [not captured: frame is not a reachable target]`
        ].join("\n")
      )
      expect(r.nodes).toBe(5)
      expect(fake.openSessions()).toBe(0)
    }))

  it.scopedLive("screenshots the viewport, or the whole page clipped to its content size", () =>
    Effect.gen(function*() {
      const { cdp, ep, fake } = yield* setup()
      fake.targets[0]!.contentSize = { width: 800, height: 2400.5 }
      const vp = yield* cdp.screenshot(ep, "PAGE-1", {})
      expect(vp).toMatchObject({ width: 800, height: 600 })
      // Encoded for speed (lossless all the same).
      expect(fake.calls.filter((c) => c.method === "Page.captureScreenshot").at(-1)!.params).toMatchObject({ format: "png", optimizeForSpeed: true })
      expect(pngSize(vp.image)).toEqual({ width: 800, height: 600 })
      const full = yield* cdp.screenshot(ep, "PAGE-1", { fullPage: true })
      expect(full).toMatchObject({ width: 800, height: 2401 })
      const call = fake.calls.filter((c) => c.method === "Page.captureScreenshot").at(-1)!
      expect(call.params).toMatchObject({ optimizeForSpeed: true, captureBeyondViewport: true, clip: { x: 0, y: 0, width: 800, height: 2401 } })
      expect(fake.openSessions()).toBe(0)
    }))

  it.scopedLive("a tab the browser has not painted yet (just started) is brought to front and captured again", () =>
    Effect.gen(function*() {
      const { cdp, ep, fake } = yield* setup()
      fake.behaviour.errorsOnce["Page.captureScreenshot"] = { code: -32000, message: "Unable to capture screenshot" }
      const before = fake.calls.length
      const shot = yield* cdp.screenshot(ep, "PAGE-1", { allTabsListed: true })
      expect(shot).toMatchObject({ width: 800, height: 600 })
      const methods = fake.calls.slice(before).map((c) => c.method).filter((m) => m.startsWith("Page."))
      expect(methods).toEqual(["Page.captureScreenshot", "Page.bringToFront", "Page.captureScreenshot"])
      // A tab that takes a while to paint (a loaded machine) is captured once it has.
      fake.behaviour.errorsOnce["Page.captureScreenshot"] = { code: -32000, message: "Unable to capture screenshot", times: 4 }
      const slow = fake.calls.length
      expect(yield* cdp.screenshot(ep, "PAGE-1", { allTabsListed: true })).toMatchObject({ width: 800, height: 600 })
      expect(fake.calls.slice(slow).map((c) => c.method).filter((m) => m.startsWith("Page."))).toEqual(
        ["Page.captureScreenshot", "Page.bringToFront", ...Array(4).fill("Page.captureScreenshot")]
      )
      // Any other refusal is not tried again.
      fake.behaviour.errorsOnce["Page.captureScreenshot"] = { code: -32000, message: "Target crashed" }
      const err = yield* Effect.flip(cdp.screenshot(ep, "PAGE-1", { allTabsListed: true }))
      expect(err.message).toContain("Target crashed")
    }))

  it.scopedLive("a screenshot that is not a PNG is BrowserUnavailable", () =>
    Effect.gen(function*() {
      const { cdp, ep, fake } = yield* setup()
      fake.behaviour.screenshotData = Buffer.from("GIF89a....").toString("base64")
      const err = yield* Effect.flip(cdp.screenshot(ep, "PAGE-1", {}))
      expect(err.message).toContain("not a PNG")
    }))

  it.scopedLive("is a service: Cdp.Default and Cdp.layer provide it", () =>
    Effect.gen(function*() {
      const fake = yield* fakeCdp()
      const ep = endpoint(fake.httpUrl)
      const viaDefault = yield* Effect.flatMap(Cdp, (cdp) => cdp.listTabs(ep)).pipe(
        Effect.provide(Cdp.Default.pipe(Layer.provide(DiscoveryHttpClient)))
      )
      expect(viaDefault).toHaveLength(1)
      const viaLayer = yield* Effect.flatMap(Cdp, (cdp) => cdp.listTabs(ep)).pipe(
        Effect.provide(Cdp.layer({ reuseConnections: false }).pipe(Layer.provide(DiscoveryHttpClient)))
      )
      expect(viaLayer).toHaveLength(1)
      yield* Effect.sleep("50 millis")
      expect(fake.openSockets()).toBe(0)
      expect(Layer.isLayer(Cdp.Default)).toBe(true)
    }))
})
