import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freeCdpPort, type Gateway, request, servePages, startGateway, svcSucceeds } from "../support/gateway.js"
import { refOf } from "../support/refs.js"

// Text typed by ref without the library's waits (act/quickType.ts) must still go in as the library puts it,
// through the real path (bin/svc → gateway → Chromium): replacing what the field held, as the browser's own
// text input (trusted beforeinput and input events); into text fields, text areas (line breaks kept) and
// rich-text editors; a page that moves the focus the moment the field gets it never has the text land in the
// other field; and fields it cannot fill at once (a number, a read-only field) go the library's way.

const fields = `<!doctype html><title>Fields</title><script>window.log = []</script>
<label>Name <input id="name" value="old text"></label>
<label>Email <input id="email" type="email"></label>
<label>Bio <textarea id="bio"></textarea></label>
<div id="notes" contenteditable="true" role="textbox" aria-label="Notes">old notes</div>
<label>Age <input id="age" type="number"></label>
<label>Code <input id="code" readonly value="fixed"></label>
<script>
  for (const id of ["name", "email", "bio", "notes"]) for (const t of ["beforeinput", "input"]) {
    document.getElementById(id).addEventListener(t, (e) => window.log.push(id + " " + t + " " + e.isTrusted))
  }
</script>`

/** The first time the field gets the focus, the page moves it to the other field: at once, or a moment later. */
const thief = (later: boolean) => `<!doctype html><title>Thief</title>
<label>First <input id="first"></label><label>Second <input id="second"></label>
<script>
  document.getElementById("first").addEventListener("focus", () => {
    if (window.moved) return
    window.moved = true
    const move = () => document.getElementById("second").focus()
    ${later ? "setTimeout(move, 0)" : "move()"}
  })
</script>`

describe("text typed by ref goes in as the library puts it, at once where it can", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePages>>
  const svcOk = (...args: Array<string>) => svcSucceeds(gw, ...args)
  const evaluate = async (fn: string): Promise<unknown> => JSON.parse(await svcOk("browser", "evaluate", "--fn", fn, "--json")).result
  const type = (ref: string, text: string) =>
    request(gw.controlPort, "POST", "/act", { authorization: `Bearer ${gw.token()}` }, { kind: "type", ref, text })

  beforeAll(async () => {
    pages = await servePages({ "/fields": fields, "/thief": thief(false), "/thief-later": thief(true) })
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } } })
    await gw.svc("browser", "open", pages.url("/fields"))
  }, 60_000)
  afterAll(async () => {
    await gw?.stop()
    await pages?.close()
  })

  it("replaces a field's text as trusted text input, in text fields, text areas and editors, the quick way", async () => {
    await svcOk("browser", "navigate", pages.url("/fields"))
    const snap = await svcOk("browser", "snapshot")
    for (const [re, id, text] of [
      [/textbox "Name"/, "name", "Ada Lovelace"],
      [/textbox "Email"/, "email", "ada@example.test"],
      [/textbox "Bio"/, "bio", "First line\nsecond line"],
      [/textbox "Notes"/, "notes", "new notes"]
    ] as const) {
      const r = await type(refOf(snap, re), text)
      expect(r.status, r.body).toBe(200)
      expect(String(r.headers["server-timing"]), id).toMatch(/(^|, )quick;dur=/)
      expect(String(r.headers["server-timing"]), id).not.toMatch(/library;dur=/)
    }
    expect(await evaluate("() => ['name', 'email', 'bio'].map((id) => document.getElementById(id).value)" +
      ".concat(document.getElementById('notes').innerText.trim())"))
      .toEqual(["Ada Lovelace", "ada@example.test", "First line\nsecond line", "new notes"])
    // Each field got the browser's text input once: one beforeinput, then its input (a text area's line break
    // makes the browser insert in parts), all trusted, in the order typed.
    const log = await evaluate("() => window.log") as Array<string>
    expect(log.every((e) => e.endsWith(" true")), log.join(", ")).toBe(true)
    expect(log.filter((e) => e.includes("beforeinput"))).toEqual(["name", "email", "bio", "notes"].map((id) => `${id} beforeinput true`))
    expect([...new Set(log.map((e) => e.split(" ")[0]))]).toEqual(["name", "email", "bio", "notes"])
    // Typed again: replaced, not appended.
    expect((await type(refOf(snap, /textbox "Name"/), "Grace")).status).toBe(200)
    expect(await evaluate("() => document.getElementById('name').value")).toBe("Grace")
  }, 60_000)

  it("a number field and a read-only field go the library's way (set, or refused)", async () => {
    await svcOk("browser", "navigate", pages.url("/fields"))
    const snap = await svcOk("browser", "snapshot")
    const age = await type(refOf(snap, /spinbutton "Age"/), "42")
    expect(age.status, age.body).toBe(200)
    expect(String(age.headers["server-timing"])).toMatch(/library;dur=/)
    expect(await evaluate("() => document.getElementById('age').value")).toBe("42")
    const code = await request(gw.controlPort, "POST", "/act", { authorization: `Bearer ${gw.token()}` }, {
      kind: "type",
      ref: refOf(snap, /textbox "Code"/),
      text: "changed",
      timeoutMs: 1_500
    })
    expect(code.status, code.body).toBeGreaterThanOrEqual(400)
    expect(await evaluate("() => document.getElementById('code').value")).toBe("fixed")
  }, 60_000)

  it("a page that moves the focus as the field gets it, or a moment later, never has the text land in the other field", async () => {
    for (const path of ["/thief", "/thief-later"]) {
      await svcOk("browser", "navigate", pages.url(path))
      const snap = await svcOk("browser", "snapshot")
      const r = await type(refOf(snap, /textbox "First"/), "mine")
      expect(r.status, r.body).toBe(200)
      expect(await evaluate("() => ['first', 'second'].map((id) => document.getElementById(id).value)"), path).toEqual(["mine", ""])
    }
  }, 60_000)
})
