import { describe, expect, it } from "vitest"
import { emptySnapshotNotice, orEmptyNotice } from "../../../src/browser/snapshot/EmptyNotice.js"
import { snapshotNoticesAsParameters } from "../../../src/client/hints.js"
import { renderAiSnapshot } from "../../../src/browser/snapshot/AiSnapshot.js"
import { nameOf, parseLineHead } from "../../../src/browser/snapshot/AriaLine.js"
import { foldControlState, PASSWORD_MASK } from "../../../src/browser/snapshot/ControlLines.js"
import { parseRoleSnapshot, renderRoleSnapshot } from "../../../src/browser/snapshot/RoleSnapshot.js"
import { EFFICIENT_LIMIT, resolveSnapshotOptions } from "../../../src/browser/snapshot/SnapshotOptions.js"

// The pure parts of snapshots: line parsing, renumbering, nth, the filters and the character cap.
// The texts below are what playwright-core 1.65 prints (copied from real runs against Chromium).

const AI_FORM = `- generic [active] [ref=f3e1]:
  - heading "Form page" [level=1] [ref=f3e2]
  - generic [ref=f3e3]:
    - text: Your name
    - textbox "Your name" [ref=f3e4]
    - combobox "Colour" [ref=f3e6]:
      - option "Red" [selected]
      - option "Green"
    - button "Save" [ref=f3e9]
    - button "Save" [ref=f3e10]
  - link "Go other" [ref=f3e14] [cursor=pointer]:
    - /url: /other
  - iframe [ref=f3e15]:
    - generic [ref=f4e1]:
      - heading "Frame" [level=2] [ref=f4e2]
      - button "Frame button" [ref=f4e3]
  - button "[ref=e1]" [ref=f3e16]
  - 'button "x: y" [ref=f3e17]'
  - paragraph: text with [ref=e99] inside`

const ROLE_FORM = `- heading "Form page" [level=1]
- text: Your name
- textbox "Your name"
- textbox "Email"
- textbox: multi line
- combobox "Colour":
  - option "Red" [selected]
  - option "Green"
- checkbox "Subscribe"
- button "Save"
- button "Save"
- list:
  - listitem:
    - link "Docs":
      - /url: /docs
  - listitem: plain text
- group:
  - paragraph: nothing to act on
- navigation "Main":
  - list:
    - listitem:
      - link "Home":
        - /url: /
- iframe`

const numbering = () => {
  let n = 0
  return () => ++n
}

describe("parseLineHead", () => {
  it("reads role, name, attributes and ref", () => {
    const line = '  - button "Save" [disabled] [ref=e9]'
    const head = parseLineHead(line, 2)!
    expect(head.role).toBe("button")
    expect(nameOf(line, head)).toBe("Save")
    expect(head.ref?.value).toBe("e9")
    expect(line.slice(head.attrsEnd)).toBe("")
  })

  it("reads YAML-quoted keys, escaped quotes and names that contain ref-like text", () => {
    const quoted = `- 'button "A \\"quoted\\": it''s" [ref=e2] [box=8,8,114,21]'`
    const head = parseLineHead(quoted, 0)!
    expect(head.quoted).toBe(true)
    expect(nameOf(quoted, head)).toBe(`A "quoted": it's`)
    expect(head.ref?.value).toBe("e2")
    expect(head.box?.value).toBe("8,8,114,21")
    expect(quoted.slice(head.attrsEnd)).toBe("'")

    const tricky = '- button "[ref=e1]" [ref=e23]'
    const h2 = parseLineHead(tricky, 0)!
    expect(nameOf(tricky, h2)).toBe("[ref=e1]")
    expect(h2.ref?.value).toBe("e23")
  })

  it("is undefined for props and non-element lines; text lines have role text", () => {
    expect(parseLineHead("  - /url: /other", 2)).toBeUndefined()
    expect(parseLineHead("plain", 0)).toBeUndefined()
    expect(parseLineHead("- text: Your name", 0)?.role).toBe("text")
    const withValue = '- textbox "Named box": v1'
    const h = parseLineHead(withValue, 0)!
    expect(withValue.slice(h.attrsEnd)).toBe(": v1")
  })
})

