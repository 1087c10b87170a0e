import { attrValue, ESCAPES, indentOf, type LineHead, nameOf, parseLineHead, scalarOf, valueText } from "./AriaLine.js"
import type { PageControls } from "./PageControls.js"
import { findMarker } from "./PseudoControls.js"
import { placePseudoControls } from "./PseudoLines.js"

// A control's state on its own line, whatever the snapshot mode. Playwright prints a text field's value and
// placeholder as child lines (`- /placeholder: …`, `- text: Ada`), which the interactive, compact and depth
// filters drop; it says nothing for an unchecked box or a collapsed button, and prints password values in
// clear. This pass rewrites playwright's text (AI or default mode) before it is rendered:
//   - textbox "Full name": Ada                        value on the line
//   - textbox "Email" [placeholder="you@example.com"]   placeholder only while empty
//   - textbox "Password": ••••••••                    a password shows that it is filled, never what
//   - checkbox "Agree" [unchecked]                    (checked ones keep playwright's [checked])
//   - combobox "Country" [value="Germany"]:           the selected option, options still listed below
//   - textbox "Editor" [value="First para Second"]:   an editor with paragraphs inside (or `: text` if none)
//   - button "Menu" [collapsed]                       (expanded ones keep playwright's [expanded])
//   - textbox "Notes": Some notes                      a plain contenteditable (PseudoLines.ts)
//   - button "More info" [collapsed]                   a details summary (PseudoLines.ts)

/** What a filled password field shows: what a person sees on the screen, and the same for every length. */
export const PASSWORD_MASK = "••••••••"

const VALUE_ROLES: ReadonlySet<string> = new Set(["textbox", "searchbox", "spinbutton", "combobox"])
const CHECK_ROLES: ReadonlySet<string> = new Set(["checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"])

/** Whitespace as playwright normalises it, so a value compares equal however it was printed. */
const normalise = (s: string) => s.replace(/[\u200b\u00ad]/g, "").replace(/\s+/g, " ").trim()

const UNESCAPES: Record<string, string> = Object.fromEntries(Object.entries(ESCAPES).map(([k, v]) => [v, `\\${k}`]))

