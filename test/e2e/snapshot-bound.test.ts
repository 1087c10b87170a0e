import { chromium } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Gateway, request, servePages, startGateway } from "../support/gateway.js"
import { type TabSession, tabSession } from "../support/tabSession.js"

// On a page larger than the snapshot's character cap, the AI snapshot reads the page only as far as the cap
// can show (src/browser/snapshot/walkBound.ts). Seen here through the control API against a real gateway
// and Chromium, and over a CDP session of the test's own in the library's utility world (where its
// snapshot marks each element it read with a ref): what the agent sees, that the rest was never read, that
// what was read is read as a whole page read would read it, and that the DOM is whole again afterwards.

const SECTIONS = 3000

/** 3,000 sections, each a heading, a paragraph, a link and a button: about 600,000 characters of snapshot. */
const LONG = `<!doctype html><title>Long</title><p id="out">nothing yet</p>${
  Array.from(
    { length: SECTIONS },
    (_, i) =>
      `<section><h2>Section ${i}</h2><p>Paragraph ${i} with a few words of text in it.</p>` +
      `<a href="#s${i}">Link ${i}</a> <button onclick="out.textContent='act ${i}'">Act ${i}</button></section>`
  ).join("")
}`

/**
 * The same sections, each with an "Edit" button too: look-alikes, so a role snapshot's refs always get their
 * identities from a second read (without look-alikes that read is left out when the first was slow).
 */
const ROWS = `<!doctype html><title>Rows</title><p id="out">nothing yet</p>${
  Array.from(
    { length: SECTIONS },
    (_, i) =>
      `<section><h2>Section ${i}</h2><a href="#s${i}">Link ${i}</a> ` +
      `<button onclick="out.textContent='act ${i}'">Act ${i}</button> <button>Edit</button></section>`
  ).join("")
}`

/** One table of wide rows: a row takes its name from all its cells, so no read may end inside one. */
const TABLE = `<!doctype html><title>Table</title><table>${
  Array.from(
    { length: 400 },
    (_, r) => `<tr>${Array.from({ length: 24 }, (_, c) => `<td>r${r}c${c}</td>`).join("")}</tr>`
  ).join("")
}</table>`

/** In the utility world: how many of the page's elements matching `selector` the library gave a ref. */
const readCount = (selector: string) =>
  `[...document.querySelectorAll(${JSON.stringify(selector)})].filter((e) => e._ariaRef !== undefined).length`

/** Shadow trees with slots, display: contents, aria-owns, closed details and iframes, many times over. */
const MIXED = `<!doctype html><title>Mixed</title><script>customElements.define("x-card", class extends HTMLElement {
  constructor() { super(); this.attachShadow({ mode: "open" }).innerHTML = "<h3>Card " + this.dataset.i + "</h3><slot></slot><button>Shadow " + this.dataset.i + "</button>" }
})</script>${
  Array.from(
    { length: 600 },
    (_, i) =>
      `<section><x-card data-i="${i}"><a href="#l${i}">Light link ${i}</a></x-card>` +
      `<div style="display:contents"><button>Contents ${i}</button></div>` +
      `<div role="listbox" aria-owns="opt${i}" aria-label="Box ${i}"></div><p>para ${i} <span role="option" id="opt${i}">Option ${i}</span></p>` +
      `<details><summary>More ${i}</summary><p>hidden ${i}</p></details>` +
      (i % 50 === 0 ? `<iframe srcdoc="<button>Frame ${i}</button>" style="height:40px"></iframe>` : "") +
      `</section>`
  ).join("")
}`

/**
 * Fields named by labels, in the document and in a shadow tree, and a shadow tree with no label at all (the
 * arming pass answers `labels` at once where an element's tree has no <label>: walkEnd.ts).
 */