describe("renderAiSnapshot", () => {
  it("shows main-frame refs as numbers and iframe refs as playwright prints them", () => {
    const prefixes: Array<string> = []
    const r = renderAiSnapshot(AI_FORM, {
      limit: 80_000,
      baseFor: (p) => {
        prefixes.push(p)
        return 0
      }
    })
    expect(prefixes).toEqual(["f3"]) // asked once, with the main frame's prefix
    expect(r.text).toContain('- button "Save" [ref=9]')
    expect(r.text).toContain('- button "Save" [ref=10]')
    expect(r.text).toContain('- button "Frame button" [ref=f4e3]')
    expect(r.text).toContain('- link "Go other" [ref=14] [cursor=pointer]:')
    // Names and values are never rewritten, even when they look like refs; quoted keys keep their quotes.
    expect(r.text).toContain('- button "[ref=e1]" [ref=16]')
    expect(r.text).toContain(`- 'button "x: y" [ref=17]'`)
    expect(r.text).toContain("- paragraph: text with [ref=e99] inside")
    expect(r.text).not.toMatch(/\[ref=f3e/)
    expect(r.refs["9"]).toEqual({ role: "button", name: "Save" })
    expect(r.refs["f4e3"]).toEqual({ role: "button", name: "Frame button" })
    expect(r.refs["16"]).toEqual({ role: "button", name: "[ref=e1]" })
    expect(new Map(r.entries).get("9")).toEqual({ aria: "f3e9", role: "button", name: "Save" })
    expect(new Map(r.entries).get("f4e1")?.aria).toBe("f4e1")
    expect(r.maxMain).toBe(17)
    expect(r.truncated).toBe(false)
    expect(r.stats).toEqual({ lines: AI_FORM.split("\n").length, chars: r.text.length, refs: 14, interactive: 8 })
  })

  it("adds the base the tab gives the document", () => {
    const r = renderAiSnapshot(AI_FORM, { limit: 80_000, baseFor: () => 100 })
    expect(r.text).toContain('- button "Save" [ref=109]')
    expect(r.text).toContain("[ref=f4e3]")
    expect(r.maxMain).toBe(117)
  })

  it("a main frame that has not navigated has refs without prefix", () => {
    const r = renderAiSnapshot('- generic [ref=e1]:\n  - button "Go" [ref=e2]', { limit: 1000, baseFor: () => 0 })
    expect(r.text).toBe('- generic [ref=1]:\n  - button "Go" [ref=2]')
  })

  it("takes boxes out of the text and moves iframe content by the iframe's position", () => {
    const raw = `- generic [ref=e1] [box=0,0,800,600]:
  - button "Save" [ref=e2] [box=10,20,50,20]
  - iframe [ref=e3] [box=100,200,300,150]:
    - button "Inner" [ref=f1e2] [box=8,10,40,20]
  - 'button "a: b" [ref=e4] [box=1,2,3,4]'`
    const r = renderAiSnapshot(raw, { limit: 80_000, baseFor: () => 0 })
    expect(r.text).not.toContain("box=")
    expect(r.text).toContain(`- 'button "a: b" [ref=4]'`)
    const boxes = new Map(r.boxes.map((b) => [b.ref, b]))
    expect(boxes.get("2")).toEqual({ ref: "2", x: 10, y: 20, width: 50, height: 20 })
    expect(boxes.get("f1e2")).toEqual({ ref: "f1e2", x: 108, y: 210, width: 40, height: 20 })
    expect(boxes.get("4")).toEqual({ ref: "4", x: 1, y: 2, width: 3, height: 4 })
  })

  it("with showBoxes, keeps each box in its line in whole viewport pixels, an iframe's moved by its position", () => {
    const raw = `- generic [ref=e1] [box=0,0,800,600]:
  - button "Save" [ref=e2] [box=10.4,20.6,50,20]
  - iframe [ref=e3] [box=100,200,300,150]:
    - button "Inner" [ref=f1e2] [box=8,10,40,20]`
    const r = renderAiSnapshot(raw, { limit: 80_000, baseFor: () => 0, showBoxes: true })
    expect(r.text.split("\n")).toEqual([
      "- generic [ref=1] [box=0,0,800,600]:",
      '  - button "Save" [ref=2] [box=10,21,50,20]',
      "  - iframe [ref=3] [box=100,200,300,150]:",
      '    - button "Inner" [ref=f1e2] [box=108,210,40,20]'
    ])
  })

  it("cuts at the character cap on a line boundary, says so on the last line, and keeps only shown refs", () => {
    const r = renderAiSnapshot(AI_FORM, { limit: 400, baseFor: () => 0 })
    expect(r.truncated).toBe(true)
    expect(r.text.length).toBeLessThanOrEqual(400)
    const last = r.text.split("\n").pop()!
    expect(last).toMatch(/truncated at the 400-character limit: \d+ more line\(s\) not shown/)
    expect(last).toContain("--limit")
    const shown = [...r.text.matchAll(/\[ref=([^\]]+)\]/g)].map((m) => m[1])
    expect(Object.keys(r.refs).sort()).toEqual([...shown].sort())
    expect(r.entries.map(([k]) => k).sort()).toEqual([...shown].sort())
    expect(r.stats.lines).toBe(r.text.split("\n").length)
  })

  it("a cap too small for the whole notice still shows the page's first line, with a short notice", () => {
    const r = renderAiSnapshot(AI_FORM, { limit: 160, baseFor: () => 0 })
    expect(r.truncated).toBe(true)
    expect(r.text.length).toBeLessThanOrEqual(160)
    const lines = r.text.split("\n")
    expect(lines.length).toBeGreaterThanOrEqual(2)
    expect(lines[0]).toMatch(/^- /)
    expect(lines.pop()).toMatch(/^\[… truncated at 160 characters: \d+ more line\(s\); pass a higher limit\]$/)
    // With room, the notice is whole.
    expect(renderAiSnapshot(AI_FORM, { limit: 400, baseFor: () => 0 }).text).toContain("truncated at the 400-character limit")
  })

  it("stays linear on a large snapshot", () => {
    const page = (items: number) => {
      const lines = ["- generic [active] [ref=e1]:", "  - list [ref=e2]:"]
      for (let i = 0; i < items; i++) {
        lines.push(`    - listitem [ref=e${3 + 3 * i}]:`)
        lines.push(`      - link "Item ${i}" [ref=e${4 + 3 * i}] [cursor=pointer]:`)
        lines.push(`        - /url: "#i${i}"`)
        lines.push(`      - button "Act ${i}" [ref=e${5 + 3 * i}]`)
        lines.push(`      - text: note ${i}`)
      }
      return lines.join("\n")
    }
    // The fastest of a few runs (a loaded machine adds pauses, never speed) of a 40,000-line snapshot:
    // linear work takes ~0.1-0.25 s on a loaded machine, a quadratic pass over the lines would take many seconds.
    // Absolute times belong to npm run bench; this only catches a complexity regression.
    const raw = page(8000)
    let best = Number.POSITIVE_INFINITY
    for (let k = 0; k < 3; k++) {
      const t0 = performance.now()
      const r = renderAiSnapshot(raw, { limit: 10_000_000, baseFor: () => 0 })
      best = Math.min(best, performance.now() - t0)
      expect(r.stats.refs).toBe(24_002)
    }
    console.log(`renderAiSnapshot of 40,000 lines: ${best.toFixed(0)} ms`)
    expect(best).toBeLessThan(1_000)
  })
})

