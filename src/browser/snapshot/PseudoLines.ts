import { attrValue, indentOf, type LineHead, nameOf, parseLineHead, scalarOf, valueText } from "./AriaLine.js"
import type { PageControls, PseudoControl, Summary } from "./PageControls.js"
import { markerOf } from "./PseudoControls.js"

// Puts the controls playwright's roles miss (see PseudoControls) into its ARIA text, as lines of their own:
//   - textbox "Notes" [~editable]: Some notes          a plain contenteditable, its text as the value
//   - textbox [value="First Second"] [~editable]:      one with paragraphs inside (they stay below it)
//   - button "More info" [collapsed] [~summary]        a details summary, with whether it is open
// AI-mode text already has a `generic` line for each (with its ref): its role is renamed. Default-mode text
// (role snapshots) has none: playwright merges their text into the text around them, so the text is found
// again and split (`- text: Intro Some notes` → a text line and the textbox line), or the sibling lines
// that make up an editor's text are wrapped in a textbox line. An element whose text cannot be found (an
// empty editor, say) is left out of a role snapshot, as it was before.

const MAX_VALUE_CHARS = 300
const clip = (s: string) => (s.length > MAX_VALUE_CHARS ? `${s.slice(0, MAX_VALUE_CHARS - 1)}…` : s)

const norm = (s: string) => s.replace(/[\u200b\u00ad]/g, "").replace(/\s+/g, " ").trim()

const tailOf = (line: string, head: LineHead) => line.slice(head.attrsEnd + (head.quoted ? 1 : 0))

/** The value after the key (`- role: value`, `- text: value`), or undefined. */
const inlineOf = (line: string, head: LineHead): string | undefined => {
  const tail = tailOf(line, head)
  return tail.startsWith(": ") ? scalarOf(tail.slice(2)) : undefined
}

const keyText = (role: string, name: string) => `${role}${name !== "" ? ` ${JSON.stringify(name)}` : ""}`

const summaryLine = (indent: number, s: Summary) =>
  `${" ".repeat(indent)}- ${keyText("button", s.name)} [${s.open ? "expanded" : "collapsed"}]${markerOf("summary")}`

const editableLeaf = (indent: number, e: PseudoControl) =>
  `${" ".repeat(indent)}- ${keyText("textbox", e.name)}${markerOf("editable")}${e.text !== "" ? `: ${valueText(e.text)}` : ""}`

const editableParent = (indent: number, e: PseudoControl) =>
  `${" ".repeat(indent)}- ${keyText("textbox", e.name)} [value=${attrValue(clip(e.text))}]${markerOf("editable")}:`

const textLine = (indent: number, text: string) => `${" ".repeat(indent)}- text: ${valueText(text)}`

/** A line's key with a new tail (`:` when children follow). */
const withTail = (line: string, head: LineHead, tail: string) => line.slice(0, head.attrsEnd) + (head.quoted ? "'" : "") + tail

/** The line with its role word replaced. */
const renamed = (line: string, head: LineHead, role: string) =>
  line.slice(0, head.keyStart) + role + line.slice(head.keyStart + head.role.length)

/** Where `needle` stands as whole words in `hay`; else anywhere (an inline editor inside a word run); or -1. */
const findText = (hay: string, needle: string): number => {
  let at = hay.indexOf(needle)
  const any = at
  while (at >= 0) {
    const before = at === 0 || hay[at - 1] === " "
    const after = at + needle.length === hay.length || hay[at + needle.length] === " "
    if (before && after) return at
    at = hay.indexOf(needle, at + 1)
  }
  return needle.length >= 3 ? any : -1
}

/**
 * The text a line and its subtree show (values, text runs, names of leaves), whitespace normalised; cut
 * short once it is longer than `max` characters (it can no longer match).
 */
const subtreeText = (lines: ReadonlyArray<string>, from: number, end: number, max = Infinity): string => {
  const parts: Array<string> = []
  let length = 0
  for (let j = from; j < end && length <= max; j++) {
    const l = lines[j]!
    const h = parseLineHead(l, indentOf(l))
    if (h === undefined) continue
    const v = inlineOf(l, h)
    const part = v ?? (h.role !== "text" && tailOf(l, h) === "" ? nameOf(l, h) : undefined)
    if (part === undefined) continue
    parts.push(part)
    length += part.length + 1
  }
  return norm(parts.join(" "))
}