const LABELS = `<!doctype html><title>Labels</title><script>
customElements.define("x-field", class extends HTMLElement {
  constructor() { super(); this.attachShadow({ mode: "open" }).innerHTML = '<label for="n">Shadow name</label><input id="n"><button>Shadow go</button>' }
})
customElements.define("x-bare", class extends HTMLElement {
  constructor() { super(); this.attachShadow({ mode: "open" }).innerHTML = '<input title="Bare field"><button>Bare go</button>' }
})</script>
<label for="email">Email</label><input id="email"><label>Phone <input id="phone"></label>
<x-field></x-field><x-bare></x-bare><button>Go</button><select aria-label="Plan"><option>Free</option></select>`

/** How many buttons the library has read in the tab, once it has read any (a read after the answer; 15 s at most). */
const buttonsReadOnce = async (world: TabSession): Promise<number> => {
  let read = 0
  for (const started = Date.now(); read === 0 && Date.now() - started < 15_000;) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    read = await world.evaluateInUtility(readCount("button")).catch(() => 0)
  }
  return read
}

describe("an AI snapshot of a large page reads only what its cap can show", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>
  let cdpUrl = ""

  const auth = () => ({ authorization: `Bearer ${gw.token()}` })
  /** A new tab at `url`, once loaded (a page still being parsed is smaller than it will be: its read is whole). */
  const open = async (url: string): Promise<string> => {
    const opened = await gw.svc("browser", "open", url, "--json")
    expect(opened.code, opened.stderr).toBe(0)
    const targetId = JSON.parse(opened.stdout).targetId
    const loaded = await request(gw.controlPort, "POST", "/act", auth(), { kind: "wait", load: "load", targetId })
    expect(loaded.status, loaded.body).toBe(200)
    return targetId
  }
  /** GET /snapshot of the tab with `query`; `snapshot` asks for the AI format. */
  const take = async (targetId: string, query: string) => {
    const r = await request(gw.controlPort, "GET", `/snapshot?targetId=${targetId}${query}`, auth())
    expect(r.status, r.body).toBe(200)
    return r.json() as { snapshot: string; truncated: boolean; format: string; refs: Record<string, { role: string; name: string }> }
  }
  const snapshot = (targetId: string, query = "") => take(targetId, `&format=ai${query}`)

  beforeAll(async () => {
    pages = await servePages({ "/long": LONG, "/rows": ROWS, "/table": TABLE, "/mixed": MIXED, "/labels": LABELS })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc" } } })
    const started = await gw.svc("browser", "start", "--json")
    expect(started.code, started.stderr).toBe(0)
    cdpUrl = JSON.parse((await gw.svc("browser", "status", "--json")).stdout).cdpUrl
  }, 60_000)

  afterAll(async () => {
    await gw?.svc("browser", "stop")
    await gw?.stop()
    await pages?.close()
  })

  it("stops reading where the cap falls, says so, and every ref it shows works", async () => {
    const targetId = await open(pages.url("/long"))
    const world = await tabSession(cdpUrl, targetId)
    try {
      const snap = await snapshot(targetId)
      expect(snap.truncated).toBe(true)
      expect(snap.snapshot.length).toBeLessThanOrEqual(80_000)
      expect(snap.snapshot.split("\n").pop()).toMatch(
        /^\[… snapshot truncated at the 80000-character limit: .*the rest of the page was not read \(about \d+ more element\(s\), \d+ of them interactive\)\. /
      )
      const shown = [...snap.snapshot.matchAll(/button "Act (\d+)" \[ref=(\d+)\]/g)]
      expect(shown.length).toBeGreaterThan(100)
      // The library marked the buttons it read: those shown and a few more, not the 3,000 on the page.
      const read = await world.evaluateInUtility(readCount("button"))
      expect(read).toBeGreaterThanOrEqual(shown.length)
      expect(read).toBeLessThan(SECTIONS / 2)
      // The DOM the library sees is whole again: its own way of walking it reaches every section.
      expect(await world.evaluateInUtility(`(() => { let n = 0; for (let c = document.body.firstChild; c; c = c.nextSibling) n++; return n })()`))
        .toBe(SECTIONS + 1)
      expect(await world.evaluateInUtility(`Object.getOwnPropertyDescriptor(Node.prototype, "nextSibling").get.toString()`))
        .toContain("[native code]")
      // The last button shown is there to act on.
      const [, n, ref] = shown[shown.length - 1]!
      const clicked = await request(gw.controlPort, "POST", "/act", auth(), { kind: "click", ref, targetId })
      expect(clicked.status, clicked.body).toBe(200)
      const out = await gw.svc("browser", "evaluate", "--target-id", targetId, "--fn", "() => document.getElementById('out').textContent")
      expect(out.stdout).toContain(`act ${n}`)
      // A higher cap reads the whole page.
      const whole = await snapshot(targetId, "&limit=10000000")
      expect(whole.truncated).toBe(false)
      expect(whole.snapshot).toContain(`button "Act ${SECTIONS - 1}"`)
      expect(await world.evaluateInUtility(readCount("button"))).toBe(SECTIONS)
    } finally {
      world.close()
    }
  }, 60_000)

  it("snapshots asked together each read only as far as the cap: the walk's end serves one read at a time", async () => {
    for (let round = 0; round < 3; round++) {
      const targetId = await open(pages.url("/long"))
      const world = await tabSession(cdpUrl, targetId)
      try {
        const both = await Promise.all([snapshot(targetId), snapshot(targetId), take(targetId, "&format=role&interactive=true")])
        for (const snap of both) {
          expect(snap.truncated).toBe(true)
          expect(snap.snapshot).toContain("the rest of the page was not read")
        }
        expect(await world.evaluateInUtility(readCount("button"))).toBeLessThan(SECTIONS / 2)
      } finally {
        world.close()
        await gw.svc("browser", "close", targetId)
      }
    }
  }, 90_000)

  it("an efficient snapshot reads as far as its list of controls fills the cap, and its refs act", async () => {
    const targetId = await open(pages.url("/rows"))
    const world = await tabSession(cdpUrl, targetId)
    try {
      const snap = await take(targetId, "&efficient=true")
      expect(snap.format).toBe("role")
      expect(snap.truncated).toBe(true)
      expect(snap.snapshot.length).toBeLessThanOrEqual(10_000)
      expect(snap.snapshot.split("\n").pop()).toContain("the rest of the page was not read")
      const shown = [...snap.snapshot.matchAll(/button "Act (\d+)" \[ref=(e\d+)\]/g)]
      // Most of the cap is filled with controls (a link and two buttons per section), from the top of the page.
      expect(shown.length).toBeGreaterThan(60)
      expect(shown[0]![1]).toBe("0")
      // The last button shown is there to act on.
      const [, n, ref] = shown[shown.length - 1]!
      const clicked = await request(gw.controlPort, "POST", "/act", auth(), { kind: "click", ref, targetId })
      expect(clicked.status, clicked.body).toBe(200)
      const out = await gw.svc("browser", "evaluate", "--target-id", targetId, "--fn", "() => document.getElementById('out').textContent")
      expect(out.stdout).toContain(`act ${n}`)
      // The refs' identities come from a second read (AI, begun by the click, which marks what it reads): it
      // ends where the first did. Two buttons a section: fewer than half the page's are read.
      const read = await buttonsReadOnce(world)
      expect(read).toBeGreaterThanOrEqual(shown.length)
      expect(read).toBeLessThan(SECTIONS)
      expect(await world.evaluateInUtility(`Object.getOwnPropertyDescriptor(Node.prototype, "nextSibling").get.toString()`))
        .toContain("[native code]")
    } finally {
      world.close()
    }
  }, 60_000)

  it("after a navigation, a large page is read ahead as far as a snapshot's cap reaches", async () => {
    const targetId = await open(pages.url("/table"))
    const world = await tabSession(cdpUrl, targetId)
    try {
      const r = await request(gw.controlPort, "POST", "/navigate", auth(), { url: pages.url("/long"), targetId })
      expect(r.status, r.body).toBe(200)
      // Nothing asks for the tab: the gateway reads the new document ahead, and only its first part.
      const read = await buttonsReadOnce(world)
      expect(read).toBeGreaterThan(100)
      expect(read).toBeLessThan(SECTIONS / 2)
      const snap = await snapshot(targetId)
      expect(snap.snapshot).toContain(`button "Act 0"`)
      expect(snap.snapshot.split("\n").pop()).toContain("the rest of the page was not read")
    } finally {
      world.close()
    }
  }, 60_000)

  it("reads in part also while another automation client works on the same tab", async () => {
    const targetId = await open(pages.url("/long"))
    // Another client of the library, on its own connection: it has utility worlds of its own in the tab.
    const other = await chromium.connectOverCDP(cdpUrl)
    try {
      const page = other.contexts().flatMap((c) => c.pages()).find((p) => p.url() === pages.url("/long"))!
      expect((await page.ariaSnapshot({ mode: "ai" })).length).toBeGreaterThan(400_000)
      const snap = await snapshot(targetId)
      expect(snap.truncated).toBe(true)
      expect(snap.snapshot.split("\n").pop()).toContain("the rest of the page was not read")
      // The other client's reads are whole, as before.
      expect(await page.ariaSnapshot({ mode: "ai" })).toContain(`button "Act ${SECTIONS - 1}"`)
    } finally {
      await other.close()
    }
  }, 60_000)

  it("on a page of shadow trees, slots, owned elements, closed details and iframes, every line read is the whole read's", async () => {
    const targetId = await open(pages.url("/mixed"))
    for (const [bounded, whole] of [["&limit=20000", "&limit=10000000"], ["&limit=4000&interactive=true", "&limit=10000000&interactive=true"]]) {
      const part = await take(targetId, bounded!)
      expect(part.snapshot.split("\n").pop()).toContain("the rest of the page was not read")
      const all = new Set((await take(targetId, whole!)).snapshot.split("\n"))
      const lines = part.snapshot.split("\n").slice(0, -1)
      expect(lines.length).toBeGreaterThan(40)
      expect(lines.filter((line) => !all.has(line))).toEqual([])
    }
  }, 60_000)

  it("fields keep the names their labels give, in the document and in shadow trees, read after read", async () => {
    const targetId = await open(pages.url("/labels"))
    for (let read = 0; read < 2; read++) {
      const text = (await snapshot(targetId)).snapshot
      for (const line of ['textbox "Email"', 'textbox "Phone"', 'textbox "Shadow name"', 'button "Shadow go"', 'textbox "Bare field"', 'button "Bare go"', 'button "Go"', 'combobox "Plan"']) {
        expect(text, text).toContain(`- ${line}`)
      }
    }
  })

  it("never ends a read inside an element named by its content", async () => {
    const targetId = await open(pages.url("/table"))
    const world = await tabSession(cdpUrl, targetId)
    try {
      const bounded = await snapshot(targetId, "&limit=20000")
      expect(bounded.truncated).toBe(true)
      expect(bounded.snapshot.split("\n").pop()).toContain("the rest of the page was not read")
      // A row takes its name from its cells: the read ends after a whole row, never inside one.
      const cellsRead: Array<number> = await world.evaluateInUtility(
        `[...document.querySelectorAll("tr")].map((tr) => [...tr.cells].filter((td) => td._ariaRef !== undefined).length)`
      )
      const whole = cellsRead.filter((n) => n === 24).length
      expect(whole).toBeGreaterThan(5)
      expect(whole).toBeLessThan(400)
      expect(cellsRead.slice(0, whole).every((n) => n === 24)).toBe(true)
      expect(cellsRead.slice(whole).every((n) => n === 0)).toBe(true)
    } finally {
      world.close()
    }
  }, 60_000)
})
