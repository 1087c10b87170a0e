import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { chooseBase } from "../../src/browser/inspect/SafePaths.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  baseEnv,
  freeCdpPort,
  freeGatewayPort,
  type Gateway,
  makeStateDir,
  pidAlive,
  servePages,
  startGateway,
  SVC_BIN,
  waitUntil
} from "../support/gateway.js"

// `svc mcp` driven by the official MCP SDK client over stdio, as an agent's MCP client drives it: the real
// bin/svc, a gateway it brings up itself (or the one already running), real Chromium, pages served here.

const form = `<!doctype html><title>Form</title>
<p id="status">idle</p>
<button onclick="document.getElementById('status').textContent = 'clicked ' + (++window.n)">Increment counter</button>
<a href="/other">Other page</a>
<script>window.n = 0</script>`
const other = `<!doctype html><title>Other</title><h1>Other page</h1><button>Lonely</button>`
// Its console.log is on the page's line 4, as a person counts lines (and as DevTools shows them).
const logs = `<!doctype html>
<title>Logs</title>
<script>
console.log("hello from line 4")
console.debug("a debug detail")
setTimeout(() => { console.warn("after the throw") }, 20)
throw new Error("boom in the page")
</script>`
const upload = `<!doctype html><title>Upload</title>
<input type="file" id="f" hidden onchange="document.getElementById('out').textContent = [...this.files].map((f) => f.name + ':' + f.size).join(',')">
<button onclick="document.getElementById('f').click()">Choose a file</button>
<button onclick="document.getElementById('out').textContent = 'elsewhere'">Something else</button>
<p id="out">none</p>`
const dialogs = `<!doctype html><title>Dialogs</title>
<button onclick="document.getElementById('said').textContent = 'confirm ' + confirm('Delete it?')">Delete</button>
<button onclick="document.getElementById('said').textContent = 'prompt ' + prompt('Your name?', 'nobody')">Name</button>
<button onclick="setTimeout(() => document.getElementById('said').textContent = 'later ' + confirm('Later?'), 300)">Later</button>
<p id="said">nothing</p>`
const tall = `<!doctype html><title>Tall</title><style>body { margin: 0 }</style><div style="height: 4000px">tall</div>`
// An area that takes dropped text and says what it got.
const dropZone = `<!doctype html><title>Zone</title><div id="zone" role="region" aria-label="Drop area" style="height: 80px">here</div>
<a href="https://example.com/dragged" role="button" draggable="true">Drag me</a>
<script>
  const z = document.getElementById("zone")
  z.addEventListener("dragover", (e) => e.preventDefault())
  z.addEventListener("drop", (e) => { e.preventDefault(); z.textContent = "got " + e.dataTransfer.getData("text/uri-list") })
</script>`
// A pad that keeps the mouse events it sees (type, x, y, buttons held), and a slider.
const pad = `<!doctype html><title>Pad</title><style>body { margin: 0 }</style>
<div id="pad" style="width: 400px; height: 200px"></div>
<input id="level" type="range" min="0" max="100" value="0" style="position: absolute; left: 0; top: 250px; width: 300px; margin: 0">
<script>
  window.seen = []
  for (const type of ["mousedown", "mouseup", "click"]) {
    document.getElementById("pad").addEventListener(type, (e) => seen.push([type, e.clientX, e.clientY, e.buttons]))
  }
  document.getElementById("pad").addEventListener("mousemove", (e) => { window.last = [e.clientX, e.clientY, e.buttons] })
</script>`
const greets = `<!doctype html><title>Greets</title><p id="greeted">no</p>
<script>alert('Welcome'); document.getElementById('greeted').textContent = 'yes'</script>`

interface Content {
  readonly type: string
  readonly text?: string
  readonly data?: string
  readonly mimeType?: string
}
interface Result {
  readonly content: ReadonlyArray<Content>
  readonly isError?: boolean
}

const textOf = (r: Result) => r.content.filter((c) => c.type === "text").map((c) => c.text).join("\n")

interface Session {
  readonly client: Client
  readonly transport: StdioClientTransport
  readonly stderr: () => string
  readonly call: (name: string, args?: Record<string, unknown>) => Promise<Result>
}

const connect = async (env: NodeJS.ProcessEnv, args: ReadonlyArray<string> = []): Promise<Session> => {
  const transport = new StdioClientTransport({
    command: SVC_BIN,
    args: ["mcp", ...args],
    env: env as Record<string, string>,
    stderr: "pipe"
  })
  let stderr = ""
  transport.stderr?.on("data", (d) => (stderr += d))
  const client = new Client({ name: "svc-e2e", version: "1.0.0" })
  await client.connect(transport)
  return {
    client,
    transport,
    stderr: () => stderr,
    call: async (name, a = {}) => (await client.callTool({ name, arguments: a })) as unknown as Result
  }
}

const refOf = (snapshot: string, line: RegExp): string => {
  const found = snapshot.split("\n").find((l) => line.test(l))
  const ref = found === undefined ? undefined : /\[ref=([^\]\s]+)\]/.exec(found)?.[1]
  if (ref === undefined) throw new Error(`no ${line} with a ref in:\n${snapshot}`)
  return ref
}