/** The end (exclusive) of the subtree of the line at `i`. */
const subtreeEnd = (lines: ReadonlyArray<string>, i: number) => {
  const indent = indentOf(lines[i]!)
  let j = i + 1
  while (j < lines.length && indentOf(lines[j]!) > indent) j++
  return j
}

/** Roles whose value is what the user typed, never an editor's text. */
const OWN_VALUE_ROLES: ReadonlySet<string> = new Set(["textbox", "searchbox", "spinbutton", "combobox", "slider"])

const takeFirst = <A>(list: Array<A>, match: (a: A) => boolean): A | undefined => {
  const k = list.findIndex(match)
  return k < 0 ? undefined : list.splice(k, 1)[0]
}

/** AI-mode text: each summary's and editor's `generic` line renamed, in place. */
const placeInAiText = (lines: Array<string>, summaries: Array<Summary>, editables: Array<PseudoControl>) => {
  // A generic whose text is longer than every editor's is none of them: its subtree is not read through.
  const longest = editables.reduce((m, e) => Math.max(m, 2 * e.text.length + 16), 0)
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const indent = indentOf(line)
    if (!line.startsWith("- generic", indent)) continue
    const head = parseLineHead(line, indent)
    if (head === undefined || head.role !== "generic") continue
    const name = nameOf(line, head)
    const prev = i > 0 ? lines[i - 1]! : ""
    const firstInGroup = indentOf(prev) === indent - 2 && prev.startsWith("- group", indent - 2)
    if (firstInGroup && summaries.length > 0) {
      const s = takeFirst(summaries, (c) => c.name !== "" && c.name === name)
      if (s !== undefined) {
        const state = ` [${s.open ? "expanded" : "collapsed"}]${markerOf("summary")}`
        const next = renamed(line, head, "button")
        const h = parseLineHead(next, indent)!
        const at = h.ref?.start ?? h.attrsEnd
        // The state read from the page replaces any playwright printed.
        const before = next.slice(0, at).replace(/ \[(?:expanded|collapsed)\]/g, "")
        lines[i] = before + state + next.slice(at)
        continue
      }
    }
    if (editables.length === 0 || !editables.some((c) => c.name === name)) continue
    const inline = inlineOf(line, head)
    const end = inline === undefined ? subtreeEnd(lines, i) : i + 1
    const text = inline !== undefined ? norm(inline) : end > i + 1 ? subtreeText(lines, i + 1, end, longest) : ""
    const e = takeFirst(editables, (c) => c.name === name && c.text === text && (text !== "" || name !== ""))
    if (e === undefined) continue
    const next = renamed(line, head, "textbox")
    const h = parseLineHead(next, indent)!
    const at = h.ref?.start ?? h.attrsEnd
    const value = inline === undefined && text !== "" ? ` [value=${attrValue(clip(text))}]` : ""
    lines[i] = next.slice(0, at) + value + markerOf("editable") + next.slice(at)
  }
  return lines
}

