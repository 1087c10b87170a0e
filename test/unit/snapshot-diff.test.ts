import { describe, expect, it } from "vitest"
import { diffAnswer, diffLines, type LineOp, renderDiff } from "../../src/browser/snapshot/SnapshotDiff.js"

// The pure line diff of snapshot texts and how it is shown to a model.

/** Applies ops to before: must give after, using every line of both once and in order. */
const replay = (before: ReadonlyArray<string>, after: ReadonlyArray<string>, ops: ReadonlyArray<LineOp>) => {
  const out: Array<string> = []
  let a = 0
  let b = 0
  // One expect at the end: long texts make hundreds of thousands of ops.
  const wrong: Array<string> = []
  for (const op of ops) {
    if (op.kind === "equal") {
      if (op.a !== a || op.b !== b || before[op.a] !== after[op.b]) wrong.push(JSON.stringify(op))
      out.push(before[a++]!)
      b++
    } else if (op.kind === "delete") {
      if (op.a !== a++) wrong.push(JSON.stringify(op))
    } else {
      if (op.b !== b++) wrong.push(JSON.stringify(op))
      out.push(after[op.b]!)
    }
  }
  expect(wrong.slice(0, 5)).toEqual([])
  expect([a, b]).toEqual([before.length, after.length])
  return out
}

const edits = (ops: ReadonlyArray<LineOp>) => ops.filter((o) => o.kind !== "equal").length

const check = (before: Array<string>, after: Array<string>, expectedEdits: number) => {
  const ops = diffLines(before, after)
  expect(ops).toBeDefined()
  expect(replay(before, after, ops!)).toEqual(after)
  expect(edits(ops!)).toBe(expectedEdits)
  return ops!
}

/** Minimal edit count by the textbook LCS table, to compare with. */
const lcsEdits = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) => {
  const t = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0))
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      t[i]![j] = a[i] === b[j] ? t[i + 1]![j + 1]! + 1 : Math.max(t[i + 1]![j]!, t[i]![j + 1]!)
    }
  }
  return a.length + b.length - 2 * t[0]![0]!
}

describe("diffLines", () => {
  it("empty and identical inputs", () => {
    expect(diffLines([], [])).toEqual([])
    check([], ["a", "b"], 2)
    check(["a", "b"], [], 2)
    const same = check(["a", "b", "c"], ["a", "b", "c"], 0)
    expect(same.every((o) => o.kind === "equal")).toBe(true)
  })

  it("everything changed", () => {
    check(["a", "b", "c"], ["x", "y", "z"], 6)
  })

  it("one line changed in a long text keeps the rest", () => {
    const before = Array.from({ length: 500 }, (_, i) => `- listitem: item ${i}`)
    const after = before.map((l, i) => (i === 250 ? "- listitem: changed" : l))
    const ops = check(before, after, 2)
    expect(ops.filter((o) => o.kind === "delete")).toEqual([{ kind: "delete", a: 250 }])
    expect(ops.filter((o) => o.kind === "insert")).toEqual([{ kind: "insert", b: 250 }])
  })

  it("a moved line is a removal at its old place and an addition at its new one", () => {
    check(["a", "b", "c", "d", "e"], ["a", "c", "d", "b", "e"], 2)
    check(["a", "b", "c"], ["c", "a", "b"], 2)
  })

  it("repeated identical lines", () => {
    check(["x", "x", "x", "x"], ["x", "x"], 2)
    check(["x", "y", "x", "y"], ["y", "x", "y", "x"], 2)
    check(["- text: a", "- text: a", "- button"], ["- text: a", "- button", "- text: a"], 2)
  })

  it("is minimal on random texts", () => {
    let seed = 7
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed % n
    }
    for (let round = 0; round < 200; round++) {
      const a = Array.from({ length: rnd(30) }, () => String.fromCharCode(97 + rnd(4)))
      const b = Array.from({ length: rnd(30) }, () => String.fromCharCode(97 + rnd(4)))
      check(a, b, lcsEdits(a, b))
    }
  })

  it("gives up past its bounds instead of taking long", () => {
    const a = Array.from({ length: 20_000 }, (_, i) => `a${i}`)
    const b = Array.from({ length: 20_000 }, (_, i) => `b${i}`)
    const t0 = performance.now()
    expect(diffLines(a, b)).toBeUndefined()
    expect(diffLines(["a", "b", "c"], ["x", "y", "z"], { maxEdits: 4, maxWork: 1_000 })).toBeUndefined()
    // Generous: the bound keeps it to tens of ms.
    expect(performance.now() - t0).toBeLessThan(2_000)
    // All added or all removed needs no search, whatever the size.
    expect(diffLines([], b)?.length).toBe(20_000)
  })
})

const page = (count: number) => [
  "- generic [ref=1]:",
  "  - heading \"Shop\" [level=1] [ref=2]",
  "  - main [ref=3]:",
  `    - button "Clicked ${count} times" [ref=4]`,
  `    - text: Count ${count}`,
  "    - list [ref=5]:",
  ...Array.from({ length: 100 }, (_, i) => `      - listitem [ref=${10 + i}]: Item ${i}`)
]

const render = (before: Array<string>, after: Array<string>) => renderDiff(before, after, diffLines(before, after)!)