describe("svc mcp with no gateway running", () => {
  let pages: Awaited<ReturnType<typeof servePages>>
  let stateDir: string
  let session: Session

  beforeAll(async () => {
    pages = await servePages({ "/form": form, "/other": other, "/upload": upload, "/dialogs": dialogs, "/greets": greets, "/logs": logs, "/tall": tall, "/pad": pad, "/zone": dropZone,
      "/headers": (req) => ({ type: "application/json", body: JSON.stringify(req.headers) }),
      "/api/items": { type: "application/json", body: JSON.stringify({ items: ["a", "b"], page: 2 }) }
    })
    stateDir = makeStateDir({ browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } })
    session = await connect(baseEnv(stateDir, await freeGatewayPort()))
  }, 60_000)
  afterAll(async () => {
    await session?.client.close()
    await pages?.close()
  })

  it("lists the tools with object input schemas and truthful annotations", async () => {
    const { tools } = await session.client.listTools()
    const names = tools.map((t) => t.name)
    for (
      const name of [
        "browser_navigate",
        "browser_navigate_back",
        "browser_navigate_forward",
        "browser_navigate_reload",
        "browser_snapshot",
        "browser_find",
        "browser_click",
        "browser_mouse_click_xy",
        "browser_mouse_wheel",
        "browser_mouse_move_xy",
        "browser_mouse_drag_xy",
        "browser_mouse_down",
        "browser_mouse_up",
        "browser_type",
        "browser_press_key",
        "browser_hover",
        "browser_highlight",
        "browser_get_css_styles",
        "browser_drag",
        "browser_drop",
        "browser_select_option",
        "browser_fill_form",
        "browser_file_upload",
        "browser_handle_dialog",
        "browser_evaluate",
        "browser_wait_for",
        "browser_take_screenshot",
        "browser_tabs",
        "browser_console_messages",
        "browser_network_requests",
        "browser_network_request",
        "browser_response_body",
        "browser_route",
        "browser_route_list",
        "browser_unroute",
        "browser_pdf_save",
        "browser_close",
        "browser_cookies",
        "browser_storage",
        "browser_storage_state",
        "browser_set_storage_state",
        "browser_emulate",
        "browser_network_state_set",
        "browser_emulate_media",
        "browser_throttle",
        "browser_download",
        "browser_trace",
        "browser_profiles"
      ]
    ) expect(names).toContain(name)
    for (const tool of tools) expect(tool.inputSchema.type, tool.name).toBe("object")
    const byName = new Map(tools.map((t) => [t.name, t]))
    expect(byName.get("browser_snapshot")!.annotations).toMatchObject({ readOnlyHint: true })
    expect(byName.get("browser_click")!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true })
    expect(byName.get("browser_click")!.inputSchema.properties).toHaveProperty("ref")
    expect(byName.get("browser_click")!.inputSchema.properties).toHaveProperty("target")
    expect(byName.get("browser_navigate")!.inputSchema.required).toEqual(["url"])
    // The agent tool's parameters are at the root of its schema, where a client looks for them.
    expect(byName.get("browser")!.inputSchema.required).toEqual(["action"])
    expect(byName.get("browser")!.inputSchema.properties).toHaveProperty("action")
    expect(byName.get("browser")!.inputSchema.properties).toHaveProperty("request")
  })

  it("navigates, snapshots with refs, clicks by ref and the page changes", async () => {
    const nav = await session.call("browser_navigate", { url: pages.url("/form") })
    expect(nav.isError, textOf(nav)).toBeFalsy()
    expect(textOf(nav)).toContain(`Navigated to ${pages.url("/form")}`)

    const snap = await session.call("browser_snapshot")
    expect(snap.isError).toBeFalsy()
    expect(snap.content[0]!.type).toBe("text")
    const text = textOf(snap)
    // Plain text as the control API writes it (not a quoted JSON string).
    expect(text).toMatch(/^\s*- button "Increment counter" \[ref=[^\]]+\]/m)
    const ref = refOf(text, /button "Increment counter"/)

    const click = await session.call("browser_click", { ref, element: "Increment counter button" })
    expect(click.isError, textOf(click)).toBeFalsy()
    expect(textOf(click)).toContain("Clicked Increment counter button")
    // `target` is ref's synonym.
    expect((await session.call("browser_click", { target: ref })).isError).toBeFalsy()

    const status = await session.call("browser_evaluate", { function: "() => document.querySelector('#status').textContent" })
    expect(textOf(status)).toBe('"clicked 2"')
    // A function that returns nothing says so, apart from one that returns null.
    expect(textOf(await session.call("browser_evaluate", { function: "() => { window.n = window.n }" }))).toBe("undefined")
    expect(textOf(await session.call("browser_evaluate", { function: "() => null" }))).toBe("null")
    // A function given the element by ref reads it as the page made it (svc's pin on it while it acts is off).
    const html = await session.call("browser_evaluate", { function: "(el) => el.outerHTML", ref })
    expect(JSON.parse(textOf(html))).toBe(`<button onclick="document.getElementById('status').textContent = 'clicked ' + (++window.n)">Increment counter</button>`)

    // A cut snapshot says how to see more as this tool's parameters, not the CLI's flags.
    const cut = textOf(await session.call("browser_snapshot", { limit: 60 }))
    expect(cut).toMatch(/snapshot truncated at the 60-character limit.*Pass a higher limit, or narrow it with mode: "efficient"/)
    expect(cut).not.toContain("--")

    // A page with nothing interactive says so, with the parameter to leave out said as this tool's.
    const none = textOf(await session.call("browser_snapshot", { selector: "#status", interactive: true }))
    expect(none).toMatch(/\[no interactive elements in "#status": a full snapshot \(without interactive: true or mode: "efficient"\)/)
    // A look at a part of the page (a role snapshot) leaves the refs of the page's snapshot working.
    const whole = refOf(textOf(await session.call("browser_snapshot")), /button "Increment counter"/)
    expect((await session.call("browser_snapshot", { selector: "#status" })).isError).toBeFalsy()
    const again = await session.call("browser_click", { ref: whole })
    expect(again.isError, textOf(again)).toBeFalsy()
    expect(textOf(await session.call("browser_evaluate", { function: "() => document.querySelector('#status').textContent" })))
      .toBe('"clicked 3"')
  })

  it("answers a navigation with the page's snapshot when asked, and its refs work", async () => {
    const nav = textOf(await session.call("browser_navigate", { url: pages.url("/other"), snapshot: true }))
    expect(nav).toContain(`Navigated to ${pages.url("/other")}`)
    expect(nav).toContain(`Page: Other (${pages.url("/other")})`)
    expect(nav).toMatch(/heading "Other page"/)
    const again = textOf(await session.call("browser_navigate", { url: pages.url("/form"), snapshot: true }))
    const click = await session.call("browser_click", { ref: refOf(again, /button "Increment counter"/) })
    expect(click.isError, textOf(click)).toBeFalsy()
    const back = textOf(await session.call("browser_navigate_back", { snapshot: true }))
    expect(back).toContain(`Went back to ${pages.url("/other")}`)
    expect(back).toMatch(/button "Lonely" \[ref=/)
  })

  it("finds a text in the page's snapshot with its ref; goes forward; clicks at a point", async () => {
    await session.call("browser_navigate", { url: pages.url("/form") })
    const found = textOf(await session.call("browser_find", { text: "INCREMENT" }))
    expect(found).toContain(`Page: Form (${pages.url("/form")})`)
    expect(found).toMatch(/^1 line\(s\) match "INCREMENT" \(of \d+ in the page's snapshot\), each under the elements it is in:$/m)
    expect(found).not.toContain("Other page")
    const click = await session.call("browser_click", { ref: refOf(found, /button "Increment counter"/) })
    expect(click.isError, textOf(click)).toBeFalsy()
    expect(textOf(await session.call("browser_find", { regex: "^\\s*- paragraph: clicked \\d$" }))).toMatch(/- paragraph \[ref=[^\]]+\]: clicked 1$/m)
    expect(textOf(await session.call("browser_find", { text: "nowhere to be seen" }))).toContain(
      "No line of the page's snapshot matches \"nowhere to be seen\""
    )
    const both = await session.call("browser_find", { text: "a", regex: "b" })
    expect(both.isError).toBe(true)
    expect(textOf(both)).toContain("give either text (plain, any case) or regex")

    // Boxes in the snapshot, in the viewport's pixels, for a click at a point.
    expect(textOf(await session.call("browser_snapshot", { boxes: true }))).toMatch(/button "Increment counter".* \[ref=\w+\] \[box=\d+,\d+,\d+,\d+\]$/m)
    // A point of the viewport, as a screenshot shows it: the button's middle.
    const at = JSON.parse(textOf(await session.call("browser_evaluate", {
      function: "() => { const r = document.querySelector('button').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2] }"
    }))) as [number, number]
    const xy = await session.call("browser_mouse_click_xy", { x: at[0], y: at[1], element: "the counter" })
    expect(xy.isError, textOf(xy)).toBeFalsy()
    expect(textOf(xy)).toContain(`Clicked at (${at[0]}, ${at[1]}) (the counter)`)
    expect(textOf(await session.call("browser_evaluate", { function: "() => document.querySelector('#status').textContent" })))
      .toBe('"clicked 2"')

    // The wheel scrolls the page, and says where it is; at an end, that it did not move.
    await session.call("browser_navigate", { url: pages.url("/tall") })
    const wheel = await session.call("browser_mouse_wheel", { deltaY: 500 })
    expect(wheel.isError, textOf(wheel)).toBeFalsy()
    expect(textOf(wheel)).toMatch(/^Scrolled down 500 px: the page is at y 500 of [\d,]+$/m)
    expect(textOf(await session.call("browser_mouse_wheel", { deltaY: -900 }))).toMatch(/^Scrolled up 900 px: the page is at y 0 of/m)
    expect(textOf(await session.call("browser_mouse_wheel", { deltaY: -100 }))).toMatch(/but the page did not move: it is at y 0 of [\d,]+ \(the end that way\)/)
    const nothing = await session.call("browser_mouse_wheel", {})
    expect(nothing.isError).toBe(true)
    expect(textOf(nothing)).toContain("scroll: say how far, in CSS pixels")

    // The pointer step by step: move, press, move with the button held, release; then a drag of a slider.
    await session.call("browser_navigate", { url: pages.url("/pad") })
    const seen = async () => JSON.parse(JSON.parse(textOf(await session.call("browser_evaluate", { function: "() => JSON.stringify([window.last, window.seen])" }))))
    expect(textOf(await session.call("browser_mouse_move_xy", { x: 40, y: 30 }))).toContain("Moved the mouse to (40, 30)")
    expect(textOf(await session.call("browser_mouse_down", {}))).toContain("Pressed the left mouse button")
    await session.call("browser_mouse_move_xy", { x: 140, y: 60 })
    expect((await seen())[0]).toEqual([140, 60, 1])
    expect(textOf(await session.call("browser_mouse_up", {}))).toContain("Released the left mouse button")
    expect((await seen())[1]).toEqual([["mousedown", 40, 30, 1], ["mouseup", 140, 60, 0], ["click", 140, 60, 0]])
    const dragged = await session.call("browser_mouse_drag_xy", { startX: 1, startY: 260, endX: 150, endY: 260 })
    expect(dragged.isError, textOf(dragged)).toBeFalsy()
    expect(textOf(dragged)).toContain("Dragged from (1, 260) to (150, 260)")
    expect(textOf(await session.call("browser_evaluate", { function: "() => document.getElementById('level').value" }))).toBe('"50"')
    const outside = await session.call("browser_mouse_move_xy", { x: 100_000, y: 10 })
    expect(outside.isError).toBe(true)
    expect(textOf(outside)).toMatch(/mouse move 100000,10: the point is outside the viewport, which is \d+x\d+ CSS pixels/)

    // Data dropped onto an element by its ref, as if dragged in from outside the page.
    await session.call("browser_navigate", { url: pages.url("/zone") })
    const area = refOf(textOf(await session.call("browser_snapshot")), /region "Drop area"/)
    // A snapshot of that element's part alone, as Playwright MCP's target asks.
    const part = textOf(await session.call("browser_snapshot", { target: area }))
    expect(part).toMatch(new RegExp(`^Page: Zone \\(.*/zone\\)\\n\\s*- region "Drop area" \\[ref=${area}\\]: here$`))
    const dropped = await session.call("browser_drop", { target: area, data: { "text/uri-list": "https://example.com/x" }, snapshot: true })
    expect(dropped.isError, textOf(dropped)).toBeFalsy()
    expect(textOf(dropped)).toContain(`Dropped text/uri-list onto`)
    expect(textOf(dropped)).toContain("got https://example.com/x")
    // Dragging one element onto another, the refs named as Playwright MCP's startTarget and endTarget.
    const zoneSnap = textOf(await session.call("browser_snapshot"))
    const draggedOnto = await session.call("browser_drag", {
      startTarget: refOf(zoneSnap, /button "Drag me"/), endTarget: refOf(zoneSnap, /region "Drop area"/), startElement: "the link"
    })
    expect(draggedOnto.isError, textOf(draggedOnto)).toBeFalsy()
    expect(textOf(draggedOnto)).toContain("Dragged the link [ref=")
    expect(textOf(await session.call("browser_evaluate", { function: "() => document.getElementById('zone').textContent" })))
      .toBe('"got https://example.com/dragged"')
    const half = await session.call("browser_drag", { startRef: refOf(zoneSnap, /button "Drag me"/) })
    expect(half.isError).toBe(true)
    expect(textOf(half)).toContain("give startRef (the element to drag) and endRef")

    await session.call("browser_navigate", { url: pages.url("/tall") })
    await session.call("browser_navigate", { url: pages.url("/other") })
    expect(textOf(await session.call("browser_navigate_back"))).toContain(`Went back to ${pages.url("/tall")}`)
    const forward = textOf(await session.call("browser_navigate_forward", { snapshot: true }))
    expect(forward).toContain(`Went forward to ${pages.url("/other")}: Other`)
    expect(forward).toMatch(/button "Lonely" \[ref=/)
    // A reload loads the page again: what the page kept in memory is gone.
    await session.call("browser_evaluate", { function: "() => { window.kept = 1 }" })
    expect(textOf(await session.call("browser_navigate_reload"))).toContain(`Reloaded ${pages.url("/other")}: Other`)
    expect(textOf(await session.call("browser_evaluate", { function: "() => typeof window.kept" }))).toBe('"undefined"')
  })

  it("answers a screenshot as a PNG image part", async () => {
    const shot = await session.call("browser_take_screenshot")
    expect(shot.isError, textOf(shot)).toBeFalsy()
    const image = shot.content.find((c) => c.type === "image")!
    expect(image.mimeType).toBe("image/png")
    const png = Buffer.from(image.data!, "base64")
    expect(png.toString("hex", 0, 8)).toBe("89504e470d0a1a0a")
    expect(png.toString("ascii", 12, 16)).toBe("IHDR")
    const [width, height] = [png.readUInt32BE(16), png.readUInt32BE(20)]
    expect(width).toBeGreaterThan(100)
    expect(height).toBeGreaterThan(100)
    expect(textOf(shot)).toContain(`${width}×${height}`)
    // A JPEG when asked for, as Playwright MCP's type says.
    const jpeg = await session.call("browser_take_screenshot", { type: "jpeg" })
    const part = jpeg.content.find((c) => c.type === "image")!
    expect(part.mimeType).toBe("image/jpeg")
    expect(Buffer.from(part.data!, "base64").subarray(0, 3).toString("hex")).toBe("ffd8ff")
    expect(textOf(jpeg)).toContain(`${width}×${height}`)
    expect(textOf(jpeg)).toMatch(/\.jpg$/)
  })

  it("saves a screenshot and a PDF under the names given (Playwright MCP's filename)", async () => {
    const tag = crypto.randomBytes(4).toString("hex")
    const shot = await session.call("browser_take_screenshot", { filename: `mcp-${tag}.png` })
    expect(shot.isError, textOf(shot)).toBeFalsy()
    const saved = /saved to (\S+)$/.exec(textOf(shot))![1]!
    try {
      expect(path.basename(saved)).toBe(`mcp-${tag}.png`)
      const image = shot.content.find((c) => c.type === "image")!
      expect(fs.readFileSync(saved).equals(Buffer.from(image.data!, "base64"))).toBe(true)
      const pdf = textOf(await session.call("browser_pdf_save", { filename: `mcp-${tag}.pdf` }))
      expect(pdf).toContain(path.join(path.dirname(saved), `mcp-${tag}.pdf`))
      expect(fs.readFileSync(path.join(path.dirname(saved), `mcp-${tag}.pdf`)).subarray(0, 4).toString()).toBe("%PDF")
      const taken = await session.call("browser_take_screenshot", { filename: `mcp-${tag}.png` })
      expect(taken.isError).toBe(true)
      expect(textOf(taken)).toContain("already exists and is never overwritten")
    } finally {
      for (const ext of ["png", "pdf"]) fs.rmSync(path.join(path.dirname(saved), `mcp-${tag}.${ext}`), { force: true })
    }
  })

  it("saves a text answer as a file when given a filename (snapshot, evaluate, requests, console), never over one", async () => {
    const tag = crypto.randomBytes(4).toString("hex")
    const downloads = path.join(chooseBase(), "downloads")
    const names = ["snap", "value", "requests", "console"].map((n) => `mcp-${n}-${tag}.txt`)
    try {
      await session.call("browser_navigate", { url: pages.url("/other") })
      const text = textOf(await session.call("browser_snapshot"))
      const saved = textOf(await session.call("browser_snapshot", { filename: names[0] }))
      expect(saved).toBe(`Saved to ${path.join(downloads, names[0]!)} (${text.length} characters)`)
      expect(fs.readFileSync(path.join(downloads, names[0]!), "utf8")).toBe(text)
      expect(fs.statSync(path.join(downloads, names[0]!)).mode & 0o777).toBe(0o600)
      expect(textOf(await session.call("browser_evaluate", { function: "() => document.title", filename: names[1] }))).toMatch(/^Saved to /)
      expect(fs.readFileSync(path.join(downloads, names[1]!), "utf8")).toContain('"Other"')
      expect(textOf(await session.call("browser_network_requests", { filename: names[2] }))).toMatch(/^Saved to /)
      expect(fs.readFileSync(path.join(downloads, names[2]!), "utf8")).toContain(pages.url("/other"))
      expect(textOf(await session.call("browser_console_messages", { filename: names[3] }))).toMatch(/^Saved to /)
      const again = await session.call("browser_snapshot", { filename: names[0] })
      expect(again.isError).toBe(true)
      expect(textOf(again)).toContain("already exists and is never overwritten")
      const outside = await session.call("browser_snapshot", { filename: "../escape.txt" })
      expect(outside.isError).toBe(true)
      expect(textOf(outside)).toContain("leaves")
      expect(fs.existsSync(path.join(chooseBase(), "escape.txt"))).toBe(false)
    } finally {
      for (const name of names) fs.rmSync(path.join(downloads, name), { force: true })
    }
  })

  it("refuses a stale ref at once, saying to take a new snapshot", async () => {
    await session.call("browser_navigate", { url: pages.url("/form") })
    const ref = refOf(textOf(await session.call("browser_snapshot")), /button "Increment counter"/)
    await session.call("browser_navigate", { url: pages.url("/other") })
    const t0 = performance.now()
    const stale = await session.call("browser_click", { ref })
    expect(performance.now() - t0).toBeLessThan(2_000)
    expect(stale.isError).toBe(true)
    expect(textOf(stale)).toMatch(/snapshot/)
    expect(textOf(stale)).toContain("browser_snapshot")

    // A ref of the interactive snapshot given without its "e": the answer names the one meant.
    const lonely = refOf(textOf(await session.call("browser_snapshot", { interactive: true })), /button "Lonely"/)
    expect(lonely).toMatch(/^e\d+$/)
    const typo = await session.call("browser_click", { ref: lonely.slice(1) })
    expect(typo.isError).toBe(true)
    expect(textOf(typo)).toContain(`did you mean ${lonely}?`)
    expect((await session.call("browser_click", { ref: lonely })).isError).toBeFalsy()

    // Highlight: an outline a person watching sees, over the element; the page keeps its own content.
    const shown = await session.call("browser_highlight", { ref: lonely, element: "the lonely button" })
    expect(shown.isError, textOf(shown)).toBeFalsy()
    expect(textOf(shown)).toMatch(/^Highlighted the lonely button \[ref=e\d+\]: button "Lonely"/)
    expect(textOf(await session.call("browser_evaluate", {
      function: "() => document.querySelectorAll('[data-svc-highlight]').length"
    }))).toBe("1")
    // Its CSS: computed values and the rules (here only the browser's own, which naming a property shows).
    const css = textOf(await session.call("browser_get_css_styles", { target: lonely, properties: ["display", "cursor"] }))
    expect(css.split("\n").slice(0, 3)).toEqual([
      `button "Lonely" [ref=${lonely}]`,
      "computed: display: inline-block; cursor: default",
      "rules, highest precedence first ([overridden]: another declaration wins):"
    ])
    expect(css).toContain("(the browser's own) {")
  })

  it("holds a dialog a click opens for browser_handle_dialog, as Playwright MCP does, and refuses the page meanwhile", async () => {
    await session.call("browser_navigate", { url: pages.url("/dialogs") })
    const snapshot = textOf(await session.call("browser_snapshot"))
    const said = async () => textOf(await session.call("browser_evaluate", { function: "() => document.getElementById('said').textContent" }))

    const t0 = performance.now()
    const clicked = await session.call("browser_click", { ref: refOf(snapshot, /button "Delete"/) })
    // The click answers once the dialog opens; it does not wait for it to be answered.
    expect(performance.now() - t0).toBeLessThan(5_000)
    expect(clicked.isError, textOf(clicked)).toBeFalsy()
    expect(textOf(clicked)).toContain('Dialog: confirm "Delete it?" is open')
    expect(textOf(clicked)).toContain("browser_handle_dialog")
    // The page waits in the dialog: what needs it is refused at once, saying what to do.
    for (const [tool, args] of [["browser_snapshot", {}], ["browser_take_screenshot", {}], ["browser_evaluate", { function: "() => 1" }]] as const) {
      const t1 = performance.now()
      const refused = await session.call(tool, args)
      expect(performance.now() - t1, tool).toBeLessThan(5_000)
      expect(refused.isError, tool).toBe(true)
      expect(textOf(refused), tool).toContain('confirm dialog ("Delete it?") is open')
      expect(textOf(refused), tool).toContain("browser_handle_dialog")
    }
    const answered = await session.call("browser_handle_dialog", { accept: true })
    expect(answered.isError, textOf(answered)).toBeFalsy()
    expect(textOf(answered)).toContain('confirm "Delete it?" that held up the tab was accepted')
    expect(await said()).toBe('"confirm true"')

    // A prompt, accepted with a text; then one dismissed.
    const name = refOf(snapshot, /button "Name"/)
    expect(textOf(await session.call("browser_click", { ref: name }))).toContain('Dialog: prompt "Your name?" is open')
    await session.call("browser_handle_dialog", { accept: true, promptText: "Ada" })
    expect(await said()).toBe('"prompt Ada"')
    await session.call("browser_click", { ref: name })
    expect(textOf(await session.call("browser_handle_dialog", { accept: false }))).toContain("was dismissed")
    expect(await said()).toBe('"prompt null"')

    // Armed before the click (svc's way): answered at once, and nothing is held.
    expect(textOf(await session.call("browser_handle_dialog", { accept: true }))).toContain("the next dialog of this tab will be accepted")
    const armedClick = textOf(await session.call("browser_click", { ref: refOf(snapshot, /button "Delete"/) }))
    expect(armedClick).toContain('Dialog: confirm "Delete it?" was accepted')
    expect(await said()).toBe('"confirm true"')
    expect((await session.call("browser_snapshot")).isError).toBeFalsy()

    // A dialog the page opens by itself, between tool calls (here from a timer): held as well, and the next
    // tool that needs the page says so.
    expect((await session.call("browser_click", { ref: refOf(snapshot, /button "Later"/) })).isError).toBeFalsy()
    const t2 = Date.now()
    let looked = await session.call("browser_snapshot")
    while (!looked.isError && Date.now() - t2 < 10_000) looked = await session.call("browser_snapshot")
    expect(looked.isError).toBe(true)
    expect(textOf(looked)).toContain('confirm dialog ("Later?") is open')
    expect(textOf(looked)).toContain("browser_handle_dialog")
    expect(textOf(await session.call("browser_handle_dialog", { accept: true }))).toContain('confirm "Later?" that held up the tab was accepted')
    expect(await said()).toBe('"later true"')

    // A dialog the page opens while it loads: the navigation answers that it is open.
    const nav = await session.call("browser_navigate", { url: pages.url("/greets"), snapshot: true })
    expect(nav.isError, textOf(nav)).toBeFalsy()
    expect(textOf(nav)).toContain('Dialog: alert "Welcome" is open')
    expect((await session.call("browser_snapshot")).isError).toBe(true)
    expect(textOf(await session.call("browser_handle_dialog", { accept: true }))).toContain("was accepted")
    expect(textOf(await session.call("browser_snapshot"))).toMatch(/paragraph \[ref=\w+\]: "yes"/)

    // A tab opened at a page that opens a dialog while it loads: held as after a navigation, not answered.
    const t3 = Date.now()
    const opened = await session.call("browser_tabs", { action: "new", url: pages.url("/greets") })
    expect(opened.isError, textOf(opened)).toBeFalsy()
    expect(Date.now() - t3).toBeLessThan(10_000)
    let greeted = await session.call("browser_snapshot")
    while (!greeted.isError && Date.now() - t3 < 10_000) greeted = await session.call("browser_snapshot")
    expect(textOf(greeted)).toContain('an alert dialog ("Welcome") is open')
    expect(textOf(await session.call("browser_handle_dialog", { accept: true }))).toContain('alert "Welcome" that held up the tab was accepted')
    expect(textOf(await session.call("browser_snapshot"))).toMatch(/paragraph \[ref=\w+\]: "yes"/)
    expect((await session.call("browser_close")).isError).toBeFalsy()

    // A tab whose page waits in a held dialog can still be closed.
    await session.call("browser_tabs", { action: "new", url: pages.url("/dialogs") })
    const second = textOf(await session.call("browser_snapshot"))
    expect(textOf(await session.call("browser_click", { ref: refOf(second, /button "Delete"/) }))).toContain("is open")
    const closed = await session.call("browser_close")
    expect(closed.isError, textOf(closed)).toBeFalsy()
    expect((await session.call("browser_snapshot")).isError).toBeFalsy()
  })

  it("with every tab closed, browser_navigate opens one, as browser_close says", async () => {
    for (;;) {
      const listed = textOf(await session.call("browser_tabs", { action: "list" }))
      const index = /^(\d+):/m.exec(listed)?.[1]
      if (index === undefined) break
      expect((await session.call("browser_tabs", { action: "close", index: Number(index) })).isError).toBeFalsy()
    }
    expect(textOf(await session.call("browser_tabs", { action: "list" }))).toContain("No tabs open: browser_navigate opens one")
    const nav = await session.call("browser_navigate", { url: pages.url("/other") })
    expect(nav.isError, textOf(nav)).toBeFalsy()
    expect(textOf(await session.call("browser_tabs", { action: "list" }))).toMatch(/^\d+: \(current\) "Other"/m)
    expect(textOf(await session.call("browser_snapshot"))).toContain('button "Lonely"')
  })

  it("gives the files of an upload to the file chooser the click before it opened, as Playwright MCP does", async () => {
    const name = `mcp-upload-${process.pid}-${Date.now()}.txt`
    const file = path.join(chooseBase(), "uploads", name)
    fs.writeFileSync(file, "twelve bytes")
    const out = async () => textOf(await session.call("browser_evaluate", { function: "() => document.getElementById('out').textContent" }))
    const outBecomes = async (want: string) => {
      const t0 = Date.now()
      while ((await out()) !== want) {
        if (Date.now() - t0 > 5_000) throw new Error(`#out is ${await out()}, not ${want}`)
        await new Promise((r) => setTimeout(r, 20))
      }
    }
    try {
      await session.call("browser_navigate", { url: pages.url("/upload") })
      const snapshot = textOf(await session.call("browser_snapshot"))
      const choose = refOf(snapshot, /button "Choose a file"/)
      const clicked = await session.call("browser_click", { ref: choose })
      expect(clicked.isError, textOf(clicked)).toBeFalsy()
      expect(textOf(clicked)).toContain("A file chooser opened: give it a file with browser_file_upload")
      const given = await session.call("browser_file_upload", { paths: [name] })
      expect(given.isError, textOf(given)).toBeFalsy()
      expect(textOf(given)).toContain("file chooser the page opened")
      await outBecomes(`"${name}:12"`)

      // Another action in between: the chooser is no longer what an upload means, which then arms the next one.
      await session.call("browser_click", { ref: choose })
      await session.call("browser_click", { ref: refOf(snapshot, /button "Something else"/) })
      expect(await out()).toBe('"elsewhere"')
      const armed = await session.call("browser_file_upload", { paths: [name] })
      expect(textOf(armed)).toContain("the next file chooser")
      expect(await out()).toBe('"elsewhere"')
      // The armed chooser is answered by the arming: none is held, and the click says nothing of one.
      expect(textOf(await session.call("browser_click", { ref: choose }))).not.toContain("file chooser")
      await outBecomes(`"${name}:12"`)

      // One file only for an input without `multiple`, and nothing is set.
      await session.call("browser_click", { ref: choose })
      const two = await session.call("browser_file_upload", { paths: [name, name] })
      expect(two.isError).toBe(true)
      expect(textOf(two)).toContain("takes one file")
    } finally {
      fs.rmSync(file, { force: true })
    }
  })

  it("lists the page's console messages with the line they were logged on", async () => {
    expect((await session.call("browser_navigate", { url: pages.url("/logs") })).isError).toBeFalsy()
    const listed = textOf(await session.call("browser_console_messages", {}))
    expect(listed).toContain(`hello from line 4 (${pages.url("/logs")}:4)`)
    // The page's uncaught error is among its messages, where DevTools shows it, in the order it happened.
    await session.call("browser_wait_for", { time: 0.2 })
    const lines = textOf(await session.call("browser_console_messages", {})).split("\n")
    const at = (text: string) => lines.findIndex((l) => l.includes(text))
    expect(lines[at("boom in the page")], lines.join("\n")).toBe("[error] Uncaught Error: boom in the page")
    expect(at("hello from line 4"), lines.join("\n")).toBeLessThan(at("boom in the page"))
    expect(at("boom in the page")).toBeLessThan(at("after the throw"))
    expect(textOf(await session.call("browser_console_messages", { level: "error" }))).toContain("Uncaught Error: boom in the page")
    // Debug messages only when asked for, as DevTools and Playwright MCP show them.
    expect(at("a debug detail")).toBe(-1)
    expect(textOf(await session.call("browser_console_messages", { level: "debug" }))).toContain("[debug] a debug detail")
  })

  it("reads a response's body, waiting for one that has not come yet", async () => {
    expect((await session.call("browser_navigate", { url: pages.url("/other") })).isError).toBeFalsy()
    await session.call("browser_evaluate", { function: "() => { setTimeout(() => fetch('/api/items?page=2'), 300); return 1 }" })
    const body = await session.call("browser_response_body", { url: "**/api/items*" })
    expect(body.isError, textOf(body)).toBeFalsy()
    expect(textOf(body)).toBe(`HTTP 200 ${pages.url("/api/items?page=2")} (application/json, 28 bytes)\n{"items":["a","b"],"page":2}`)
    const cut = textOf(await session.call("browser_response_body", { url: "**/api/items*", maxChars: 5 }))
    expect(cut.split("\n")[0]).toContain(", cut)")
    expect(cut.split("\n")[1]).toBe(`{"ite`)
    const none = await session.call("browser_response_body", { url: "**/nothing-like-this", timeout: 200 })
    expect(none.isError).toBe(true)
    // The request list's filter reads as Playwright MCP's does (a regular expression), or as plain text.
    const listed = textOf(await session.call("browser_network_requests", { filter: "/api/.*page=2" }))
    expect(listed).toMatch(new RegExp(`^\\[GET\\] ${pages.url("/api/items").replace(/[.]/g, "\\.")}\\?page=2 => \\[200\\] fetch #\\d+$`))
    const detail = textOf(await session.call("browser_network_request", { index: Number(/#(\d+)$/.exec(listed)![1]) }))
    expect(detail.split("\n")[0]).toMatch(/^#\d+ GET .*\/api\/items\?page=2 => 200 \(fetch, \d+ ms\)$/)
    expect(detail).toMatch(/^response headers:\n(?:.*\n)*  content-type: application\/json$/m)
    // One part of it, as Playwright MCP's part asks: the body by the request's own number.
    const seq = Number(/#(\d+)$/.exec(listed)![1])
    expect(textOf(await session.call("browser_network_request", { index: seq, part: "response-body" })))
      .toBe(`HTTP 200 ${pages.url("/api/items?page=2")} (application/json, 28 bytes)\n{"items":["a","b"],"page":2}`)
    expect(textOf(await session.call("browser_network_request", { index: seq, part: "response-headers" }))).toMatch(/^content-type: application\/json$/m)
    expect(textOf(await session.call("browser_network_request", { index: seq, part: "request-body" }))).toBe(`#${seq} posted no data`)
    expect(textOf(await session.call("browser_network_requests", { filter: "ITEMS?page" }))).toContain("/api/items?page=2")
    // A stylesheet is static: listed by default, left out with Playwright MCP's includeStatic: false.
    await session.call("browser_evaluate", {
      function: "() => new Promise((r) => { const l = document.createElement('link'); l.rel = 'stylesheet'; l.href = '/other?sheet'; l.onload = l.onerror = r; document.head.append(l) })"
    })
    expect(textOf(await session.call("browser_network_requests", { filter: "sheet" }))).toContain("/other?sheet")
    expect(textOf(await session.call("browser_network_requests", { filter: "sheet", includeStatic: false }))).toBe("No requests.")
  })

  it("mocks and refuses requests with routes, as Playwright MCP's browser_route does", async () => {
    expect((await session.call("browser_navigate", { url: pages.url("/other") })).isError).toBeFalsy()
    const read = async (path: string) => textOf(await session.call("browser_evaluate", {
      function: `() => fetch(${JSON.stringify(path)}).then((r) => r.text(), (e) => "failed")`
    }))
    const added = await session.call("browser_route", { pattern: "**/api/items", body: "[1,2]", contentType: "application/json" })
    expect(textOf(added)).toBe("Route added for **/api/items: answered 200, application/json, 5 byte(s) (0 request(s) so far)")
    expect(await read("/api/items")).toBe('"[1,2]"')
    await session.call("browser_route", { pattern: "**/blocked", abort: true })
    expect(await read("/blocked")).toBe('"failed"')
    expect(textOf(await session.call("browser_route_list", {}))).toBe(
      "**/api/items: answered 200, application/json, 5 byte(s) (1 request(s) so far)\n**/blocked: refused (1 request(s) so far)"
    )
    expect(textOf(await session.call("browser_unroute", {}))).toBe("Removed 2 route(s)")
    expect(await read("/api/items")).toContain("items")
    const nothing = await session.call("browser_route", { pattern: "**/x" })
    expect(nothing.isError).toBe(true)
    expect(textOf(nothing)).toContain("say what the route does")
    // Offline and back, by Playwright MCP's browser_network_state_set.
    expect(textOf(await session.call("browser_network_state_set", { state: "offline" }))).toMatch(/^offline/)
    expect(await read("/api/items")).toBe('"failed"')
    expect(textOf(await session.call("browser_network_state_set", { state: "online" }))).toMatch(/^online/)
    expect(await read("/api/items")).toContain("items")
    // A slower network and CPU, as chrome-devtools-mcp's emulate gives them, and the full speed back.
    expect(textOf(await session.call("browser_throttle", { network: "fast-4g", latencyMs: 1200, cpu: 2 }))).toBe(
      "network throttled (1200 ms latency, 8100 kbit/s down, 1350 kbit/s up), CPU 2x slower (this tab)"
    )
    const timed = async () => JSON.parse(textOf(await session.call("browser_evaluate", {
      function: "async () => { const t0 = performance.now(); await fetch('/api/items?' + Math.random()); return performance.now() - t0 }"
    }))) as number
    expect(await timed()).toBeGreaterThanOrEqual(1_100)
    expect(textOf(await session.call("browser_throttle", { network: "none", cpu: 1 }))).toBe("network at full speed, CPU at its own speed (this tab)")
    expect(await timed()).toBeLessThan(700)
    const bad = await session.call("browser_throttle", { cpu: 40 })
    expect(bad.isError).toBe(true)
    expect(textOf(bad)).toContain("cpu")
  })

  it("reads cookies and local storage without being told to get", async () => {
    expect((await session.call("browser_navigate", { url: pages.url("/other") })).isError).toBeFalsy()
    expect((await session.call("browser_cookies", { action: "set", name: "sid", value: "c00kie", url: pages.url("/") })).isError)
      .toBeFalsy()
    expect(textOf(await session.call("browser_cookies", {}))).toContain("sid=c00kie")
    expect((await session.call("browser_storage", { action: "set", key: "theme", value: "dark" })).isError).toBeFalsy()
    expect(textOf(await session.call("browser_storage", {}))).toBe("theme=dark")
    expect(textOf(await session.call("browser_storage", { kind: "session" }))).toBe("Empty.")

    // Saved to a file and restored over what came since, as Playwright MCP's storage-state tools do.
    const filename = `mcp-state-${crypto.randomUUID()}.json`
    const saved = await session.call("browser_storage_state", { filename })
    expect(saved.isError, textOf(saved)).toBeFalsy()
    const file = /^Saved 1 cookie\(s\) and the local storage of 1 origin\(s\) to (\/\S+)$/.exec(textOf(saved))?.[1]
    expect(file, textOf(saved)).toBe(path.join(chooseBase(), "states", filename))
    try {
      await session.call("browser_cookies", { action: "clear" })
      await session.call("browser_storage", { action: "set", key: "theme", value: "light" })
      const restored = await session.call("browser_set_storage_state", { filename })
      expect(restored.isError, textOf(restored)).toBeFalsy()
      expect(textOf(restored)).toBe(`Cleared the profile's cookies and local storage, then loaded 1 cookie(s) and the local storage of 1 origin(s) from ${file}`)
      expect(textOf(await session.call("browser_cookies", {}))).toContain("sid=c00kie")
      expect(textOf(await session.call("browser_storage", {}))).toBe("theme=dark")
      const taken = await session.call("browser_storage_state", { filename })
      expect(taken.isError).toBe(true)
      expect(textOf(taken)).toContain("already exists and is never overwritten")
    } finally {
      fs.rmSync(file!, { force: true })
    }
  })

  it("emulates a device, a locale and a time zone, and gives the browser's own back with none", async () => {
    expect((await session.call("browser_navigate", { url: pages.url("/other") })).isError).toBeFalsy()
    // Media features as Playwright MCP's browser_emulate_media sets them; null gives one back.
    const features = async () => textOf(await session.call("browser_evaluate", {
      function: "() => [matchMedia('(prefers-color-scheme: dark)').matches, matchMedia('print').matches].join()"
    }))
    expect(textOf(await session.call("browser_emulate_media", { colorScheme: "dark", media: "print" })))
      .toBe("prefers-color-scheme dark, media type print (this tab)")
    expect(await features()).toBe('"true,true"')
    await session.call("browser_emulate_media", { colorScheme: null, media: "none" })
    expect(await features()).toBe('"false,false"')
    const read = async () =>
      JSON.parse(textOf(
        await session.call("browser_evaluate", {
          function: "() => ({ ua: navigator.userAgent, lang: navigator.language, w: innerWidth, touch: navigator.maxTouchPoints, " +
            "tz: Intl.DateTimeFormat().resolvedOptions().timeZone })"
        })
      )) as { ua: string; lang: string; w: number; touch: number; tz: string }
    const own = await read()
    expect(own.ua).not.toContain("iPhone")

    const emulate = async (args: Record<string, unknown>) => {
      const r = await session.call("browser_emulate", args)
      expect(r.isError, textOf(r)).toBeFalsy()
      return textOf(r)
    }
    await emulate({ device: "iPhone 13" })
    await emulate({ locale: "fr-FR" })
    await emulate({ timezone: own.tz === "Asia/Tokyo" ? "Europe/Paris" : "Asia/Tokyo" })
    const emulated = await read()
    expect(emulated.ua).toContain("iPhone")
    expect(emulated.lang).toBe("fr-FR")
    expect(emulated.touch).toBeGreaterThan(0)
    expect(emulated.tz).not.toBe(own.tz)

    // The device goes; the locale stays, on the browser's own user agent.
    expect(await emulate({ device: "none" })).toContain("device: none")
    const noDevice = await read()
    expect([noDevice.ua, noDevice.w, noDevice.touch, noDevice.lang]).toEqual([own.ua, own.w, own.touch, "fr-FR"])

    expect(await emulate({ locale: "none" })).toContain("the browser's own")
    expect(await emulate({ timezone: "NONE" })).toContain("the browser's own")
    expect(await read()).toEqual(own)

    // The profile-wide ones: headers, a position, credentials for one origin.
    const origin = new URL(pages.url("/")).origin
    const sent = async () => JSON.parse(JSON.parse(textOf(await session.call("browser_evaluate", {
      function: "() => fetch('/headers').then((r) => r.text())"
    })))) as Record<string, string>
    await emulate({ headers: { "X-From-Mcp": "yes" } })
    expect((await sent())["x-from-mcp"]).toBe("yes")
    await emulate({ headers: {} })
    expect((await sent())["x-from-mcp"]).toBeUndefined()
    expect(await emulate({ geolocation: { latitude: 35.6586, longitude: 139.7454 } })).toBe("geolocation 35.6586, 139.7454 (every tab of the profile)")
    expect(JSON.parse(textOf(await session.call("browser_evaluate", {
      function: "() => new Promise((ok, ko) => navigator.geolocation.getCurrentPosition((p) => ok([p.coords.latitude, p.coords.longitude]), (e) => ko(new Error(e.message))))"
    })))).toEqual([35.6586, 139.7454])
    expect(await emulate({ geolocation: "none" })).toBe("geolocation cleared")
    expect(await emulate({ credentials: { user: "ada", pass: "s3cret", origin } }))
      .toBe(`HTTP credentials set for ada on ${origin} (every tab of the profile)`)
    expect(await emulate({ credentials: "none" })).toBe("HTTP credentials cleared")
    const two = await session.call("browser_emulate", { offline: false, headers: {} })
    expect(two.isError).toBe(true)
    expect(textOf(two)).toContain("give exactly one setting")
    // And after a navigation, nothing comes back.
    expect((await session.call("browser_navigate", { url: pages.url("/form") })).isError).toBeFalsy()
    expect(await read()).toEqual(own)
  })

  it("waits for a text, a time, a text to go; says what it waited for, or that it timed out", async () => {
    expect((await session.call("browser_navigate", { url: pages.url("/other") })).isError).toBeFalsy()
    expect(textOf(await session.call("browser_wait_for", { text: "Other page" }))).toBe("Waited for \"Other page\" to show")
    const t0 = Date.now()
    expect(textOf(await session.call("browser_wait_for", { time: 0.3 }))).toBe("Waited for 0.3 s")
    expect(Date.now() - t0).toBeGreaterThanOrEqual(300)
    expect(textOf(await session.call("browser_wait_for", { textGone: "not on the page" }))).toBe("Waited for \"not on the page\" to go")
    const late = await session.call("browser_wait_for", { text: "never there", timeout: 300 })
    expect(late.isError).toBe(true)
    expect(textOf(late)).toContain("timed out after 300ms")
  })

  it("names the bad argument", async () => {
    const missing = await session.call("browser_navigate", {})
    expect(missing.isError).toBe(true)
    expect(textOf(missing)).toContain("url is missing")
    const wrong = await session.call("browser_snapshot", { depth: "deep" })
    expect(wrong.isError).toBe(true)
    expect(textOf(wrong)).toMatch(/depth: expected/)
    const noRef = await session.call("browser_click", {})
    expect(noRef.isError).toBe(true)
    expect(textOf(noRef)).toContain("ref is missing")
  })

  it("after the client closes stdin, nothing it started is left running", async () => {
    const lock = JSON.parse(fs.readFileSync(path.join(stateDir, "gateway.lock"), "utf8")) as { pid: number }
    const status = JSON.parse(textOf(await session.call("browser_status"))) as { pid: number | null; running: boolean }
    expect(status.running).toBe(true)
    const chromium = status.pid!
    expect(lock.pid).toBe(session.transport.pid)
    expect(pidAlive(lock.pid) && pidAlive(chromium)).toBe(true)
    await session.client.close()
    await waitUntil(() => !pidAlive(lock.pid) && !pidAlive(chromium), 15_000)
    // It went because stdin closed, not because the client had to signal it.
    expect(session.stderr()).toContain("stdin closed")
    expect(fs.existsSync(path.join(stateDir, "gateway.lock"))).toBe(false)
  })
})

describe("two svc mcp sessions started at once on one state dir", () => {
  let pages: Awaited<ReturnType<typeof servePages>>
  beforeAll(async () => {
    pages = await servePages({ "/form": form, "/other": other })
  })
  afterAll(async () => {
    await pages?.close()
  })

  it("share the gateway one of them starts; when that one closes, the other goes on with a gateway of its own", async () => {
    const stateDir = makeStateDir({ browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } })
    const env = baseEnv(stateDir, await freeGatewayPort())
    const [a, b] = await Promise.all([connect(env), connect(env)])
    let survivor: Session | undefined
    try {
      const [na, nb] = await Promise.all([
        a.call("browser_navigate", { url: pages.url("/form") }),
        b.call("browser_navigate", { url: pages.url("/other") })
      ])
      expect(na.isError, textOf(na)).toBeFalsy()
      expect(nb.isError, textOf(nb)).toBeFalsy()
      const lock = JSON.parse(fs.readFileSync(path.join(stateDir, "gateway.lock"), "utf8")) as { pid: number }
      const [owner, other] = lock.pid === a.transport.pid ? [a, b] : [b, a]
      expect(lock.pid).toBe(owner.transport.pid)
      survivor = other
      await owner.client.close()
      await waitUntil(() => !pidAlive(lock.pid), 15_000)
      // The next call finds no gateway, starts one in this session, and is made there.
      const nav = await other.call("browser_navigate", { url: pages.url("/form") })
      expect(nav.isError, textOf(nav)).toBeFalsy()
      expect(textOf(await other.call("browser_snapshot"))).toContain('button "Increment counter"')
      const now = JSON.parse(fs.readFileSync(path.join(stateDir, "gateway.lock"), "utf8")) as { pid: number }
      expect(now.pid).toBe(other.transport.pid)
    } finally {
      await a.client.close()
      await b.client.close()
    }
    await waitUntil(() => !fs.existsSync(path.join(stateDir, "gateway.lock")), 15_000)
    expect(survivor?.stderr()).toContain("stdin closed; stopping the gateway it started")
  }, 90_000)
})

describe("svc mcp with a gateway already running", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>

  beforeAll(async () => {
    pages = await servePages({ "/form": form })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } } })
  }, 60_000)
  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
  })

  it("uses it, and leaves it (and its browser) running after close", async () => {
    const session = await connect(gw.env)
    const nav = await session.call("browser_navigate", { url: pages.url("/form") })
    expect(nav.isError, textOf(nav)).toBeFalsy()
    const status = JSON.parse(textOf(await session.call("browser_status"))) as { pid: number }
    await session.client.close()
    await waitUntil(() => session.stderr().includes("stdin closed"), 10_000)
    expect(pidAlive(gw.process.pid!)).toBe(true)
    expect(pidAlive(status.pid)).toBe(true)
    // The tab it opened is the gateway's, still there.
    const tabs = await gw.svc("browser", "tabs", "--json")
    expect(tabs.code).toBe(0)
    expect(JSON.parse(tabs.stdout).tabs.map((t: { url: string }) => t.url)).toContain(pages.url("/form"))
  })

  it("serves the agent tool `browser`: a --sandbox session drives the sandbox browser and may not reach the host's", async () => {
    const sandboxed = await connect(gw.env, ["--sandbox"])
    try {
      const refused = await sandboxed.call("browser", { action: "tabs", target: "host" })
      expect(refused.isError).toBe(true)
      expect(textOf(refused)).toContain("agents.defaults.sandbox.browser.allowHostControl")
      const opened = await sandboxed.call("browser", { action: "open", url: pages.url("/form") })
      expect(opened.isError, textOf(opened)).toBe(false)
      const snap = textOf(await sandboxed.call("browser", { action: "snapshot" }))
      expect(snap).toMatch(/\[ref=\d+\]/)
      expect(snap).toContain("ai snapshot of tab")
      const tabs = textOf(await sandboxed.call("browser", { action: "tabs" }))
      expect(tabs).toContain(`"profile": "sandbox"`)
      const bad = await sandboxed.call("browser", { action: "fly" })
      expect(bad.isError).toBe(true)
      expect(textOf(bad)).toMatch(/action: /)
      await sandboxed.call("browser", { action: "stop" })
    } finally {
      await sandboxed.client.close()
    }
  })

  it("--browser-profile picks the profile every tool uses; --sandbox the `sandbox` one", async () => {
    const relay = await connect(gw.env, ["--browser-profile", "relay"])
    const status = JSON.parse(textOf(await relay.call("browser_status"))) as { profile: string }
    expect(status.profile).toBe("relay")
    await relay.client.close()
    const sandboxed = await connect(gw.env, ["--sandbox"])
    const sandbox = JSON.parse(textOf(await sandboxed.call("browser_status"))) as { profile: string; driver: string }
    expect(sandbox).toMatchObject({ profile: "sandbox", driver: "managed" })
    await sandboxed.client.close()
  })
})