/** Default-mode text: each summary's line put first in its group, split from the text it was merged with. */
const placeSummaries = (lines: Array<string>, summaries: Array<Summary>): Array<string> => {
  const out: Array<string> = []
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const indent = indentOf(line)
    if (summaries.length === 0 || !line.startsWith("- group", indent)) {
      out.push(line)
      continue
    }
    const head = parseLineHead(line, indent)
    if (head === undefined || head.role !== "group") {
      out.push(line)
      continue
    }
    const starts = (text: string) => (s: Summary) => s.text !== "" && (text === s.text || text.startsWith(`${s.text} `))
    const inline = inlineOf(line, head)
    if (inline !== undefined) {
      const s = takeFirst(summaries, starts(norm(inline)))
      if (s === undefined) {
        out.push(line)
        continue
      }
      const rest = norm(inline).slice(s.text.length).trim()
      out.push(withTail(line, head, ":"), summaryLine(indent + 2, s), ...(rest !== "" ? [textLine(indent + 2, rest)] : []))
      continue
    }
    out.push(line)
    const child = lines[i + 1]
    if (tailOf(line, head) !== ":" || child === undefined || indentOf(child) !== indent + 2) continue
    const ch = parseLineHead(child, indent + 2)
    if (ch === undefined) continue
    const childText = norm(inlineOf(child, ch) ?? (ch.role === "text" ? "" : nameOf(child, ch)))
    if (ch.role === "text") {
      const s = takeFirst(summaries, starts(childText))
      if (s === undefined) continue
      const rest = childText.slice(s.text.length).trim()
      out.push(summaryLine(indent + 2, s), ...(rest !== "" ? [textLine(indent + 2, rest)] : []))
      i++ // the text line was replaced
    } else {
      // A summary made of an element (a heading, say): its line comes first, the element stays.
      const s = takeFirst(summaries, (c) => c.text !== "" && c.text === childText)
      if (s !== undefined) out.push(summaryLine(indent + 2, s))
    }
  }
  return out
}

/** Default-mode text: one editor placed, searching from `from` (document order); the index of its line or -1. */
const placeEditable = (lines: Array<string>, e: PseudoControl, from: number): number => {
  const n = lines.length
  const order = function*() {
    for (let k = from; k < n; k++) yield k
    for (let k = 0; k < Math.min(from, n); k++) yield k
  }
  // Only lines that hold its first word are read further (most of a big page is skipped at that test).
  const firstWord = e.text.split(" ", 1)[0]!
  // Its text inside one line's text.
  for (const i of order()) {
    const line = lines[i]!
    if (!line.includes(firstWord)) continue
    const indent = indentOf(line)
    const head = parseLineHead(line, indent)
    if (head === undefined || OWN_VALUE_ROLES.has(head.role) || line.includes(" [~", indent)) continue
    const v = inlineOf(line, head)
    if (v === undefined) continue
    const text = norm(v)
    const at = findText(text, e.text)
    if (at < 0) continue
    const before = text.slice(0, at).trim()
    const after = text.slice(at + e.text.length).trim()
    const child = head.role === "text" ? indent : indent + 2
    const replacement = [
      ...(head.role === "text" ? [] : [withTail(line, head, ":")]),
      ...(before !== "" ? [textLine(child, before)] : []),
      editableLeaf(child, e),
      ...(after !== "" ? [textLine(child, after)] : [])
    ]
    lines.splice(i, 1, ...replacement)
    return i + replacement.indexOf(editableLeaf(child, e))
  }
  // Its text made of whole sibling lines (an editor with paragraphs): they are wrapped in its line.
  for (const s of order()) {
    const first = lines[s]!
    if (!first.includes(firstWord)) continue
    const indent = indentOf(first)
    if (parseLineHead(first, indent) === undefined || first.includes(" [~", indent)) continue
    let acc = ""
    let k = s
    while (k < n && indentOf(lines[k]!) === indent) {
      const end = subtreeEnd(lines, k)
      acc = norm(`${acc} ${subtreeText(lines, k, end, 2 * e.text.length + 16)}`)
      if (acc === e.text) {
        for (let j = s; j < end; j++) lines[j] = `  ${lines[j]}`
        lines.splice(s, 0, editableParent(indent, e))
        return s
      }
      if (!e.text.startsWith(acc)) break
      k = end
    }
  }
  return -1
}

/** The lines with the page's summaries and plain editors placed (see above). */
export const placePseudoControls = (lines: Array<string>, controls: PageControls): Array<string> => {
  const summaries = [...(controls.summaries ?? [])]
  const editables = [...(controls.plainEditables ?? [])]
  if (summaries.length === 0 && editables.length === 0) return lines
  if (lines.some((l) => l.includes("[ref="))) return placeInAiText(lines, summaries, editables)
  const out = placeSummaries(lines, summaries)
  let from = 0
  for (const e of editables) {
    if (e.text === "") continue
    const at = placeEditable(out, e, from)
    if (at >= 0) from = at + 1
  }
  return out
}
