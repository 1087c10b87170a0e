import type { ScrollPosition } from "../domain/browser.js"

// What a scroll did, as the CLI's, MCP's and the agent tool's answers say it: how far it was asked to go,
// where the scrolled part is now, and whether it moved at all (at its end, it does not).

export interface ScrollAsked {
  readonly dx?: number | undefined
  readonly dy?: number | undefined
}

const isPosition = (u: unknown): u is ScrollPosition =>
  typeof u === "object" && u !== null && typeof (u as ScrollPosition).y === "number" && typeof (u as ScrollPosition).moved === "boolean"

const px = (n: number) => `${Math.abs(n).toLocaleString("en-US")} px`
const n = (v: number) => v.toLocaleString("en-US")

/** `down 600 px`, `left 200 px and up 50 px`. */
const asked = (a: ScrollAsked) =>
  [
    ...(a.dx !== undefined && a.dx !== 0 ? [`${a.dx > 0 ? "right" : "left"} ${px(a.dx)}`] : []),
    ...(a.dy !== undefined && a.dy !== 0 ? [`${a.dy > 0 ? "down" : "up"} ${px(a.dy)}`] : [])
  ].join(" and ")

/** `scrolled down 600 px: the page is at y 600 of 4,200`, or that it did not move and where it is. */
export const scrolledLine = (result: unknown, a: ScrollAsked): string => {
  if (!isPosition(result)) return `scrolled ${asked(a)}`
  const what = result.scroller === "page" ? "the page" : `the scrolling element ${result.scroller}`
  const at = `y ${n(result.y)} of ${n(result.maxY)}${result.maxX > 0 || result.x > 0 ? `, x ${n(result.x)} of ${n(result.maxX)}` : ""}`
  // Moved as far as it goes that way: the end is said too (an endless list grows before it is reached).
  const end = (a.dy ?? 0) > 0 && result.y >= result.maxY
    ? " (its end)"
    : (a.dy ?? 0) < 0 && result.y === 0
    ? " (its top)"
    : (a.dx ?? 0) > 0 && result.x >= result.maxX
    ? " (its right end)"
    : (a.dx ?? 0) < 0 && result.x === 0
    ? " (its left end)"
    : ""
  return result.moved
    ? `scrolled ${asked(a)}: ${what} is at ${at}${end}`
    : `scrolled ${asked(a)}, but ${what} did not move: it is at ${at}${
      result.maxY === 0 && result.maxX === 0 ? " (it does not scroll)" : " (the end that way)"
    }`
}
