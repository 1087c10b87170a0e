import type { FrameLocator, Locator, Page } from "playwright-core"

// Controls that playwright's ARIA roles miss: a plain contenteditable (a div or span without a role, which
// playwright calls generic) and a <details> summary (generic too). Snapshots show them as what an agent
// acts on, `textbox` and `button [collapsed]`, and their refs are looked up by a kind of their own (never
// by getByRole, which cannot find them), so a page where one of them could not be placed in a snapshot
// leaves the refs of real textboxes and buttons alone.
//
// In the text that ControlLines hands to the renderers, such a line carries a marker attribute
// (` [~editable]`, ` [~summary]`) that the renderers take out and turn into the ref's lookup kind.

export type PseudoKind = "editable" | "summary"

/** The role a snapshot shows for each kind. */
export const SHOWN_ROLE: Readonly<Record<PseudoKind, string>> = { editable: "textbox", summary: "button" }

/** The lookup "roles" ref entries carry for these elements (never a real ARIA role). */
export const PSEUDO_ROLES: ReadonlySet<string> = new Set<PseudoKind>(["editable", "summary"])

/** The role a ref's lookup role is shown as (itself for a real role). */
export const shownRole = (role: string): string => PSEUDO_ROLES.has(role) ? SHOWN_ROLE[role as PseudoKind] : role

export const markerOf = (kind: PseudoKind) => ` [~${kind}]`

/** The marker in a line (after `from`), or undefined; cheap for the lines that have none. */
export const findMarker = (line: string, from = 0):
  | { readonly kind: PseudoKind; readonly start: number; readonly end: number }
  | undefined =>
{
  const at = line.indexOf(" [~", from)
  if (at < 0) return undefined
  if (line.startsWith(" [~editable]", at)) return { kind: "editable", start: at, end: at + 12 }
  if (line.startsWith(" [~summary]", at)) return { kind: "summary", start: at, end: at + 11 }
  return undefined
}

/** The line without its marker, and the kind it named. */
export const takeMarker = (line: string): { readonly line: string; readonly kind: PseudoKind | undefined } => {
  const m = findMarker(line)
  return m === undefined ? { line, kind: undefined } : { line: line.slice(0, m.start) + line.slice(m.end), kind: m.kind }
}

/**
 * The elements PageControls reads as these kinds (the same rules in the page, see READ_CONTROLS): an
 * editing host that is a div or span without a role (not nested in another one), and the first summary
 * of a details element, without a role. Hidden ones are not in any snapshot, so not here either.
 */
export const EDITABLE_CSS =
  ":is(div, span)[contenteditable]:not([contenteditable=\"false\" i]):not([role]):not([contenteditable] *)"
export const SUMMARY_CSS = "details > summary:first-of-type:not([role])"
const UNNAMED = ":not([aria-label]):not([aria-labelledby]):not([title])"

/**
 * The elements of a kind with the (exact) accessible name, or the unnamed ones of that kind when the ref
 * has no name; undefined for a real role. Names: an editing host's come from aria-label(ledby) or title, a summary's
 * from its text too.
 */
export const pseudoLocator = (within: Page | FrameLocator, role: string, name: string | undefined): Locator | undefined => {
  if (!PSEUDO_ROLES.has(role)) return undefined
  const css = role === "editable" ? EDITABLE_CSS : SUMMARY_CSS
  // Unlike getByRole, a ref without a name stands among the unnamed ones only: the snapshot counts them so.
  if (name === undefined || name === "") return within.locator(`${css}${UNNAMED}`).filter({ visible: true })
  const all = within.locator(css).filter({ visible: true })
  const labelled = all.and(within.getByLabel(name, { exact: true }).or(within.getByTitle(name, { exact: true })))
  // A summary is named by its text, which may sit in an element inside it (`<summary><h3>…`).
  return role === "summary" ? all.filter({ hasText: wholeText(name) }).or(labelled) : labelled
}

/** The whole text of an element, whitespace as it may be in the page. */
const wholeText = (name: string) =>
  new RegExp(`^\\s*${name.trim().split(/\s+/).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("\\s+")}\\s*$`)
