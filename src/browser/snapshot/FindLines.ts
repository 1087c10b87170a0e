import { userRegex } from "../../platform/userRegex.js"
import { indentOf } from "./AriaLine.js"
import { refOfLine } from "./SnapshotDiff.js"

// A search in a snapshot: the lines of the whole page's snapshot that match a text or a regular expression,
// each under the lines of the elements it is inside (its path from the top, bare wrappers left out), with
// the first few lines of its own content. An agent looking for one thing on a long page reads that instead
// of a whole snapshot the character cap may have cut before it. Matches that share a part of the path show
// it once: the answer is the snapshot's own tree, with what does not lead to a match left out.

/** What a search asks for: a text (case-insensitive, in the line as shown) or a regular expression. */
export interface FindQuery {
  readonly find: string
  readonly regex: boolean
}

/** A search ready to run over lines. */
export interface Finder {
  readonly test: (line: string) => boolean
  /** How many lines of a match's own content are shown (default CONTENT_LINES): all of them for an element's part. */
  readonly contentLines?: number | undefined
}

/** Lines of a match's own content shown after it (its first children: a link's /url, a cell's text). */
const CONTENT_LINES = 2

/** A wrapper with no name and no text of its own (`- generic [ref=7]:`): a path leaves it out, as compact does. */
const WRAPPER = /^\s*- generic(?: \[[^\]]*\])*:$/

/** ` [ref=12]`: a line is matched as the agent reads it, without its ref. */
const REF_ATTR = / \[ref=[^\]]*\]/g

/** The text of a line that a search looks in: no refs, quotes unescaped. */
const searchedText = (line: string) => line.replace(REF_ATTR, "").replace(/\\"/g, "\"")

/**
 * The finder for a query, or why it is not one. A regex is written bare (`error|warning`) or between slashes
 * with flags (`/error/i`); a bare one is case-sensitive.
 */
export const makeFinder = (q: FindQuery): Finder | { readonly invalid: string } => {
  if (q.find.length === 0) return { invalid: "find: give the text to look for" }
  if (!q.regex) {
    const wanted = q.find.toLowerCase()
    return { test: (line) => searchedText(line).toLowerCase().includes(wanted) }
  }
  try {
    const re = userRegex(q.find, "")
    return { test: (line) => re.test(searchedText(line)) }
  } catch (e) {
    return {
      invalid: `find: ${JSON.stringify(q.find)} is not a valid regular expression (${e instanceof Error ? e.message : String(e)}); ` +
        "drop regex to look for it as plain text"
    }
  }
}

/** The line of one ref, shown with all that is in it: an element's part of the whole snapshot. */
export const refFinder = (ref: string): Finder => ({
  test: (line) => refOfLine(line) === ref,
  contentLines: Number.POSITIVE_INFINITY
})

export interface Found {
  /** The matching lines, each under its path, under the character cap (a cut ends with a notice). */
  readonly text: string
  /** How many lines of the snapshot match. */
  readonly matches: number
  /** How many of them the text shows. */
  readonly shown: number
  /** The refs on the lines the text shows. */
  readonly refs: ReadonlyArray<string>
}

/** The last line when the cap leaves matches out. */
const moreNotice = (notShown: number, limit: number) =>
  `[… ${notShown} more match(es) not shown within the ${limit}-character limit. Narrow the search, or pass a higher limit]`

/** The lines of `snapshot` that `finder` matches, with their paths and first content, within `limit` characters. */
export const findLines = (snapshot: string, finder: Finder, limit: number): Found => {
  const lines = snapshot.length > 0 ? snapshot.split("\n") : []
  const indents = lines.map(indentOf)
  const matching: Array<number> = []
  for (let i = 0; i < lines.length; i++) if (finder.test(lines[i]!)) matching.push(i)
  const taken = new Set<number>()
  const shownLines: Array<string> = []
  let chars = 0
  let shown = 0
  // Room for the notice, should it be needed (its count is at most this long).
  const noticeRoom = moreNotice(matching.length, limit).length + 1
  for (const [k, m] of matching.entries()) {
    // The path: each nearest line above with less indentation, from the top down (bare wrappers left out);
    // then the match and its content.
    const path: Array<number> = []
    for (let i = m - 1, indent = indents[m]!; i >= 0 && indent > 0; i--) {
      if (indents[i]! < indent) {
        if (!WRAPPER.test(lines[i]!)) path.push(i)
        indent = indents[i]!
      }
    }
    const content: Array<number> = []
    const most = finder.contentLines ?? CONTENT_LINES
    for (let i = m + 1; i < lines.length && content.length < most && indents[i]! > indents[m]!; i++) content.push(i)
    // A line taken for an earlier match (a shared path) is not repeated; the rest come after it in the snapshot.
    const group = [...path.reverse(), m, ...content].filter((i) => !taken.has(i))
    const size = group.reduce((n, i) => n + lines[i]!.length + 1, 0)
    const room = limit - (k < matching.length - 1 ? noticeRoom : 0)
    if (chars + size > room) break
    for (const i of group) {
      taken.add(i)
      shownLines.push(lines[i]!)
    }
    chars += size
    shown++
  }
  const notShown = matching.length - shown
  if (notShown > 0) {
    shownLines.push(moreNotice(notShown, limit))
  }
  const refs = shownLines.flatMap((l) => {
    const ref = refOfLine(l)
    return ref !== undefined ? [ref] : []
  })
  return { text: shownLines.join("\n"), matches: matching.length, shown, refs }
}
