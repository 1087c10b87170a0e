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

/** ` [box=x,y,width,height]`: an element's box as a snapshot line shows it, in whole CSS pixels of the viewport. */
export const boxAttr = (b: Box): string =>
  ` [box=${Math.round(b.x)},${Math.round(b.y)},${Math.round(b.width)},${Math.round(b.height)}]`

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

/**
 * Forgets the refs whose lines the character cap cut (their elements are not in the text the agent
 * reads): from the ref table, the entries and the label boxes. Answers how many of them were interactive.
 */
export const forgetDropped = (
  dropped: ReadonlyArray<string>,
  rendered: {
    readonly refs: Record<string, RefInfo>
    readonly entries: Array<readonly [string, unknown]>
    readonly boxes: Array<LabelBox>
  }
): number => {
  if (dropped.length === 0) return 0
  const gone = new Set(dropped)
  let interactive = 0
  for (const r of gone) {
    if (INTERACTIVE_ROLES.has(rendered.refs[r]!.role)) interactive++
    delete rendered.refs[r]
  }
  rendered.entries.splice(0, rendered.entries.length, ...rendered.entries.filter(([k]) => !gone.has(k)))
  rendered.boxes.splice(0, rendered.boxes.length, ...rendered.boxes.filter((b) => !gone.has(b.ref)))
  return interactive
}
