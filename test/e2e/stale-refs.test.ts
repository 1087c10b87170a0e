import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { FRESH_SNAPSHOT_HINT } from "../../src/browser/act/Refs.js"
import { freeCdpPort, type Gateway, request, servePages, startGateway } from "../support/gateway.js"

// Stale refs never act on another element, through the real path (bin/svc → gateway → playwright →
// Chromium) on lists that re-render under the agent's feet: each click either hits the row its snapshot
// showed or fails at once with the fresh-snapshot hint.

/** What the page did, in order: `removed Alpha`, `opened Bravo`, `kept`. */
const recorder = `<p id="out">nothing yet</p><button id="keep" onclick="record('kept')">Keep</button>
<script>window.clicks = []; window.gen = 0;
function record(what) { window.clicks.push(what); document.getElementById('out').textContent = what }</script>`

/** Rebuilt from scratch every 500 ms, rows rotated each time: four identical "Remove" buttons. */
const rebuilt = `<!doctype html><title>Rebuilt</title>${recorder}<ul id="list"></ul>
<script>
let names = ["Alpha", "Bravo", "Charlie", "Delta"]
function render() {
  document.getElementById('list').replaceChildren(...names.map((n) => {
    const li = document.createElement('li')
    const label = document.createElement('span')
    label.textContent = n
    const b = document.createElement('button')
    b.textContent = 'Remove'
    b.onclick = () => record('removed ' + n)
    li.append(label, ' ', b)
    return li
  }))
  names.push(names.shift())
  window.gen++
}
render()
setInterval(render, 500)
</script>`

/** The same four nodes every time, relabelled every 500 ms: "Open Alpha" moves down a row. */
const reused = `<!doctype html><title>Reused</title>${recorder}<ul id="list"></ul>
<script>
let names = ["Alpha", "Bravo", "Charlie", "Delta"]
const list = document.getElementById('list')
for (let i = 0; i < 4; i++) {
  const li = document.createElement('li')
  const b = document.createElement('button')
  b.onclick = () => record('opened ' + b.textContent.slice('Open '.length))
  li.append(b)
  list.append(li)
}
function render() {
  names.forEach((n, i) => { list.children[i].firstChild.textContent = 'Open ' + n })
  names.push(names.shift())
  window.gen++
}
render()
setInterval(render, 500)
</script>`

/** A row that is relabelled the moment the pointer reaches it: after any check of the ref, before the press. */
const underPointer = `<!doctype html><title>Under pointer</title>${recorder}
<button id="row" onclick="record('opened ' + this.textContent.slice('Open '.length))"
  onpointerover="this.textContent = 'Open Bravo'">Open Alpha</button>`

/** A page that moves on as it loads (a meta refresh), to one with a button. */
const moves = `<!doctype html><title>Moving</title><meta http-equiv="refresh" content="0;url=/landed"><p>moving on</p>`
const landed = `<!doctype html><title>Landed</title>${recorder}<button onclick="record('landed')">Stay here</button>`

const ROWS = ["Alpha", "Bravo", "Charlie", "Delta"]
const CLICKS = 20

interface Target {
  readonly ref: string
  /** What the page must record when the click hits the element the snapshot showed. */
  readonly expected: string
}

/** The ref of the button of `row` and what clicking it must do, read from the snapshot text. */
const targetIn = (snapshot: string, page: "rebuilt" | "reused", row: string): Target => {
  const lines = snapshot.split("\n")
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const ref = /\[ref=([^\]]+)\]/.exec(line)?.[1]
    if (ref === undefined) continue
    if (page === "reused" && line.includes(`button "Open ${row}"`)) return { ref, expected: `opened ${row}` }
    // The rebuilt list: the row's label is the text just above its button.
    if (page === "rebuilt" && line.includes('button "Remove"') && lines.slice(Math.max(0, i - 2), i).some((l) => l.includes(`text: ${row}`))) {
      return { ref, expected: `removed ${row}` }
    }
  }
  throw new Error(`no button for ${row} in:\n${snapshot}`)
}

