import { describe, expect, it } from "vitest"
import { identitiesFromAi } from "../../../src/browser/act/refIdentity.js"
import { renderAiSnapshot } from "../../../src/browser/snapshot/AiSnapshot.js"
import { renderAriaSnapshot } from "../../../src/browser/snapshot/AriaFormat.js"
import { foldControlState } from "../../../src/browser/snapshot/ControlLines.js"
import { NO_CONTROLS, type PageControls } from "../../../src/browser/snapshot/PageControls.js"
import { parseRoleSnapshot, renderRoleSnapshot } from "../../../src/browser/snapshot/RoleSnapshot.js"

// Plain contenteditables and details summaries, which playwright's roles call generic (or leave out), are
// shown as `textbox` and `button [collapsed]` in every mode, with refs looked up by their own kind. The
// texts are what playwright-core 1.65 prints for this page (real runs against Chromium):
//   <h1>Notes</h1><p>Intro text</p>
//   <div contenteditable>Plain note</div>
//   <div contenteditable aria-label="Story"><p>First para</p><p>Second para</p></div>
//   <p>Write <span contenteditable>inline bit</span> here</p>
//   <input aria-label="Title" value="x">
//   <details><summary>Shipping</summary>We ship worldwide.</details>
//   <details open><summary><h3>Returns</h3></summary><p>30 days</p></details>

const DEFAULT_MODE = `- heading "Notes" [level=1]
- paragraph: Intro text
- text: Plain note
- paragraph: First para
- paragraph: Second para
- paragraph: Write inline bit here
- textbox "Title": x
- group: Shipping
- group:
  - heading "Returns" [level=3]
  - paragraph: 30 days`

const AI_MODE = `- generic [active] [ref=e1]:
  - heading "Notes" [level=1] [ref=e2]
  - paragraph [ref=e3]: Intro text
  - generic [ref=e4]: Plain note
  - generic "Story" [ref=e5]:
    - paragraph [ref=e6]: First para
    - paragraph [ref=e7]: Second para
  - paragraph [ref=e8]: Write inline bit here
  - textbox "Title" [ref=e9]: x
  - group [ref=e10]:
    - generic "Shipping" [ref=e11]
  - group [ref=e12]:
    - heading "Returns" [level=3] [ref=e14]
    - paragraph [ref=e15]: 30 days`

const CONTROLS: PageControls = {
  ...NO_CONTROLS,
  plainEditables: [
    { name: "", text: "Plain note" },
    { name: "Story", text: "First para Second para" },
    { name: "", text: "inline bit" }
  ],
  summaries: [{ name: "Shipping", text: "Shipping", open: false }, { name: "Returns", text: "Returns", open: true }]
}

const numbering = () => {
  const numbers = new Map<string, number>()
  return (key: string) => {
    if (!numbers.has(key)) numbers.set(key, numbers.size + 1)
    return numbers.get(key)!
  }
}

const role = (raw: string, controls: PageControls, o: { interactive?: boolean; compact?: boolean } = {}) =>
  renderRoleSnapshot(parseRoleSnapshot(foldControlState(raw, controls)), {
    limit: 100_000,
    interactive: o.interactive ?? false,
    compact: o.compact ?? false,
    depth: undefined,
    numberFor: numbering()
  })

