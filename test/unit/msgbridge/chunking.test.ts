import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { chunkText } from "../../../src/msgbridge/channel/Chunking.js"

const FENCE_OPEN = /^```[^\n]*\n/
const FENCE_CLOSE = /\n```$/

/**
 * Undo what chunking adds: where a chunk ends with a closing marker and the next starts with a reopening
 * one, both are removed. Then compare without whitespace (separators at cuts are dropped).
 */
const rejoin = (chunks: ReadonlyArray<string>): string => {
  const parts = [...chunks]
  for (let i = 0; i + 1 < parts.length; i++) {
    if (FENCE_CLOSE.test(parts[i]!) && FENCE_OPEN.test(parts[i + 1]!)) {
      parts[i] = parts[i]!.replace(FENCE_CLOSE, "")
      parts[i + 1] = parts[i + 1]!.replace(FENCE_OPEN, "")
    }
  }
  return parts.join("")
}
const squash = (s: string) => s.replace(/\s+/g, "")

/** Count ``` fence lines: a balanced chunk has an even number. */
const fenceLines = (chunk: string) => chunk.split("\n").filter((l) => /^ {0,3}```/.test(l)).length

const word = fc.stringMatching(/^[a-z0-9.,!?]{1,14}$/)
const prose = fc.array(fc.tuple(word, fc.constantFrom(" ", " ", " ", "\n", "\n\n")), { maxLength: 120 })
  .map((ws) => ws.map(([w, s]) => w + s).join(""))
const codeBlock = fc.tuple(fc.constantFrom("ts", "", "python"), fc.array(fc.stringMatching(/^[a-z(){};= ]{0,30}$/), { maxLength: 25 }))
  .map(([info, lines]) => "```" + info + "\n" + lines.join("\n") + "\n```")
const document = fc.array(fc.oneof(prose, prose, codeBlock), { minLength: 1, maxLength: 6 })
  // Prose between parts, so a real closing fence never meets a real opening one across a cut.
  .map((parts) => parts.join("\n\nnext\n\n"))

describe("chunkText, length mode", () => {
  it("does not split text within the limit", () => {
    expect(chunkText("hello world", { limit: 11, mode: "length" })).toEqual(["hello world"])
  })

  it("splits at the last newline, else the last space, else hard", () => {
    expect(chunkText("aaa bbb\nccc ddd", { limit: 10, mode: "length" })).toEqual(["aaa bbb", "ccc ddd"])
    expect(chunkText("aaa bbb ccc", { limit: 8, mode: "length" })).toEqual(["aaa bbb", "ccc"])
    expect(chunkText("abcdefghij", { limit: 4, mode: "length" })).toEqual(["abcd", "efgh", "ij"])
  })

  it("never returns empty chunks", () => {
    expect(chunkText("", { limit: 10, mode: "length" })).toEqual([])
    expect(chunkText("  \n\n ", { limit: 10, mode: "newline" })).toEqual([])
    expect(chunkText("a\n\n\n\n\n\n\n\n\n\n\n\nb", { limit: 3, mode: "length" })).toEqual(["a", "b"])
  })

  it("closes a code fence at a cut and reopens it with the same info string", () => {
    const text = "intro\n```ts\nconst a = 1\nconst b = 2\nconst c = 3\n```\nafter"
    const chunks = chunkText(text, { limit: 30, mode: "length" })
    expect(chunks.length).toBeGreaterThan(1)
    for (const c of chunks) {
      expect(c.length).toBeLessThanOrEqual(30)
      expect(fenceLines(c) % 2).toBe(0)
    }
    const reopened = chunks.filter((c) => c.startsWith("```ts\n"))
    expect(reopened.length).toBeGreaterThan(0)
    expect(squash(rejoin(chunks))).toBe(squash(text))
  })

  it("puts the response prefix on the first chunk only", () => {
    const chunks = chunkText("one two three four five six", { limit: 12, mode: "length", prefix: "[bot] " })
    expect(chunks[0]!.startsWith("[bot] ")).toBe(true)
    expect(chunks.slice(1).some((c) => c.includes("[bot]"))).toBe(false)
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(12)
  })

  it("property: every chunk fits, fences balance, and the text survives", () => {
    fc.assert(
      fc.property(document, fc.integer({ min: 24, max: 400 }), (text, limit) => {
        const chunks = chunkText(text, { limit, mode: "length" })
        for (const c of chunks) {
          expect(c.length).toBeLessThanOrEqual(limit)
          expect(c.trim()).not.toBe("")
          expect(fenceLines(c) % 2).toBe(0)
        }
        expect(squash(rejoin(chunks))).toBe(squash(text))
        if (text.length <= limit && text.trim() !== "") expect(chunks).toEqual([text])
      }),
      { numRuns: 300 }
    )
  })

  it("property: tiny limits still fit and lose nothing (plain text)", () => {
    fc.assert(
      fc.property(prose, fc.integer({ min: 1, max: 12 }), (text, limit) => {
        const chunks = chunkText(text, { limit, mode: "length" })
        for (const c of chunks) expect(c.length).toBeLessThanOrEqual(limit)
        expect(squash(chunks.join(""))).toBe(squash(text))
      }),
      { numRuns: 300 }
    )
  })
})

describe("chunkText, newline mode", () => {
  it("packs paragraphs up to the limit", () => {
    const text = "para one\n\npara two\n\npara three is longer"
    expect(chunkText(text, { limit: 20, mode: "newline" })).toEqual(["para one\n\npara two", "para three is longer"])
  })

  it("splits a long paragraph by length", () => {
    const chunks = chunkText("short\n\n" + "word ".repeat(10).trim(), { limit: 12, mode: "newline" })
    expect(chunks[0]).toBe("short")
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(12)
    expect(chunks.length).toBeGreaterThan(2)
  })

  it("does not split a code block at a blank line inside it", () => {
    const text = "```py\na = 1\n\nb = 2\n```"
    expect(chunkText(text, { limit: 100, mode: "newline" })).toEqual([text])
  })

  it("property: every chunk fits and the text survives", () => {
    fc.assert(
      fc.property(document, fc.integer({ min: 24, max: 400 }), (text, limit) => {
        const chunks = chunkText(text, { limit, mode: "newline" })
        for (const c of chunks) {
          expect(c.length).toBeLessThanOrEqual(limit)
          expect(c.trim()).not.toBe("")
          expect(fenceLines(c) % 2).toBe(0)
        }
        expect(squash(rejoin(chunks))).toBe(squash(text))
      }),
      { numRuns: 300 }
    )
  })
})