describe("role snapshots", () => {
  const render = (raw: string, o: Partial<Parameters<typeof renderRoleSnapshot>[1]> = {}) =>
    renderRoleSnapshot(parseRoleSnapshot(raw), {
      limit: 80_000,
      interactive: false,
      compact: false,
      depth: undefined,
      numberFor: numbering(),
      ...o
    })

  it("with showBoxes, keeps each ref's box in its line, moved by the read's offset (an iframe's)", () => {
    const r = render('- main:\n  - button "Go" [box=5,6,70,20]\n  - text: hi', { showBoxes: true, boxOffset: { x: 100, y: 200 } })
    expect(r.text).toContain('- button "Go" [ref=e1] [box=105,206,70,20]')
    expect(r.boxes).toEqual([{ ref: "e1", x: 105, y: 206, width: 70, height: 20 }])
    expect(render('- button "Go" [box=5,6,70,20]').text).toBe('- button "Go" [ref=e1]')
  })

  it("parses levels and parents", () => {
    const nodes = parseRoleSnapshot(ROLE_FORM)
    const option = nodes.find((n) => n.name === "Red")!
    expect(option.level).toBe(1)
    expect(nodes[option.parent]!.name).toBe("Colour")
    expect(nodes.find((n) => n.line.includes("/url"))!.role).toBe("")
    expect(nodes.find((n) => n.line.includes("text: Your name"))!.role).toBe("")
  })

  it("gives refs to interactive and named elements, nth to repeated role+name", () => {
    const r = render(ROLE_FORM)
    expect(r.text).toContain('- heading "Form page" [level=1] [ref=e1]')
    expect(r.text).toContain('- button "Save" [ref=e9] [nth=0]')
    expect(r.text).toContain('- button "Save" [ref=e10] [nth=1]')
    expect(r.text).toContain("- text: Your name") // kept as it is
    expect(r.text).toContain("- iframe") // no ref for iframes
    expect(r.text).not.toMatch(/- list \[ref/) // unnamed structure gets no ref
    expect(r.refs["e10"]).toEqual({ role: "button", name: "Save", nth: 1 })
    expect(r.refs["e1"]).toEqual({ role: "heading", name: "Form page" })
    const entries = new Map(r.entries)
    expect(entries.get("e10")).toMatchObject({ role: "button", name: "Save", nth: 1, count: 2 })
  })

  it("finds an unnamed element by role alone: nth and count run over every element of that role", () => {
    const r = render(ROLE_FORM)
    const unnamed = r.entries.find(([, e]) => e.role === "textbox" && e.name === undefined)!
    // Third textbox of three (two named before it): getByRole('textbox').nth(2).
    expect(unnamed[1]).toMatchObject({ nth: 2, count: 3 })
    expect(r.text).toContain(`- textbox [ref=${unnamed[0]}] [nth=2]: multi line`)
  })

  it("interactive: a flat list of interactive elements only", () => {
    const r = render(ROLE_FORM, { interactive: true })
    const lines = r.text.split("\n")
    expect(lines.every((l) => l.startsWith("- "))).toBe(true)
    expect(lines.map((l) => l.replace(/ \[ref=e\d+\]/, ""))).toEqual([
      '- textbox "Your name"',
      '- textbox "Email"',
      "- textbox [nth=2]: multi line",
      '- combobox "Colour"',
      '- option "Red" [selected]',
      '- option "Green"',
      '- checkbox "Subscribe"',
      '- button "Save" [nth=0]',
      '- button "Save" [nth=1]',
      '- link "Docs"',
      '- link "Home"'
    ])
    expect(r.stats.interactive).toBe(11)
    expect(r.stats.refs).toBe(11)
  })

  it("compact: drops unnamed structure (children move up) and branches without refs", () => {
    const r = render(ROLE_FORM, { compact: true })
    expect(r.text).not.toContain("- list")
    expect(r.text).not.toContain("- group")
    expect(r.text).not.toContain("paragraph")
    expect(r.text).not.toContain("/url")
    expect(r.text).not.toContain("text: Your name")
    expect(r.text).toMatch(/^- link "Docs" \[ref=e\d+\]$/m) // hoisted out of list > listitem, no dangling ":"
    expect(r.text).toMatch(/^- navigation "Main" \[ref=e\d+\]:\n {2}- link "Home" \[ref=e\d+\]$/m)
    expect(r.text).toMatch(/^- combobox "Colour" \[ref=e\d+\]:\n {2}- option "Red"/m)
  })

  it("depth: only the top levels", () => {
    const r = render(ROLE_FORM, { depth: 1 })
    expect(r.text).not.toContain("option")
    expect(r.text).not.toContain("listitem")
    expect(r.text).toMatch(/^- combobox "Colour" \[ref=e\d+\]$/m)
    // nth still counts what the depth hides, because resolution searches the whole page.
    const deep = render("- button \"A\"\n- group:\n  - button \"A\"\n- button \"A\"", { depth: 1 })
    expect(deep.text).toContain('- button "A" [ref=e1] [nth=0]')
    expect(deep.text).toContain('- button "A" [ref=e2] [nth=2]')
  })

  it("numbers come from the tab's registry (the same target keeps its number)", () => {
    const seen = new Map<string, number>()
    let next = 1
    const numberFor = (key: string) => {
      if (!seen.has(key)) seen.set(key, next++)
      return seen.get(key)!
    }
    const a = render(ROLE_FORM, { numberFor })
    const b = render(ROLE_FORM.replace('- heading "Form page" [level=1]\n', ""), { numberFor })
    const save = (r: typeof a) => r.entries.find(([, e]) => e.role === "button" && e.nth === 1)![0]
    expect(save(b)).toBe(save(a))
    expect(b.refs["e1"]).toBeUndefined() // the heading's number is not given to anything else
  })

  it("cuts at the cap, says so, and keeps only shown refs", () => {
    const many = Array.from({ length: 500 }, (_, i) => `- button "B${i}"`).join("\n")
    const r = render(many, { interactive: true, limit: 1000 })
    expect(r.truncated).toBe(true)
    expect(r.text.length).toBeLessThanOrEqual(1000)
    expect(r.text.split("\n").pop()).toMatch(/truncated at the 1000-character limit/)
    expect(Object.keys(r.refs).length).toBe(r.stats.refs)
    expect(r.stats.refs).toBe((r.text.match(/\[ref=/g) ?? []).length)
  })

  it("keeps quoted keys quoted and carries boxes", () => {
    const r = render(`- 'button "x: y" [box=1,2,3,4]'\n- textbox "Name" [box=5,6,7,8]: value`)
    expect(r.text).toBe(`- 'button "x: y" [ref=e1]'\n- textbox "Name" [ref=e2]: value`)
    expect(r.boxes).toEqual([
      { ref: "e1", x: 1, y: 2, width: 3, height: 4 },
      { ref: "e2", x: 5, y: 6, width: 7, height: 8 }
    ])
  })
})

describe("resolveSnapshotOptions", () => {
  it("AI by default with the 80,000-character cap", () => {
    expect(resolveSnapshotOptions({})).toMatchObject({ format: "ai", limit: 80_000, interactive: false })
    expect(resolveSnapshotOptions({ limit: 500 }).limit).toBe(500)
  })

  it("any role option makes a role snapshot", () => {
    for (const o of [{ interactive: true }, { compact: true }, { depth: 3 }, { selector: "main" }, { frame: "iframe" }]) {
      expect(resolveSnapshotOptions(o).format).toBe("role")
    }
  })

  it("efficient: interactive + compact + 10,000 characters, no depth limit, unless a limit is given", () => {
    expect(resolveSnapshotOptions({ efficient: true })).toMatchObject({
      format: "role",
      interactive: true,
      compact: true,
      depth: undefined,
      limit: EFFICIENT_LIMIT
    })
    expect(resolveSnapshotOptions({ efficient: true, depth: 4 }).depth).toBe(4)
    expect(resolveSnapshotOptions({ efficient: true, limit: 2000 }).limit).toBe(2000)
  })
})

// A form after typing, checking, choosing and expanding, as playwright-core 1.65 prints it (AI mode).
const AI_FILLED = `- generic [ref=e1]:
  - generic [ref=e4]:
    - text: Full name
    - textbox "Full name" [ref=e5]:
      - /placeholder: Your name
      - text: Ada
  - textbox "Empty" [ref=e7]:
    - /placeholder: Type here
  - textbox "Bio" [ref=e9]:
    - /placeholder: About you
    - text: Line one Line two
  - generic "Notes" [ref=e10]: My notes
  - textbox "Editor" [ref=e11]
  - textbox "Password" [ref=e13]:
    - /placeholder: secret
    - text: hunter2SECRET
  - checkbox "Agree" [checked] [ref=e15]
  - checkbox "News" [ref=e17]
  - switch "Dark" [checked] [ref=e22]
  - combobox "Country" [ref=e24]:
    - option "France"
    - option "Germany" [selected]
  - button "Menu" [ref=e31]
  - button "Other" [expanded] [ref=e32]
  - searchbox "Search" [ref=e33]: query
  - 'textbox "a: b" [ref=e34]':
    - /placeholder: it's empty
  - textbox "Pin" [ref=e35]: "1234"`

const CONTROLS = {
  passwords: ["hunter2SECRET", "1234"],
  disclosures: [{ role: "button", name: "Menu", expanded: false }, { role: "button", name: "Other", expanded: true }],
  editables: [{ name: "Editor", text: "Rich text here" }],
  unread: false
}

describe("foldControlState", () => {
  const folded = foldControlState(AI_FILLED, CONTROLS)
  const line = (pattern: RegExp) => folded.split("\n").find((l) => pattern.test(l))

  it("puts a field's value on its line, and its placeholder only while it is empty", () => {
    expect(line(/"Full name"/)).toBe('    - textbox "Full name" [ref=e5]: Ada')
    expect(line(/"Bio"/)).toBe('  - textbox "Bio" [ref=e9]: Line one Line two')
    expect(line(/"Empty"/)).toBe('  - textbox "Empty" [placeholder="Type here"] [ref=e7]')
    expect(line(/"Search"/)).toBe('  - searchbox "Search" [ref=e33]: query')
    expect(folded).not.toContain("/placeholder")
    expect(folded).not.toContain("Your name")
    // Quoted keys stay quoted, with the quote inside doubled.
    expect(line(/a: b/)).toBe(`  - 'textbox "a: b" [placeholder="it''s empty"] [ref=e34]'`)
  })

  it("shows that a password field is filled, never its value", () => {
    expect(line(/"Password"/)).toBe(`  - textbox "Password" [ref=e13]: ${PASSWORD_MASK}`)
    expect(line(/"Pin"/)).toBe(`  - textbox "Pin" [ref=e35]: ${PASSWORD_MASK}`)
    expect(folded).not.toContain("hunter2SECRET")
    expect(folded).not.toContain("secret")
    // A frame that could not be read: every value is masked rather than risk one.
    const unread = foldControlState(AI_FILLED, { ...CONTROLS, passwords: [], unread: true })
    expect(unread).not.toContain("hunter2SECRET")
    expect(unread).not.toContain(": Ada")
  })

  it("matches a password however playwright escaped it, and scrubs it wherever else it appears", () => {
    const secret = "pa\"ss \\ \u007fword"
    // As playwright prints it: double-quoted, \" \\ and \xHH escapes.
    const raw = [
      `- textbox "Pw" [ref=e1]:`,
      `  - /placeholder: x`,
      `  - text: "pa\\"ss \\\\ \\x7fword"`,
      `- paragraph [ref=e2]: You typed pa\\"ss \\\\ \\x7fword`,
      `- paragraph [ref=e3]: echo hunter2SECRET here`
    ].join("\n")
    const out = foldControlState(raw, { ...CONTROLS, passwords: [secret, "hunter2SECRET"] })
    expect(out.split("\n")[0]).toBe(`- textbox "Pw" [ref=e1]: ${PASSWORD_MASK}`)
    expect(out).not.toContain("hunter2SECRET")
    expect(out).toContain(`echo ${PASSWORD_MASK} here`)
    expect(out).not.toContain("x7fword")
  })

  it("says checked or unchecked, expanded or collapsed, and which option a select holds", () => {
    expect(line(/"Agree"/)).toBe('  - checkbox "Agree" [checked] [ref=e15]')
    expect(line(/"News"/)).toBe('  - checkbox "News" [unchecked] [ref=e17]')
    expect(line(/"Dark"/)).toBe('  - switch "Dark" [checked] [ref=e22]')
    expect(line(/"Country"/)).toBe('  - combobox "Country" [value="Germany"] [ref=e24]:')
    expect(line(/option "Germany"/)).toBe('    - option "Germany" [selected]')
    expect(line(/"Menu"/)).toBe('  - button "Menu" [collapsed] [ref=e31]')
    expect(line(/"Other"/)).toBe('  - button "Other" [expanded] [ref=e32]')
  })

  it("puts a rich-text editor's text on its line, its paragraphs stay below", () => {
    const raw = `- textbox "Rich" [ref=e2]:\n  - paragraph [ref=e3]: First para\n  - paragraph [ref=e4]: Second bold`
    const out = foldControlState(raw, { ...CONTROLS, editables: [{ name: "Rich", text: "First para Second bold" }] })
    expect(out.split("\n")).toEqual([
      `- textbox "Rich" [value="First para Second bold"] [ref=e2]:`,
      "  - paragraph [ref=e3]: First para",
      "  - paragraph [ref=e4]: Second bold"
    ])
    const r = renderRoleSnapshot(parseRoleSnapshot(out.replace(/ \[ref=e\d+\]/g, "")), {
      limit: 1000,
      interactive: true,
      compact: true,
      depth: undefined,
      numberFor: numbering()
    })
    expect(r.text).toBe(`- textbox "Rich" [value="First para Second bold"] [ref=e1]`)
  })

  it("shows the text of an editor (contenteditable textbox) and leaves other content alone", () => {
    expect(line(/"Editor"/)).toBe('  - textbox "Editor" [ref=e11]: Rich text here')
    expect(line(/"Notes"/)).toBe('  - generic "Notes" [ref=e10]: My notes')
    expect(line(/Full name$/)).toBe("    - text: Full name")
  })

  it("keeps values and states in every role mode", () => {
    const role = foldControlState(AI_FILLED.replace(/ \[ref=e\d+\]/g, ""), CONTROLS)
    for (const o of [{ interactive: true, compact: true }, { interactive: false, compact: true }, { interactive: false, compact: false }]) {
      const r = renderRoleSnapshot(parseRoleSnapshot(role), { limit: 100_000, depth: undefined, numberFor: numbering(), ...o })
      expect(r.text).toMatch(/- textbox "Full name" \[ref=e\d+\]: Ada/)
      expect(r.text).toMatch(/- textbox "Empty" \[placeholder="Type here"\] \[ref=e\d+\]$/m)
      expect(r.text).toMatch(/- textbox "Editor" \[ref=e\d+\]: Rich text here/)
      expect(r.text).toMatch(/- checkbox "News" \[unchecked\] \[ref=e\d+\]/)
      expect(r.text).toMatch(/- button "Menu" \[collapsed\] \[ref=e\d+\]/)
      expect(r.text).toMatch(/- combobox "Country" \[value="Germany"\] \[ref=e\d+\]/)
      expect(r.text).toContain(PASSWORD_MASK)
      expect(r.text).not.toContain("hunter2SECRET")
    }
  })
})

describe("what a snapshot leaves out, it says", () => {
  // A button five lists deep, and a link beside the top.
  const DEEP = `- link "Top":
  - /url: /
- list:
  - listitem:
    - list:
      - listitem:
        - list:
          - listitem:
            - list:
              - listitem:
                - list:
                  - listitem:
                    - button "Deep"`

  it("a depth limit that leaves interactive elements out says how many and how to see them", () => {
    const nodes = parseRoleSnapshot(DEEP)
    const r = renderRoleSnapshot(nodes, { limit: 10_000, interactive: false, compact: false, depth: 3, numberFor: numbering() })
    expect(r.text).not.toContain("Deep")
    expect(r.text.split("\n").pop()).toBe("[1 interactive element(s) deeper than --depth 3 not shown; `--interactive` lists them all]")
    const flat = renderRoleSnapshot(nodes, { limit: 10_000, interactive: true, compact: true, depth: 3, numberFor: numbering() })
    expect(flat.text.split("\n").pop()).toMatch(/^\[1 interactive element\(s\) deeper than --depth 3 not shown; raise --depth/)
    // Without a depth (efficient has none), the deep button is listed.
    const all = renderRoleSnapshot(nodes, { limit: 10_000, interactive: true, compact: true, depth: undefined, numberFor: numbering() })
    expect(all.text).toMatch(/- button "Deep" \[ref=e\d+\]/)
    expect(all.text).not.toContain("not shown")
  })

  it("the notice and the cap's cut both fit under the cap", () => {
    const nodes = parseRoleSnapshot(DEEP)
    const r = renderRoleSnapshot(nodes, { limit: 200, interactive: false, compact: false, depth: 3, numberFor: numbering() })
    expect(r.text.length).toBeLessThanOrEqual(200)
    expect(r.text).toContain("deeper than --depth 3")
  })

  it("a cut counts the interactive elements it left out and never suggests the mode in use", () => {
    const many = Array.from({ length: 200 }, (_, i) => `- button "Action ${i}"`).join("\n")
    const nodes = parseRoleSnapshot(many)
    const flat = renderRoleSnapshot(nodes, { limit: 1000, interactive: true, compact: true, depth: undefined, numberFor: numbering() })
    const notice = flat.text.split("\n").pop()!
    const shownButtons = flat.text.split("\n").length - 1
    expect(notice).toContain(`${200 - shownButtons} more line(s) not shown, ${200 - shownButtons} of them interactive element(s)`)
    expect(notice).not.toContain("--interactive")
    expect(notice).not.toContain("--efficient")
    expect(notice).toContain("--selector")
    const compact = renderRoleSnapshot(nodes, { limit: 1000, interactive: false, compact: true, depth: undefined, numberFor: numbering() })
    expect(compact.text.split("\n").pop()).not.toContain("--efficient")
    expect(compact.text.split("\n").pop()).toContain("--interactive")
    const ai = renderAiSnapshot(many.split("\n").map((l, i) => `${l} [ref=e${i + 1}]`).join("\n"), {
      limit: 1000,
      baseFor: () => 0
    })
    expect(ai.text.split("\n").pop()).toMatch(/of them interactive element\(s\)\. Pass a higher --limit, or narrow it with --efficient/)
  })
})

describe("a snapshot with nothing to read", () => {
  it("names what was read and what to try, with the options said as flags (a tool call's parameters on MCP)", () => {
    expect(emptySnapshotNotice()).toMatch(/^\[nothing to read in the page: .*a screenshot shows what it looks like\]$/)
    expect(emptySnapshotNotice({ interactive: true })).toMatch(/^\[no interactive elements in the page: a full snapshot \(without --interactive or --efficient\)/)
    expect(emptySnapshotNotice({ selector: "#list" })).toMatch(/^\[nothing to read in "#list": /)
    expect(emptySnapshotNotice({ selector: "#list", frame: "#pay" })).toMatch(/^\[nothing to read in "#list" in the frame "#pay": /)
    expect(emptySnapshotNotice({ frame: "#pay", interactive: true })).toMatch(/^\[no interactive elements in the frame "#pay": /)
    expect(snapshotNoticesAsParameters(emptySnapshotNotice({ interactive: true }))).toContain(`(without interactive: true or mode: "efficient")`)
    // Only a text with no line gets it.
    expect(orEmptyNotice(" \n", { selector: "#x" })).toBe(emptySnapshotNotice({ selector: "#x" }))
    expect(orEmptyNotice(`- button "Go" [ref=2]`)).toBe(`- button "Go" [ref=2]`)
  })
})
