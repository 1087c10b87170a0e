// One line of playwright's YAML-like snapshot text: `- role "name" [attr] [attr=v]: value`, the whole key
// single-quoted when YAML needs it (`- 'button "a: b" [ref=e2]'`). Parsed as offsets into the line, with no
// copies, because both renderers run over every line of snapshots with thousands of nodes.

export interface Box {
  readonly x: number
  readonly y: number
  readonly width: number
  readonly height: number
}

/** The parts of a node line, as offsets into it. */
export interface LineHead {
  readonly indent: number
  readonly quoted: boolean
  readonly role: string
  /** Where the key starts (after `- ` and the opening quote). */
  readonly keyStart: number
  /** The name's JSON text (quotes included) or -1. */
  readonly nameStart: number
  readonly nameEnd: number
  /** Where the attributes end: what follows is the closing quote (if quoted), then `:` and the value. */
  readonly attrsEnd: number
  readonly ref: { readonly start: number; readonly end: number; readonly value: string } | undefined
  readonly box: { readonly start: number; readonly end: number; readonly value: string } | undefined
}

const isRoleChar = (c: number) => c >= 97 && c <= 122 // a-z

/** Parses `- role "name" [a] [b=c]…` from `indent`; undefined for text, props (`- /url: …`) and other lines. */
export const parseLineHead = (line: string, indent: number): LineHead | undefined => {
  let i = indent
  if (line.charCodeAt(i) !== 45 || line.charCodeAt(i + 1) !== 32) return undefined // "- "
  i += 2
  const quoted = line.charCodeAt(i) === 39 // '
  if (quoted) i++
  const keyStart = i
  while (i < line.length && isRoleChar(line.charCodeAt(i))) i++
  if (i === keyStart) return undefined
  const role = line.slice(keyStart, i)
  let nameStart = -1
  let nameEnd = -1
  if (line.charCodeAt(i) === 32 && line.charCodeAt(i + 1) === 34) {
    let j = i + 2
    while (j < line.length) {
      const c = line.charCodeAt(j)
      if (c === 92) j += 2 // backslash escape
      else if (c === 34) break
      else j++
    }
    nameStart = i + 1
    nameEnd = Math.min(j + 1, line.length)
    i = nameEnd
  }
  let ref: LineHead["ref"]
  let box: LineHead["box"]
  while (line.charCodeAt(i) === 32 && line.charCodeAt(i + 1) === 91) { // " ["
    const close = line.indexOf("]", i + 2)
    if (close < 0) break
    if (line.startsWith("ref=", i + 2)) ref = { start: i, end: close + 1, value: line.slice(i + 6, close) }
    else if (line.startsWith("box=", i + 2)) box = { start: i, end: close + 1, value: line.slice(i + 6, close) }
    i = close + 1
  }
  return { indent, quoted, role, keyStart, nameStart, nameEnd, attrsEnd: i, ref, box }
}

/** The name of a parsed line ("" when it has none). */
export const nameOf = (line: string, head: LineHead): string => {
  if (head.nameStart < 0) return ""
  let json = line.slice(head.nameStart, head.nameEnd)
  if (head.quoted) json = json.replace(/''/g, "'")
  try {
    const v: unknown = JSON.parse(json)
    return typeof v === "string" ? v : json
  } catch {
    return json.slice(1, -1)
  }
}

/** A box attribute's `x,y,width,height`; undefined when it is not four numbers. */
export const parseBox = (value: string): Box | undefined => {
  const parts = value.split(",").map(Number)
  if (parts.length !== 4 || parts.some((n) => !Number.isFinite(n))) return undefined
  return { x: parts[0]!, y: parts[1]!, width: parts[2]!, height: parts[3]! }
}

/** The spaces a line starts with. */
export const indentOf = (line: string) => {
  let i = 0
  while (line.charCodeAt(i) === 32) i++
  return i
}

export const ESCAPES: Record<string, string> = { "\\": "\\", "\"": "\"", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" }

/** A YAML value as playwright prints it: plain, or double-quoted with its escapes (\\ \" \n … \xHH). */
export const scalarOf = (raw: string): string => {
  const s = raw.trim()
  if (s.length >= 2 && s.startsWith("\"") && s.endsWith("\"")) {
    return s.slice(1, -1).replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|.)/g, (_, e: string) =>
      e.length > 1 ? String.fromCharCode(parseInt(e.slice(1), 16)) : ESCAPES[e] ?? e)
  }
  if (s.length >= 2 && s.startsWith("'") && s.endsWith("'")) return s.slice(1, -1).replace(/''/g, "'")
  return s
}

/** An attribute value that the line parsers read back whole (`]` would end the attribute). */
export const attrValue = (s: string) => JSON.stringify(s).replace(/\]/g, "\\u005d")

/** A value after `: `, quoted when YAML would read it otherwise. */
export const valueText = (s: string) =>
  s !== "" && !/^[\s\-?:,[\]{}#&*!|>'"%@`]|^(?:true|false|null|~|[-+]?[\d.]+)$|: | #|\s$/i.test(s) ? s : JSON.stringify(s)
