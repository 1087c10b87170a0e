import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freeCdpPort, type Gateway, servePages, startGateway, svcSucceeds } from "../support/gateway.js"
import { refOf } from "../support/refs.js"

// Snapshots show what the agent typed, checked, chose and expanded, in every mode, through the real path
// (bin/svc → gateway → playwright-core → Chromium); a password's value never appears in any of them. And an
// efficient snapshot keeps a control nested deep, or says what it left out.

// Quotes and a backslash: playwright prints such a value escaped; neither form may appear.
const SECRET = 'hun"ter2\\Sekrit!'
const SECRET_PART = "Sekrit"
const FRAME_SECRET = "frame-Sekrit-42"

const frameDoc = `<label>Frame user <input id="fu"></label><label>Frame pass <input type="password" id="fp"></label>`

const form = `<!doctype html><html><head><title>Values</title></head><body>
<h1>Sign up</h1>
<form onsubmit="event.preventDefault()">
  <label>Full name <input id="name" placeholder="Your name"></label>
  <label>Nickname <input id="nick" placeholder="Type a nickname"></label>
  <label>Bio <textarea id="bio" placeholder="About you"></textarea></label>
  <div contenteditable="true" role="textbox" aria-label="Editor" id="editor" style="min-height:20px;border:1px solid"></div>
  <div contenteditable="true" role="textbox" aria-label="Story"><p>Once upon</p><p>a time</p></div>
  <label>Password <input type="password" id="pw" placeholder="Choose a password"></label>
  <label><input type="checkbox" id="agree"> Agree</label>
  <label><input type="checkbox" id="news"> News</label>
  <label>Country <select id="country"><option>France</option><option>Germany</option><option>Italy</option></select></label>
  <button type="button" aria-expanded="false" id="menu"
    onclick="this.setAttribute('aria-expanded', String(this.getAttribute('aria-expanded') !== 'true'))">Menu</button>
  <button type="button" aria-expanded="false">Filters</button>
</form>
<iframe title="login" srcdoc='${frameDoc}'></iframe>
</body></html>`

const nest = (levels: number, inner: string): string =>
  levels === 0 ? inner : `<ul><li>Level ${levels}${nest(levels - 1, inner)}</li></ul>`
const deep = `<!doctype html><title>Deep</title><h1>Docs</h1>
<nav aria-label="Contents">${nest(12, `<a href="#deepest">Deepest section</a>`)}</nav>
<main>${nest(5, `<button type="button">Deep button</button>`)}</main>`

// A page that hides its password fields' values from scripts of its own world (the getter answers ""); the
// value itself stays in the field, and the accessibility tree has it.
const HIDE_PASSWORDS = `<script>
  const real = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")
  Object.defineProperty(HTMLInputElement.prototype, "value", {
    get() { return this.type === "password" ? "" : real.get.call(this) },
    set(v) { real.set.call(this, v) },
    configurable: true
  })
</script>`
const HIDDEN_SECRET = "hidden-Sekrit-7"
const hostile = `<!doctype html><title>Hostile</title>
<label>Secret <input type="password" id="hp"></label>
${HIDE_PASSWORDS}`

// The same, inside an iframe of a page that does nothing of the kind.
const FRAME_HIDDEN_SECRET = "framed-Sekrit-9"
const hostileFrameDoc = `<label>Framed secret <input type="password" id="fhp"></label>
${HIDE_PASSWORDS}`
const hostileFrame = `<!doctype html><title>Hostile frame</title><h1>Outer</h1>
<iframe title="inner" src="/hostile-frame-doc"></iframe>`
// ...and inside an iframe of another site (localhost beside 127.0.0.1), which Chromium runs in a process of its own.
const hostileOtherSite = `<!doctype html><title>Hostile other site</title><h1>Outer</h1><iframe title="inner" id="inner"></iframe>
<script>document.getElementById("inner").src = location.protocol + "//localhost:" + location.port + "/hostile-frame-doc"</script>`

const lineOf = (snapshot: string, pattern: RegExp) => snapshot.split("\n").find((l) => pattern.test(l))