describe("plain editors and summaries in role snapshots", () => {
  it("are placed where their text was, as controls with refs, looked up by their own kind", () => {
    const r = role(DEFAULT_MODE, CONTROLS)
    expect(r.text).toBe(`- heading "Notes" [level=1] [ref=e1]
- paragraph: Intro text
- textbox [ref=e2] [nth=0]: Plain note
- textbox "Story" [value="First para Second para"] [ref=e3]:
  - paragraph: First para
  - paragraph: Second para
- paragraph:
  - text: Write
  - textbox [ref=e4] [nth=1]: inline bit
  - text: here
- textbox "Title" [ref=e5]: x
- group:
  - button "Shipping" [collapsed] [ref=e6]
- group:
  - button "Returns" [expanded] [ref=e7]
  - heading "Returns" [level=3] [ref=e8]
  - paragraph: 30 days`)
    // Shown as textbox and button; looked up as editable and summary, counted apart from real textboxes.
    expect(r.refs["e2"]).toEqual({ role: "textbox", name: "", nth: 0 })
    expect(r.refs["e6"]).toEqual({ role: "button", name: "Shipping" })
    const entries = new Map(r.entries)
    expect(entries.get("e2")).toMatchObject({ role: "editable", name: undefined, nth: 0, count: 2 })
    expect(entries.get("e3")).toMatchObject({ role: "editable", name: "Story", nth: 0, count: 1 })
    expect(entries.get("e5")).toMatchObject({ role: "textbox", name: "Title", nth: 0, count: 1 })
    expect(entries.get("e6")).toMatchObject({ role: "summary", name: "Shipping", count: 1 })
    expect(r.stats.interactive).toBe(6)
    expect(r.text).not.toContain("[~")
  })

  it("--interactive lists them with their values and states", () => {
    expect(role(DEFAULT_MODE, CONTROLS, { interactive: true }).text).toBe(`- textbox [ref=e1] [nth=0]: Plain note
- textbox "Story" [value="First para Second para"] [ref=e2]
- textbox [ref=e3] [nth=1]: inline bit
- textbox "Title" [ref=e4]: x
- button "Shipping" [collapsed] [ref=e5]
- button "Returns" [expanded] [ref=e6]`)
  })

  it("a summary's text merged with the details' own text is split from it", () => {
    const r = role("- group: Shipping We ship worldwide.", { ...NO_CONTROLS, summaries: [{ name: "Shipping", text: "Shipping", open: true }] })
    expect(r.text).toBe(`- group:
  - button "Shipping" [expanded] [ref=e1]
  - text: We ship worldwide.`)
    const open = role("- group:\n  - text: Open one\n  - paragraph: Shown", { ...NO_CONTROLS, summaries: [{ name: "Open one", text: "Open one", open: true }] })
    expect(open.text).toBe(`- group:
  - button "Open one" [expanded] [ref=e1]
  - paragraph: Shown`)
  })

  it("an editor whose text is nowhere (empty), or a page without any, leaves the text as it was", () => {
    const empty = { ...NO_CONTROLS, plainEditables: [{ name: "Comment", text: "" }] }
    expect(foldControlState(DEFAULT_MODE, empty)).toBe(DEFAULT_MODE)
    expect(foldControlState(DEFAULT_MODE, NO_CONTROLS)).toBe(DEFAULT_MODE)
  })
})

describe("plain editors and summaries in AI snapshots", () => {
  it("their generic lines become textbox and button, refs kept, looked up by their kind", () => {
    const r = renderAiSnapshot(foldControlState(AI_MODE, CONTROLS), { limit: 100_000, baseFor: () => 0 })
    const line = (p: RegExp) => r.text.split("\n").find((l) => p.test(l))
    expect(line(/Plain note/)).toBe("  - textbox [ref=4]: Plain note")
    expect(line(/"Story"/)).toBe('  - textbox "Story" [value="First para Second para"] [ref=5]:')
    expect(line(/"Shipping"/)).toBe('    - button "Shipping" [collapsed] [ref=11]')
    expect(r.text).not.toContain("[~")
    expect(r.text).not.toContain("generic [ref=4]")
    const entries = new Map(r.entries)
    expect(entries.get("4")).toEqual({ aria: "e4", role: "editable", name: "" })
    expect(entries.get("11")).toEqual({ aria: "e11", role: "summary", name: "Shipping" })
    expect(r.refs["11"]).toEqual({ role: "button", name: "Shipping" })
  })
})