/** A string inside playwright's double quotes (the inverse of {@link scalarOf}). */
const escapedAsPrinted = (s: string) =>
  // eslint-disable-next-line no-control-regex
  s.replace(/[\\"\u0000-\u001f\u007f-\u009f]/g, (c) => UNESCAPES[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`)

/**
 * Any password still in the text (a page that echoes it, a value printed in a form the fields did not
 * match) is replaced too, as printed and as escaped. Very short values are left to the field match: they
 * would mask ordinary words.
 */
const scrubPasswords = (text: string, passwords: ReadonlyArray<string>): string => {
  let out = text
  for (const pw of passwords) {
    if (pw.length < 4) continue
    for (const form of new Set([pw, escapedAsPrinted(pw)])) {
      if (out.includes(form)) out = out.split(form).join(PASSWORD_MASK)
    }
  }
  return out
}

/** Long editor texts are cut: the line says what the field holds, the children (if any) say it all. */
const MAX_VALUE_CHARS = 300
const clip = (s: string) => (s.length > MAX_VALUE_CHARS ? `${s.slice(0, MAX_VALUE_CHARS - 1)}…` : s)

/** The role word of a `- role …` line ("" for anything else), without parsing the rest. */
const roleAt = (line: string, indent: number): string => {
  if (line.charCodeAt(indent) !== 45 || line.charCodeAt(indent + 1) !== 32) return "" // "- "
  let i = indent + 2
  if (line.charCodeAt(i) === 39) i++ // '
  const start = i
  while (line.charCodeAt(i) >= 97 && line.charCodeAt(i) <= 122) i++ // a-z
  return line.slice(start, i)
}

interface Child {
  readonly kind: "placeholder" | "text" | "option" | "other"
  readonly value: string
  readonly selected: boolean
}

/** A direct child line of a control, classified. */
const childOf = (line: string, indent: number): Child => {
  if (line.startsWith("- /placeholder:", indent)) {
    return { kind: "placeholder", value: scalarOf(line.slice(indent + 15)), selected: false }
  }
  if (line.startsWith("- text:", indent)) return { kind: "text", value: scalarOf(line.slice(indent + 7)), selected: false }
  const head = parseLineHead(line, indent)
  if (head !== undefined && head.role === "option") {
    const attrs = line.slice(head.nameEnd < 0 ? head.keyStart : head.nameEnd, head.attrsEnd)
    return { kind: "option", value: nameOf(line, head), selected: attrs.includes("[selected]") }
  }
  return { kind: "other", value: "", selected: false }
}

/** Whether a line's attributes (between name and attrsEnd) include one starting with `name`. */
const hasAttr = (line: string, head: LineHead, name: string) =>
  line.slice(head.nameEnd < 0 ? head.keyStart : head.nameEnd, head.attrsEnd).includes(` [${name}`)

/** What follows a line's key (after the closing quote of a quoted one). */
const tailOf = (line: string, head: LineHead) => line.slice(head.attrsEnd + (head.quoted ? 1 : 0))

/** The value printed after the key (`- role "n": value`), or undefined when the line has none. */
const inlineValue = (line: string, head: LineHead): string | undefined => {
  const tail = tailOf(line, head)
  return tail.startsWith(": ") ? scalarOf(tail.slice(2)) : undefined
}

/**
 * A line rebuilt with extra attributes among its own (before the ref, where playwright puts states) and a
 * new tail (`""`, `":"` or `": value"`).
 */
const rebuild = (line: string, head: LineHead, extra: string, tail: string) => {
  const at = head.ref?.start ?? head.box?.start ?? head.attrsEnd
  return line.slice(0, at) + (head.quoted ? extra.replace(/'/g, "''") : extra) + line.slice(at, head.attrsEnd) +
    (head.quoted ? "'" : "") + tail
}

/** Looks up a state by role and name, only when every element with that role and name agrees. */
const disclosureIndex = (controls: PageControls) => {
  const byKey = new Map<string, boolean | "mixed">()
  for (const d of controls.disclosures) {
    const k = `${d.role}\u0000${d.name}`
    const seen = byKey.get(k)
    byKey.set(k, seen === undefined || seen === d.expanded ? d.expanded : "mixed")
  }
  return (role: string, name: string) => {
    const v = byKey.get(`${role}\u0000${name}`)
    return v === "mixed" ? undefined : v
  }
}

/**
 * Rewrites playwright's ARIA text so every control carries its state on its own line (see above). Linear
 * in the text: each line is read once, a control's direct children at most twice.
 */
export const foldControlState = (raw: string, controls: PageControls): string => {
  // Plain editors and details summaries first: their lines are final (marked, see PseudoControls).
  const lines = placePseudoControls(raw.split("\n"), controls)
  const passwords = new Set(controls.passwords.map(normalise))
  const expandedOf = disclosureIndex(controls)
  const editables = new Map<string, Array<string>>()
  for (const e of controls.editables) {
    const list = editables.get(e.name)
    if (list === undefined) editables.set(e.name, [e.text])
    else list.push(e.text)
  }
  const disclosed = new Set(controls.disclosures.map((d) => d.role))
  const out: Array<string> = []
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const indent = indentOf(line)
    // Most lines are not controls: their role word decides that before the whole line is parsed.
    const quick = roleAt(line, indent)
    if ((!VALUE_ROLES.has(quick) && !CHECK_ROLES.has(quick) && !disclosed.has(quick)) || findMarker(line, indent) !== undefined) {
      out.push(line)
      continue
    }
    const head = parseLineHead(line, indent)
    if (head === undefined || head.role === "text") {
      out.push(line)
      continue
    }
    const role = head.role
    let extra = ""
    if (CHECK_ROLES.has(role) && !hasAttr(line, head, "checked")) extra += " [unchecked]"
    if (!hasAttr(line, head, "expanded")) {
      const expanded = expandedOf(role, nameOf(line, head))
      if (expanded === false) extra += " [collapsed]"
      else if (expanded === true) extra += " [expanded]"
    }
    if (!VALUE_ROLES.has(role)) {
      out.push(extra === "" ? line : rebuild(line, head, extra, tailOf(line, head)))
      continue
    }
    // Direct children (indent + 2); anything deeper means this is not a simple field.
    let j = i + 1
    const children: Array<Child> = []
    let deeper = false
    while (j < lines.length && indentOf(lines[j]!) > indent) {
      const l = lines[j]!
      if (indentOf(l) === indent + 2) children.push(childOf(l, indent + 2))
      else deeper = true
      j++
    }
    const fieldOnly = !deeper && children.every((c) => c.kind === "placeholder" || c.kind === "text")
    if (!fieldOnly) {
      // A select: its selected option on the line, the options stay.
      const selected = children.filter((c) => c.kind === "option" && c.selected)
      if (role === "combobox" && selected.length === 1) extra += ` [value=${attrValue(selected[0]!.value)}]`
      // A rich-text editor (paragraphs inside): its text on the line too, which the filters keep.
      if (role === "textbox") {
        const text = editables.get(nameOf(line, head))?.shift()
        if (text !== undefined && text !== "") extra += ` [value=${attrValue(clip(text))}]`
      }
      out.push(extra === "" ? line : rebuild(line, head, extra, tailOf(line, head)))
      continue
    }
    let value = inlineValue(line, head) ?? children.filter((c) => c.kind === "text").map((c) => c.value).join(" ")
    const placeholder = children.find((c) => c.kind === "placeholder")?.value
    if (value === "" && role === "textbox") {
      const texts = editables.get(nameOf(line, head))
      if (texts !== undefined && texts.length > 0) value = texts.shift()!
    }
    if (value !== "" && (controls.unread || passwords.has(normalise(value)))) value = PASSWORD_MASK
    if (value === "" && placeholder !== undefined && placeholder !== "") extra += ` [placeholder=${attrValue(placeholder)}]`
    out.push(rebuild(line, head, extra, value === "" ? "" : `: ${valueText(value)}`))
    i = j - 1
  }
  return scrubPasswords(out.join("\n"), controls.passwords)
}