describe("snapshots show the state of controls", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>
  /** The hostile frame's document on another port: another origin of the same site, in the same process. */
  let otherOrigin: Awaited<ReturnType<typeof servePages>>
  const svcOk = (...args: Array<string>) => svcSucceeds(gw, ...args)

  beforeAll(async () => {
    otherOrigin = await servePages({ "/hostile-frame-doc": hostileFrameDoc })
    pages = await servePages({
      "/hostile-other-origin": `<!doctype html><title>Hostile other origin</title><h1>Outer</h1>
<iframe title="inner" src="${otherOrigin.url("/hostile-frame-doc")}"></iframe>`,
      "/form": form,
      "/deep": deep,
      "/hostile": hostile,
      "/hostile-frame": hostileFrame,
      "/hostile-frame-doc": hostileFrameDoc,
      "/hostile-other-site": hostileOtherSite,
      "/canvas": `<!doctype html><title>Drawn</title><canvas width="300" height="100"></canvas><div id="empty"></div>`
    })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } } })
    await gw.svc("browser", "open", pages.url("/form"))
  })
  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
    await otherOrigin?.close()
  })

  it("after typing, checking, choosing and expanding, every mode shows the values; no mode shows a password", async () => {
    const before = await svcOk("browser", "snapshot")
    expect(lineOf(before, /textbox "Full name"/)).toContain('[placeholder="Your name"]')
    expect(lineOf(before, /button "Menu"/)).toContain("[collapsed]")
    expect(lineOf(before, /checkbox "Agree"/)).toContain("[unchecked]")

    await svcOk("browser", "type", refOf(before, /textbox "Full name"/), "Ada Lovelace")
    await svcOk("browser", "type", refOf(before, /textbox "Bio"/), "Writes programs")
    await svcOk("browser", "type", refOf(before, /textbox "Editor"/), "Rich notes here")
    await svcOk("browser", "type", refOf(before, /textbox "Password"/), SECRET)
    await svcOk("browser", "type", refOf(before, /textbox "Frame pass"/), FRAME_SECRET)
    await svcOk("browser", "type", refOf(before, /textbox "Frame user"/), "frameuser")
    await svcOk("browser", "click", refOf(before, /checkbox "Agree"/))
    await svcOk("browser", "select", refOf(before, /combobox "Country"/), "Germany")
    await svcOk("browser", "click", refOf(before, /button "Menu"/))

    const modes: Array<Array<string>> = [
      [],
      ["--format", "role"],
      ["--interactive"],
      ["--compact"],
      ["--efficient"],
      ["--depth", "12"],
      ["--selector", "form"],
      ["--interactive", "--selector", "form"]
    ]
    for (const mode of modes) {
      const snap = await svcOk("browser", "snapshot", ...mode)
      const where = `mode ${mode.join(" ") || "ai"}:\n${snap}`
      expect(lineOf(snap, /textbox "Full name"/), where).toMatch(/: Ada Lovelace$/)
      expect(snap, where).not.toContain("Your name") // a filled field's placeholder is gone
      expect(lineOf(snap, /textbox "Nickname"/), where).toContain('[placeholder="Type a nickname"]')
      expect(lineOf(snap, /textbox "Bio"/), where).toMatch(/: Writes programs$/)
      expect(lineOf(snap, /textbox "Editor"/), where).toMatch(/: Rich notes here$/)
      expect(lineOf(snap, /textbox "Password"/), where).toMatch(/: ••••••••$/)
      expect(lineOf(snap, /textbox "Story"/), where).toContain('[value="Once upon a time"]')
      expect(lineOf(snap, /checkbox "Agree"/), where).toContain("[checked]")
      expect(lineOf(snap, /checkbox "News"/), where).toContain("[unchecked]")
      expect(lineOf(snap, /combobox "Country"/), where).toContain('[value="Germany"]')
      expect(lineOf(snap, /button "Menu"/), where).toContain("[expanded]")
      expect(lineOf(snap, /button "Filters"/), where).toContain("[collapsed]")
      expect(snap, where).not.toContain(SECRET_PART)
      expect(snap, where).not.toContain(FRAME_SECRET)
    }

    // Inside the iframe: the AI snapshot includes it; a role snapshot of the frame shows it on its own.
    const ai = await svcOk("browser", "snapshot")
    expect(lineOf(ai, /textbox "Frame user"/)).toMatch(/: frameuser$/)
    expect(lineOf(ai, /textbox "Frame pass"/)).toMatch(/: ••••••••$/)
    const framed = await svcOk("browser", "snapshot", "--frame", "iframe[title=login]")
    expect(lineOf(framed, /textbox "Frame user"/)).toMatch(/: frameuser$/)
    expect(lineOf(framed, /textbox "Frame pass"/)).toMatch(/: ••••••••$/)
    expect(framed).not.toContain(FRAME_SECRET)

    // The accessibility-tree format (over CDP) says the same.
    const aria = await svcOk("browser", "snapshot", "--format", "aria")
    expect(lineOf(aria, /textbox "Full name"/), aria).toMatch(/: Ada Lovelace$/)
    expect(lineOf(aria, /checkbox "News"/), aria).toContain("[unchecked]")
    expect(lineOf(aria, /checkbox "Agree"/), aria).toContain("[checked]")
    expect(lineOf(aria, /button "Filters"/), aria).toContain("[collapsed]")
    expect(lineOf(aria, /button "Menu"/), aria).toContain("[expanded]")
    expect(lineOf(aria, /textbox "Password"/), aria).toMatch(/: ••••••••$/) // the same mask, whatever the length

    // Nor in the JSON answer, nor in the accessibility-tree format.
    for (const mode of [["--json"], ["--interactive", "--json"], ["--format", "aria"], ["--format", "aria", "--json"]]) {
      const out = await svcOk("browser", "snapshot", ...mode)
      expect(out, mode.join(" ")).not.toContain(SECRET_PART)
      expect(out, mode.join(" ")).not.toContain(FRAME_SECRET)
    }
  })

  it("an efficient snapshot keeps a button five lists deep and a deep table of contents", async () => {
    await svcOk("browser", "navigate", pages.url("/deep"))
    const eff = await svcOk("browser", "snapshot", "--efficient")
    expect(eff).toMatch(/- button "Deep button" \[ref=e\d+\]/)
    expect(eff).toMatch(/- link "Deepest section" \[ref=e\d+\]/)
    // A depth the caller asks for still applies, and says what it left out and how to see it.
    const shallow = await svcOk("browser", "snapshot", "--depth", "3")
    expect(shallow).not.toContain("Deep button")
    expect(shallow.trimEnd().split("\n").pop()).toBe(
      "[2 interactive element(s) deeper than --depth 3 not shown; `--interactive` lists them all]"
    )
    // A cut names what was left out, and suggests no mode already in use.
    const cut = await svcOk("browser", "snapshot", "--efficient", "--limit", "60")
    const notice = cut.trimEnd().split("\n").pop()!
    expect(notice).toMatch(/truncated at the 60-character limit: \d+ more line\(s\) not shown, \d+ of them interactive/)
    expect(notice).not.toMatch(/--efficient|--interactive/)
  })

  it("a page that hides a password's value from its own scripts still has it masked in every mode", async () => {
    await svcOk("browser", "navigate", pages.url("/hostile"))
    const before = await svcOk("browser", "snapshot")
    await svcOk("browser", "type", refOf(before, /textbox "Secret"/), HIDDEN_SECRET)
    for (const mode of [[], ["--interactive"], ["--efficient"], ["--format", "role"]]) {
      const snap = await svcOk("browser", "snapshot", ...mode)
      expect(lineOf(snap, /textbox "Secret"/), `mode ${mode.join(" ") || "ai"}:\n${snap}`).toMatch(/: ••••••••$/)
      expect(snap).not.toContain(HIDDEN_SECRET)
    }
  })

  it("an iframe, of the same origin, of another origin or of another site, that hides a password's value from its own scripts still has it masked", async () => {
    for (const page of ["/hostile-frame", "/hostile-other-origin", "/hostile-other-site"]) {
      await svcOk("browser", "navigate", pages.url(page))
      // The other site's frame loads after its page (its address is set by a script): until it shows.
      let before = await svcOk("browser", "snapshot")
      for (let i = 0; i < 50 && !/textbox "Framed secret"/.test(before); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        before = await svcOk("browser", "snapshot")
      }
      await svcOk("browser", "type", refOf(before, /textbox "Framed secret"/), FRAME_HIDDEN_SECRET)
      // The AI snapshot shows the iframe's controls, and a role snapshot of the frame does.
      for (const mode of [[], ["--frame", "iframe[title=inner]"], ["--frame", "iframe[title=inner]", "--interactive"]]) {
        const snap = await svcOk("browser", "snapshot", ...mode)
        expect(lineOf(snap, /textbox "Framed secret"/), `${page}, mode ${mode.join(" ") || "ai"}:\n${snap}`).toMatch(/: ••••••••$/)
        expect(snap).not.toContain(FRAME_HIDDEN_SECRET)
      }
      for (const mode of [["--interactive"], ["--efficient"], ["--format", "role"], ["--format", "aria"]]) {
        expect(await svcOk("browser", "snapshot", ...mode), `${page}, mode ${mode.join(" ")}`).not.toContain(FRAME_HIDDEN_SECRET)
      }
    }
  })

  // Last: it opens and closes a tab of its own (the tab the tests above use is the current one until then).
  it("a page with nothing to read says so in every format, instead of answering an empty text", async () => {
    const { targetId } = JSON.parse(await svcOk("browser", "open", pages.url("/canvas"), "--json")) as { targetId: string }
    try {
      const tab = ["--target-id", targetId]
      for (const format of ["ai", "role", "aria"]) {
        expect((await svcOk("browser", "snapshot", "--format", format, ...tab)).trim()).toMatch(/^\[nothing to read in the page: it is empty.*a screenshot shows what it looks like\]$/)
      }
      expect((await svcOk("browser", "snapshot", "--interactive", ...tab)).trim()).toMatch(/^\[no interactive elements in the page: a full snapshot/)
      expect((await svcOk("browser", "snapshot", "--selector", "#empty", ...tab)).trim()).toMatch(/^\[nothing to read in "#empty": /)
      // JSON says the same; the stats still count the page's lines (none).
      const json = JSON.parse(await svcOk("browser", "snapshot", "--json", ...tab)) as { snapshot: string; stats: { lines: number } }
      expect(json.snapshot).toMatch(/^\[nothing to read in the page/)
      expect(json.stats.lines).toBe(0)
    } finally {
      await svcOk("browser", "close", targetId)
    }
  })
})
