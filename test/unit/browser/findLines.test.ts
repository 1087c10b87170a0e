import { describe, expect, it } from "vitest"
import { type Finder, findLines, makeFinder, refFinder } from "../../../src/browser/snapshot/FindLines.js"

const snapshot = [
  "- banner [ref=1]:",
  "  - link \"Home\" [ref=2] [cursor=pointer]:",
  "    - /url: /",
  "- main [ref=3]:",
  "  - heading \"Prices\" [level=1] [ref=4]",
  "  - table [ref=5]:",
  "    - row \"Apple 3\" [ref=6]:",
  "      - cell \"Apple\" [ref=7]",
  "      - cell \"3\" [ref=8]",
  "    - row \"Pear 4\" [ref=9]:",
  "      - cell \"Pear\" [ref=10]",
  "      - cell \"4\" [ref=11]",
  "  - button \"Say \\\"buy\\\"\" [ref=12]",
  "- contentinfo [ref=13]: Apples since 1990"
].join("\n")

const finder = (find: string, regex = false): Finder => {
  const f = makeFinder({ find, regex })
  if ("invalid" in f) throw new Error(f.invalid)
  return f
}

describe("findLines", () => {
  it("shows each match under its path from the top, with the first lines of its content", () => {
    const r = findLines(snapshot, finder("pear"), 10_000)
    expect(r.text.split("\n")).toEqual([
      "- main [ref=3]:",
      "  - table [ref=5]:",
      "    - row \"Pear 4\" [ref=9]:",
      "      - cell \"Pear\" [ref=10]",
      "      - cell \"4\" [ref=11]"
    ])
    expect(r).toMatchObject({ matches: 2, shown: 2 })
    expect(r.refs).toEqual(["3", "5", "9", "10", "11"])
  })

  it("leaves bare wrappers out of a path", () => {
    const wrapped = ["- generic [ref=1]:", "  - generic [active] [ref=2]:", "    - navigation \"Site\" [ref=3]:", "      - generic [ref=4]:",
      "        - link \"Docs\" [ref=5]", "  - generic [ref=6]: Docs here"].join("\n")
    expect(findLines(wrapped, finder("docs"), 10_000).text.split("\n")).toEqual([
      "    - navigation \"Site\" [ref=3]:",
      "        - link \"Docs\" [ref=5]",
      "  - generic [ref=6]: Docs here"
    ])
  })

  it("shows a path shared by several matches once, in the snapshot's order", () => {
    const r = findLines(snapshot, finder("apple"), 10_000)
    expect(r.text.split("\n")).toEqual([
      "- main [ref=3]:",
      "  - table [ref=5]:",
      "    - row \"Apple 3\" [ref=6]:",
      "      - cell \"Apple\" [ref=7]",
      "      - cell \"3\" [ref=8]",
      "- contentinfo [ref=13]: Apples since 1990"
    ])
    expect(r.matches).toBe(3)
  })

  it("looks at the line as the agent reads it: no refs, quotes unescaped", () => {
    expect(findLines(snapshot, finder("ref="), 10_000).matches).toBe(0)
    expect(findLines(snapshot, finder("say \"buy\""), 10_000).text).toContain("button \"Say")
  })

  it("reads a regex bare (case-sensitive) or between slashes with flags", () => {
    expect(findLines(snapshot, finder("^\\s*- row", true), 10_000).matches).toBe(2)
    expect(findLines(snapshot, finder("PEAR", true), 10_000).matches).toBe(0)
    expect(findLines(snapshot, finder("/PEAR/i", true), 10_000).matches).toBe(2)
    // A global flag keeps no state from one line to the next.
    expect(findLines(snapshot, finder("/cell/g", true), 10_000).matches).toBe(4)
    expect(makeFinder({ find: "(", regex: true })).toMatchObject({ invalid: expect.stringContaining("not a valid regular expression") })
  })

  it("stops at the cap with a notice of the matches not shown", () => {
    const r = findLines(snapshot, finder("cell"), 200)
    expect(r.shown).toBe(1)
    expect(r.matches).toBe(4)
    expect(r.text.length).toBeLessThanOrEqual(200)
    expect(r.text.split("\n").at(-1)).toBe(
      "[… 3 more match(es) not shown within the 200-character limit. Narrow the search, or pass a higher limit]"
    )
  })

  it("answers nothing for no match, and for an empty snapshot", () => {
    expect(findLines(snapshot, finder("banana"), 10_000)).toEqual({ text: "", matches: 0, shown: 0, refs: [] })
    expect(findLines("", finder("x"), 10_000)).toEqual({ text: "", matches: 0, shown: 0, refs: [] })
  })
})

describe("refFinder", () => {
  const snapshot = [
    "- main [ref=1]:",
    "  - list [ref=2]:",
    "    - listitem [ref=3]:",
    "      - link \"One\" [ref=4]:",
    "        - /url: /one",
    "    - listitem [ref=5]: Two",
    "  - button \"After\" [ref=6]"
  ].join("\n")

  it("shows the element of the ref with all that is in it, under its path", () => {
    const found = findLines(snapshot, refFinder("2"), 10_000)
    expect(found.text).toBe(snapshot.split("\n").slice(0, 6).join("\n"))
    expect(found).toMatchObject({ matches: 1, shown: 1, refs: ["1", "2", "3", "4", "5"] })
  })

  it("matches the ref exactly, and finds nothing for a ref not there", () => {
    expect(findLines(snapshot, refFinder("4"), 10_000).text).toBe(snapshot.split("\n").slice(0, 5).join("\n"))
    expect(findLines(snapshot, refFinder("40"), 10_000).matches).toBe(0)
  })
})