describe("stale refs never act on another element", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>

  const clicks = async (): Promise<Array<string>> =>
    JSON.parse((await gw.svc("browser", "evaluate", "--fn", "() => window.clicks", "--json")).stdout).result

  const open = async (path: string) => {
    expect((await gw.svc("browser", "navigate", pages.url(path))).code).toBe(0)
  }

  beforeAll(async () => {
    pages = await servePages({ "/rebuilt": rebuilt, "/reused": reused, "/under-pointer": underPointer, "/moves": moves, "/landed": landed })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } } })
    await gw.svc("browser", "open", pages.url("/rebuilt"))
  }, 60_000)
  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
  })

  for (const page of ["rebuilt", "reused"] as const) {
    for (const style of ["ai", "role"] as const) {
      it(`${page} list, ${style === "ai" ? "AI numeric refs" : "role refs e<n>"}: every click hits the row its snapshot showed, or fails fast`, async () => {
        await open(`/${page}`)
        const expected: Array<string> = []
        let refused = 0
        for (let i = 0; i < CLICKS; i++) {
          const snap = await gw.svc("browser", "snapshot", ...(style === "role" ? ["--format", "role"] : []))
          expect(snap.code).toBe(0)
          const target = targetIn(snap.stdout, page, ROWS[i % ROWS.length]!)
          if (style === "ai") expect(target.ref).toMatch(/^\d+$/)
          else expect(target.ref).toMatch(/^e\d+$/)
          // Every fifth click, the list is re-rendered between the snapshot and the click for certain; the
          // page's own timer makes the rest land wherever they fall.
          if (i % 5 === 4) expect((await gw.svc("browser", "evaluate", "--fn", "() => render()")).code).toBe(0)
          const click = await gw.svc("browser", "click", target.ref)
          if (click.code === 0) {
            expect(click.stdout).toContain(`clicked ${target.ref}`)
            expected.push(target.expected)
          } else {
            // Refused: at once, and saying how to get a ref that can be trusted (from the check of the ref,
            // or from the action when the element went away between the check and the events).
            expect(click.stderr).toMatch(/take a fresh snapshot/)
            if (!/removed from the page|no element matches this ref any more/.test(click.stderr)) {
              expect(click.stderr).toContain(FRESH_SNAPSHOT_HINT)
            }
            expect(click.ms).toBeLessThan(5_000)
            refused++
          }
        }
        // The page saw exactly the clicks that succeeded, each on the row its snapshot showed.
        expect(await clicks()).toEqual(expected)
        if (page === "reused") {
          // Most clicks land: a relabelled row's label is found again where it is the only one.
          expect(expected.length).toBeGreaterThan(refused)
        } else {
          // The rows were rebuilt under the agent between its snapshot and its click (every fifth time for
          // certain): those clicks were refused rather than sent to whichever row now stands there.
          expect(refused).toBeGreaterThanOrEqual(CLICKS / 5)
        }
      }, 180_000)
    }

    it(`${page} list: a ref of an element that did not change keeps working while the list re-renders`, async () => {
      await open(`/${page}`)
      for (const format of ["ai", "role"]) {
        const snap = (await gw.svc("browser", "snapshot", "--format", format)).stdout
        const keep = /button "Keep" \[ref=([^\]]+)\]/.exec(snap)?.[1]
        expect(keep, snap).toBeDefined()
        const gen = JSON.parse((await gw.svc("browser", "evaluate", "--fn", "() => window.gen", "--json")).stdout).result as number
        // Let the list re-render twice.
        expect((await gw.svc("browser", "wait", "--fn", `() => window.gen >= ${gen + 2}`)).code).toBe(0)
        const click = await gw.svc("browser", "click", keep!)
        expect(click.code, click.stderr).toBe(0)
        expect((await clicks()).at(-1)).toBe("kept")
      }
    }, 60_000)
  }

  it("a snapshot of a page that moved on while it was read: its refs are the new page's, and act", async () => {
    const auth = { authorization: `Bearer ${gw.token()}` }
    let landedSnapshots = 0
    for (let i = 0; i < 6; i++) {
      expect((await request(gw.controlPort, "POST", "/navigate", auth, { url: pages.url("/moves") })).status).toBe(200)
      // Asked at once: the refresh commits the next document while the snapshot reads.
      for (const query of ["", "?format=role&interactive=true"]) {
        const snap = (await request(gw.controlPort, "GET", `/snapshot${query}`, auth)).json()
        if (snap.url !== pages.url("/landed")) continue
        landedSnapshots++
        const ref = /button "Stay here" \[ref=([^\]]+)\]/.exec(snap.snapshot)?.[1]
        expect(ref, snap.snapshot).toBeDefined()
        const clicked = await request(gw.controlPort, "POST", "/act", auth, { kind: "click", ref })
        expect(clicked.status, clicked.body).toBe(200)
      }
    }
    expect(landedSnapshots).toBeGreaterThan(0)
  }, 60_000)

  it("a row relabelled while the click is under way is not clicked, and the click says so", async () => {
    for (const format of ["ai", "role"]) {
      await open("/under-pointer")
      const snap = (await gw.svc("browser", "snapshot", "--format", format)).stdout
      const ref = /button "Open Alpha" \[ref=([^\]]+)\]/.exec(snap)?.[1]
      expect(ref, snap).toBeDefined()
      const click = await gw.svc("browser", "click", ref!)
      expect(click.code).not.toBe(0)
      expect(click.stderr).toContain("changed")
      expect(click.stderr).toContain(FRESH_SNAPSHOT_HINT)
      expect(click.ms).toBeLessThan(5_000)
      // The page saw no click at all, so "Open Bravo" was not opened in Alpha's place.
      expect(await clicks()).toEqual([])
    }
  }, 60_000)
})