describe("plain editors and summaries: what is not one", () => {
  it("an editor first in a group (a fieldset) stays an editor beside an empty summary elsewhere", () => {
    const folded = foldControlState("- group [ref=e1]:\n  - generic [ref=e2]: typed", {
      ...NO_CONTROLS,
      summaries: [{ name: "", text: "", open: false }],
      plainEditables: [{ name: "", text: "typed" }]
    })
    expect(folded).toBe("- group [ref=e1]:\n  - textbox [~editable] [ref=e2]: typed")
  })

  it("a generic whose text is no editor's is left alone", () => {
    const ai = "- generic [ref=e1]: Plain label\n- generic [ref=e2]: Plain note"
    const folded = foldControlState(ai, { ...NO_CONTROLS, plainEditables: [{ name: "", text: "Plain note" }] })
    expect(folded).toBe("- generic [ref=e1]: Plain label\n- textbox [~editable] [ref=e2]: Plain note")
  })
})

describe("plain editors and summaries in the accessibility-tree format", () => {
  // What Chromium 156's Accessibility.getFullAXTree gives for the two editors and a closed details.
  const ax = (nodeId: string, parentId: string | undefined, role: string, o: {
    name?: string
    value?: string
    props?: Record<string, unknown>
    children?: Array<string>
  } = {}) => ({
    nodeId,
    parentId,
    ignored: false,
    role: { type: "role", value: role },
    ...(o.name !== undefined ? { name: { type: "computedString", value: o.name } } : {}),
    ...(o.value !== undefined ? { value: { type: "string", value: o.value } } : {}),
    properties: Object.entries(o.props ?? {}).map(([name, value]) => ({ name, value: { type: "string", value } })),
    childIds: o.children ?? []
  })
  const nodes = [
    ax("1", undefined, "RootWebArea", { children: ["5", "6", "10"] }),
    ax("5", "1", "generic", { name: "", value: "Hello world", props: { focusable: true, editable: "richtext" }, children: ["17"] }),
    ax("17", "5", "StaticText", { name: "Hello world", props: { editable: "richtext" } }),
    ax("6", "1", "generic", { name: "Notes", value: "Some\n\nnotes", props: { focusable: true, editable: "richtext" }, children: ["7"] }),
    ax("7", "6", "paragraph", { name: "", props: { editable: "richtext" } }),
    ax("10", "1", "group", { name: "", children: ["15"] }),
    ax("15", "10", "DisclosureTriangle", { name: "More info", props: { focusable: true, expanded: false }, children: ["22"] }),
    ax("22", "15", "StaticText", { name: "More info" })
  ]

  it("shows an editing host as a textbox with its text, and a summary as a button with its state", () => {
    expect(renderAriaSnapshot({ nodes }).text).toBe(`- textbox: Hello world
- textbox "Notes": Some notes
- group:
  - button "More info" [collapsed]`)
  // A paragraph inside an editor is editable too, but not a host: it is not a textbox of its own.
    expect(renderAriaSnapshot({ nodes }).text).not.toContain("paragraph")
  })
})

describe("look-alike editors and summaries get their element's identity from the AI snapshot", () => {
  it("identitiesFromAi groups marked lines by their kind, unnamed ones apart from named ones", () => {
    const ai = `- generic [active] [ref=e1]:
  - generic [ref=e2]: First editor
  - generic "Named" [ref=e3]: Labelled editor
  - generic [ref=e4]: Second editor
  - group [ref=e5]:
    - generic "Details" [ref=e6]
  - group [ref=e7]:
    - generic "Details" [ref=e8]`
    const folded = foldControlState(ai, {
      ...NO_CONTROLS,
      plainEditables: [
        { name: "", text: "First editor" },
        { name: "Named", text: "Labelled editor" },
        { name: "", text: "Second editor" }
      ],
      summaries: [{ name: "Details", text: "Details", open: false }, { name: "Details", text: "Details", open: true }]
    })
    const ids = identitiesFromAi(folded, [
      ["second", { role: "editable", name: undefined, nth: 1, count: 2 }],
      ["first", { role: "editable", name: undefined, nth: 0, count: 2 }],
      ["d2", { role: "summary", name: "Details", nth: 1, count: 2 }]
    ])
    expect(Object.fromEntries(ids)).toEqual({ first: "e2", second: "e4", d2: "e8" })
  })
})