describe("renderDiff", () => {
  it("shows a changed line as its old and new version under the line that encloses it", () => {
    const r = render(page(0), page(1))
    expect(r.counts).toEqual({ added: 0, removed: 0, changed: 2, unchanged: 104 })
    expect(r.text.split("\n")).toEqual([
      "[diff since this tab's last snapshot: 2 changed, 0 added, 0 removed; 104 lines unchanged, not shown. " +
      "\"- \" old line, \"+ \" new line, unmarked: where it is]",
      "    - main [ref=3]:",
      "-     - button \"Clicked 0 times\" [ref=4]",
      "+     - button \"Clicked 1 times\" [ref=4]",
      "-     - text: Count 0",
      "+     - text: Count 1"
    ])
    expect(r.shown).toContain("  - main [ref=3]:")
    expect(r.text).not.toContain("Item")
  })

  it("says so in one line when nothing changed", () => {
    const r = render(page(3), page(3))
    expect(r.text).toBe("[no change since this tab's last snapshot (106 lines)]")
    expect(r.counts).toEqual({ added: 0, removed: 0, changed: 0, unchanged: 106 })
  })

  it("pairs by ref, so a reordered change is still one changed line", () => {
    const before = ["- list:", "  - button \"A\" [ref=1]", "  - button \"B\" [ref=2]"]
    const after = ["- list:", "  - button \"B2\" [ref=2]", "  - button \"A2\" [ref=1]"]
    const r = render(before, after)
    expect(r.counts).toMatchObject({ changed: 2, added: 0, removed: 0 })
    expect(r.text.split("\n").slice(1)).toEqual([
      "  - list:",
      "-   - button \"B\" [ref=2]",
      "+   - button \"B2\" [ref=2]",
      "-   - button \"A\" [ref=1]",
      "+   - button \"A2\" [ref=1]"
    ])
  })

  it("counts lines added and removed, and pairs lines without refs by their role", () => {
    const before = ["- list:", "  - listitem: one", "  - listitem: two", "- text: end"]
    const after = ["- list:", "  - listitem: one", "  - listitem: 2", "  - listitem: three", "- text: end"]
    const r = render(before, after)
    expect(r.counts).toEqual({ changed: 1, added: 1, removed: 0, unchanged: 3 })
    expect(r.text.split("\n").slice(1)).toEqual([
      "  - list:",
      "-   - listitem: two",
      "+   - listitem: 2",
      "+   - listitem: three"
    ])
    const gone = render(after, ["- list:", "- text: end"])
    expect(gone.counts).toEqual({ changed: 0, added: 0, removed: 3, unchanged: 2 })
    expect(gone.text.split("\n").slice(1)).toEqual([
      "  - list:",
      "-   - listitem: one",
      "-   - listitem: 2",
      "-   - listitem: three"
    ])
  })

  it("shows each enclosing line once, and none for a change at the top level", () => {
    const before = ["- list:", "  - listitem: a", "  - listitem: b", "  - listitem: c", "- text: x"]
    const after = ["- list:", "  - listitem: A", "  - listitem: b", "  - listitem: C", "- text: y"]
    const lines = render(before, after).text.split("\n").slice(1)
    expect(lines).toEqual([
      "  - list:",
      "-   - listitem: a",
      "+   - listitem: A",
      "-   - listitem: c",
      "+   - listitem: C",
      "- - text: x",
      "+ - text: y"
    ])
  })
})

describe("diffAnswer", () => {
  it("answers a diff with its counts", () => {
    const a = diffAnswer(page(0).join("\n"), page(1).join("\n"))
    expect(a.diff).toEqual({ base: "previous", whole: false, added: 0, removed: 0, changed: 2, unchanged: 104 })
    expect(a.text.split("\n").length).toBeLessThan(8)
  })

  it("answers the whole snapshot, saying why, when most lines changed", () => {
    const after = "- button \"x\" [ref=1]\n- button \"y\" [ref=2]"
    const a = diffAnswer("- text: a\n- text: b", after)
    expect(a.diff).toMatchObject({ base: "mostlyChanged", whole: true })
    expect(a.shown).toBeUndefined()
    expect(a.text.split("\n")[0]).toMatch(/^\[whole snapshot, not a diff: most lines changed/)
    expect(a.text.split("\n").slice(1).join("\n")).toBe(after)
  })

  it("answers whole when the change is too large to search", () => {
    const before = Array.from({ length: 20_000 }, (_, i) => `- text: a${i}`).join("\n")
    const after = Array.from({ length: 20_000 }, (_, i) => `- text: b${i}`).join("\n")
    const a = diffAnswer(before, after)
    expect(a.diff).toEqual({ base: "mostlyChanged", whole: true })
    expect(a.text.endsWith(after)).toBe(true)
  })
})

describe("diffLines on long texts with changes all over", () => {
  it("splits at lines found once on both sides, and finds every change", () => {
    const before = Array.from({ length: 200_000 }, (_, i) => `- listitem [ref=${i}]: Item ${i}`)
    const after = before.map((l, i) => (i % 500 === 0 ? `${l} changed` : l))
    after.splice(100_001, 0, "- text: new", "- text: new")
    const t0 = performance.now()
    const ops = diffLines(before, after)
    expect(performance.now() - t0).toBeLessThan(5_000)
    expect(ops).toBeDefined()
    expect(replay(before, after, ops!)).toEqual(after)
    expect(edits(ops!)).toBe(2 * 400 + 2)
  })

  it("splits a text with more changes than one search allows, minimal within each part", () => {
    // Unique lines between runs of look-alikes; each run changes a little, beyond one search's budget.
    const run = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `- text: ${tag}${i % 3}`)
    const before: Array<string> = []
    const after: Array<string> = []
    for (let k = 0; k < 300; k++) {
      before.push(`- heading "Section ${k}"`, ...run("x", 20))
      after.push(`- heading "Section ${k}"`, ...run(k % 2 === 0 ? "x" : "y", 20))
    }
    const ops = diffLines(before, after)
    expect(ops).toBeDefined()
    expect(replay(before, after, ops!)).toEqual(after)
    expect(edits(ops!)).toBe(lcsEdits(before.slice(0, 42), after.slice(0, 42)) * 150)
  })
})
