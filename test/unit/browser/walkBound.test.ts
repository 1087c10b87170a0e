import type { Page } from "playwright-core"
import { describe, expect, it } from "vitest"
import { readBounded, readBoundedOnly, readToSameEnd } from "../../../src/browser/snapshot/walkBound.js"

// The reads around the walk's end (walkBound.ts), against a stand-in for the utility world: what is armed
// and released, when a read is done again, and what the caller is told. The in-page end itself is tested
// against real Chromium (test/e2e/snapshot-bound.test.ts).

const page = {} as Page

interface Armed {
  readonly limit: number
  readonly firstRoom: number
  readonly knownRoom: number
  readonly controls: boolean
  readonly sameEnd: boolean
  readonly id: number
}

/** A utility world that answers arms with `answer` and releases with `reached`; it records what it was sent. */
const world = (answer: object | "unknown" | "fails", reached = true) => {
  const arms: Array<Armed> = []
  const releases: Array<{ id: number; chars: number }> = []
  const evaluate = (_page: Page, expression: string): Promise<unknown> | undefined => {
    if (answer === "unknown") return undefined
    const call = /\)\((\{.*\})\)$/s.exec(expression)
    if (call !== null) {
      arms.push(JSON.parse(call[1]!) as Armed)
      return answer === "fails" ? Promise.reject(new Error("gone")) : Promise.resolve(answer)
    }
    const release = /\)\("[^"]+", (\d+), (\d+)\)$/.exec(expression)
    if (release !== null) {
      releases.push({ id: Number(release[1]), chars: Number(release[2]) })
      return Promise.resolve(reached)
    }
    throw new Error(`unexpected expression ${expression.slice(-80)}`)
  }
  return { arms, releases, evaluate }
}

const bounded = { bounded: true, unreadElements: 900, unreadInteractive: 40 }

describe("readBounded", () => {
  it("a read that filled the cap is told what was left unread; the arming is released with its length", async () => {
    const w = world(bounded)
    const r = await readBounded(page, w.evaluate, 1000, async () => "x".repeat(1200))
    expect(r.unread).toEqual({ elements: 900, interactive: 40 })
    expect(w.arms).toHaveLength(1)
    expect(w.releases).toEqual([{ id: w.arms[0]!.id, chars: 1200 }])
  })

  it("a read well short of the cap is done once more, with more room", async () => {
    const w = world(bounded)
    const reads: Array<number> = []
    const r = await readBounded(page, w.evaluate, 1000, async () => (reads.push(1), "x".repeat(reads.length === 1 ? 300 : 700)))
    expect(reads).toHaveLength(2)
    expect(r.raw).toHaveLength(700)
    expect(r.unread).toBeDefined()
    expect(w.arms[1]!.knownRoom).toBeGreaterThan(w.arms[0]!.knownRoom)
    expect(new Set(w.arms.map((a) => a.id)).size).toBe(2)
  })

  it("a read a little short of the cap stands", async () => {
    const w = world(bounded)
    let reads = 0
    const r = await readBounded(page, w.evaluate, 1000, async () => (reads++, "x".repeat(700)))
    expect(reads).toBe(1)
    expect(r.unread).toBeDefined()
  })

  it("is whole when the page is within the cap, the world is not known, the arming fails, or the walk never got to the end", async () => {
    for (const w of [world({ bounded: false }), world("unknown"), world("fails"), world(bounded, false)]) {
      const r = await readBounded(page, w.evaluate, 1000, async () => "whole")
      expect(r).toEqual({ raw: "whole", unread: undefined })
    }
  })

  it("a failed read still takes the arming down, and fails", async () => {
    const w = world(bounded)
    await expect(readBounded(page, w.evaluate, 1000, () => Promise.reject(new Error("timeout")))).rejects.toThrow("timeout")
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(w.releases).toHaveLength(1)
  })

  it("a list of controls measures the cap by its controls' lines, not by all the text", async () => {
    const w = world(bounded)
    const raw = ["- generic:", ...Array.from({ length: 40 }, (_, i) => `  - paragraph: ${"words ".repeat(20)}${i}`), '  - link "One"', '  - button "Two"'].join("\n")
    let reads = 0
    await readBounded(page, w.evaluate, 1000, async () => (reads++, raw), "controls")
    // 27 characters of controls against a cap of 1,000: read again, further.
    expect(reads).toBe(2)
    expect(w.arms.every((a) => a.controls)).toBe(true)
    // Each line as the list shows it: with its ref (` [ref=e1234]`), which the read has not yet.
    expect(w.releases[0]!.chars).toBe('- link "One" [ref=e1234]'.length + '- button "Two" [ref=e1234]'.length + 2)
  })
})

describe("readToSameEnd and readBoundedOnly", () => {
  it("a second read asks for the same end and learns nothing from its length", async () => {
    const w = world(bounded)
    expect(await readToSameEnd(page, w.evaluate, async () => "again")).toBe("again")
    expect(w.arms[0]!.sameEnd).toBe(true)
    expect(w.releases[0]!.chars).toBe(0)
  })

  it("a read ahead is done only once the end is armed, or when the page is within the cap", async () => {
    let reads = 0
    const read = async () => (reads++, "text")
    expect(await readBoundedOnly(page, world("unknown").evaluate, 1000, read)).toBeUndefined()
    expect(await readBoundedOnly(page, world("fails").evaluate, 1000, read)).toBeUndefined()
    expect(reads).toBe(0)
    expect(await readBoundedOnly(page, world({ bounded: false }).evaluate, 1000, read)).toBe("text")
    const w = world(bounded)
    expect(await readBoundedOnly(page, w.evaluate, 1000, read)).toBe("text")
    expect(w.releases).toEqual([{ id: w.arms[0]!.id, chars: 4 }])
  })
})
