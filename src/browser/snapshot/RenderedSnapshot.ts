import type { Box } from "./AriaLine.js"

// What the AI and role renderers both give back: the refs they hand out, the counts an agent sees, the
// boxes a labels screenshot draws, and which roles count as interactive.

export interface RefInfo {
  readonly role: string
  readonly name: string
  readonly nth?: number
}

export interface SnapshotStats {
  readonly lines: number
  readonly chars: number
  readonly refs: number
  readonly interactive: number
}

export interface LabelBox extends Box {
  readonly ref: string
}

/** Roles an agent acts on; `interactive` lists these and nothing else. */
export const INTERACTIVE_ROLES: ReadonlySet<string> = new Set([
  "button",
  "link",
  "textbox",
  "searchbox",
  "checkbox",
  "radio",
  "combobox",
  "listbox",
  "option",
  "menuitem",
  "menuitemcheckbox",
  "menuitemradio",
  "tab",
  "slider",
  "switch",
  "spinbutton",
  "treeitem"
])
