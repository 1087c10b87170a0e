import { type RoleRefEntry, roleKey } from "../act/Refs.js"
import { type Box, indentOf, type LineHead, nameOf, parseBox, parseLineHead } from "./AriaLine.js"
import { Output } from "./CharacterCap.js"
import { findMarker, PSEUDO_ROLES } from "./PseudoControls.js"
import { boxAttr, forgetDropped, INTERACTIVE_ROLES, type LabelBox, type RefInfo, type SnapshotStats } from "./RenderedSnapshot.js"
import type { Unread } from "./walkBound.js"

// Role snapshots: playwright's default-mode ARIA text, parsed into a tree, then shown with e<n> refs that
// resolve by role and name (getByRole), through the interactive, compact and depth filters.

/** Roles that never get a role ref: not elements, or not something getByRole finds. */
const NO_ROLE_REF: ReadonlySet<string> = new Set(["text", "iframe", "document", "none", "presentation", "generic"])

export interface RoleNode {
  /** Level in the tree (top level = 0). */
  readonly level: number
  readonly parent: number
  /** "" for text, props and anything else that is not an element line. */
  readonly role: string
  /** What its ref is looked up by: the role, or a PseudoControls kind (a plain editor shown as textbox). */
  readonly lookup: string
  readonly name: string | undefined
  /** The line with its box attribute taken out. */
  readonly line: string
  readonly head: LineHead | undefined
  readonly box: Box | undefined
}

/** The nodes of a default-mode ARIA snapshot, in document order, with their parents. */
export const parseRoleSnapshot = (raw: string): Array<RoleNode> => {
  const nodes: Array<RoleNode> = []
  const stack: Array<{ indent: number; index: number }> = []
  let pos = 0
  while (pos < raw.length) {
    let end = raw.indexOf("\n", pos)
    if (end < 0) end = raw.length
    let line = raw.slice(pos, end)
    pos = end + 1
    if (line.trim() === "") continue
    const indent = indentOf(line)
    while (stack.length > 0 && indent <= stack[stack.length - 1]!.indent) stack.pop()
    const parent = stack.length > 0 ? stack[stack.length - 1]!.index : -1
    let head = parseLineHead(line, indent)
    let box: Box | undefined
    const marker = head !== undefined ? findMarker(line, head.keyStart) : undefined
    if (marker !== undefined) {
      line = line.slice(0, marker.start) + line.slice(marker.end)
      head = parseLineHead(line, indent)
    }
    if (head?.box !== undefined) {
      box = parseBox(head.box.value)
      line = line.slice(0, head.box.start) + line.slice(head.box.end)
      head = parseLineHead(line, indent)
    }
    const isElement = head !== undefined && head.role !== "text"
    const role = isElement ? head!.role : ""
    nodes.push({
      level: stack.length,
      parent,
      role,
      lookup: marker?.kind ?? role,
      name: isElement && head!.nameStart >= 0 ? nameOf(line, head!) : undefined,
      line,
      head,
      box
    })
    stack.push({ indent, index: nodes.length - 1 })
  }
  return nodes
}

export interface RoleRenderOptions {
  readonly limit: number
  readonly interactive: boolean
  readonly compact: boolean
  /** Levels shown (top level = 1); undefined for all. */
  readonly depth: number | undefined
  readonly frameSelector?: string | undefined
  readonly scopeSelector?: string | undefined
  /** What the cap's notice suggests; see {@link narrowHint}. */
  readonly hint?: string | undefined
  /** The tab's number for a role target (see roleKey). */
  readonly numberFor: (key: string) => number
  /** The read stopped where the cap would fall (walkBound.ts): what the page has after it. */
  readonly unread?: Unread | undefined
  /** Keep each ref's box in its line (viewport CSS pixels). */
  readonly showBoxes?: boolean | undefined
  /** Where the read's content starts in the viewport (an iframe's), added to every box. */
  readonly boxOffset?: { readonly x: number; readonly y: number } | undefined
}

export interface RenderedRole {
  readonly text: string
  readonly refs: Record<string, RefInfo>
  readonly entries: Array<readonly [string, RoleRefEntry]>
  readonly truncated: boolean
  readonly stats: SnapshotStats
  readonly boxes: Array<LabelBox>
}

/** What a cut snapshot suggests passing: ways to narrow it that are not already in use. */
export const narrowHint = (o: { readonly interactive: boolean; readonly compact: boolean; readonly scoped: boolean }) => {
  const selector = o.scoped ? "a narrower --selector" : "--selector <css>"
  const ways = o.interactive ? [selector] : o.compact ? ["--interactive", selector] : ["--efficient", "--interactive", selector]
  const list = ways.length === 1 ? ways[0]! : `${ways.slice(0, -1).join(", ")} or ${ways[ways.length - 1]}`
  return `Pass a higher --limit, or narrow it with ${list}`
}

/** The last line of a snapshot whose depth limit left interactive elements out: how many, and how to see them. */
const deeperNotice = (count: number, depth: number, interactive: boolean) =>
  `[${count} interactive element(s) deeper than --depth ${depth} not shown; ` +
  (interactive ? "raise --depth, or leave it out to list them all]" : "`--interactive` lists them all]")

/** Whether a node gets a role ref. */
const refEligible = (node: RoleNode, interactiveOnly: boolean) => {
  if (node.role === "" || NO_ROLE_REF.has(node.role)) return false
  if (INTERACTIVE_ROLES.has(node.role)) return true
  return !interactiveOnly && node.name !== undefined && node.name !== ""
}

/**
 * Role refs, nth and the filters. nth and the expected counts are computed over every node of the
 * snapshot, whatever the filters show, because resolution asks getByRole over the same scope: a named node
 * is found by role and exact name, an unnamed one by role alone (which also finds the named ones).
 */
export const renderRoleSnapshot = (nodes: ReadonlyArray<RoleNode>, options: RoleRenderOptions): RenderedRole => {
  const n = nodes.length
  const offset = options.boxOffset
  const moved = (b: Box): Box => (offset === undefined ? b : { ...b, x: b.x + offset.x, y: b.y + offset.y })
  // nth among nodes with the same role (+ name), and the totals.
  const byRole = new Map<string, number>()
  const byRoleName = new Map<string, number>()
  const nthRole = new Int32Array(n)
  const nthNamed = new Int32Array(n)
  for (let i = 0; i < n; i++) {
    const node = nodes[i]!
    if (node.role === "") continue
    const named = node.name !== undefined && node.name !== ""
    // An unnamed plain editor's ref counts the unnamed ones only (pseudoLocator finds those).
    if (!named || !PSEUDO_ROLES.has(node.lookup)) {
      nthRole[i] = byRole.get(node.lookup) ?? 0
      byRole.set(node.lookup, nthRole[i]! + 1)
    }
    if (named) {
      const k = `${node.lookup}\u0000${node.name}`
      nthNamed[i] = byRoleName.get(k) ?? 0
      byRoleName.set(k, nthNamed[i]! + 1)
    }
  }
  const eligible = new Uint8Array(n)
  let deeper = 0
  for (let i = 0; i < n; i++) {
    const node = nodes[i]!
    if (!refEligible(node, options.interactive)) continue
    if (options.depth === undefined || node.level < options.depth) eligible[i] = 1
    else if (INTERACTIVE_ROLES.has(node.role)) deeper++
  }
  // Which nodes show, and at which level.
  const shown = new Uint8Array(n)
  if (options.interactive) {
    shown.set(eligible)
  } else {
    const subtreeHasRef = new Uint8Array(n)
    for (let i = n - 1; i >= 0; i--) {
      if (eligible[i] === 1) subtreeHasRef[i] = 1
      const p = nodes[i]!.parent
      if (subtreeHasRef[i] === 1 && p >= 0) subtreeHasRef[p] = 1
    }
    for (let i = 0; i < n; i++) {
      const node = nodes[i]!
      if (options.depth !== undefined && node.level >= options.depth) continue
      if (!options.compact) shown[i] = 1
      else if (eligible[i] === 1) shown[i] = 1
      else if (subtreeHasRef[i] === 1 && node.name !== undefined && node.name !== "") shown[i] = 1
    }
  }
  const shownLevel = new Int32Array(n)
  const childLevel = new Int32Array(n)
  const hasShownChild = new Uint8Array(n)
  const nearestShown = new Int32Array(n)
  for (let i = 0; i < n; i++) {
    const p = nodes[i]!.parent
    const levelHere = options.interactive ? 0 : p >= 0 ? childLevel[p]! : 0
    const anchor = p >= 0 ? nearestShown[p]! : -1
    if (shown[i] === 1) {
      shownLevel[i] = levelHere
      childLevel[i] = levelHere + 1
      nearestShown[i] = i
      if (anchor >= 0) hasShownChild[anchor] = 1
    } else {
      childLevel[i] = levelHere
      nearestShown[i] = anchor
    }
  }

  const out = new Output(
    options.limit,
    options.hint ?? narrowHint({ interactive: options.interactive, compact: options.compact, scoped: options.scopeSelector !== undefined })
  )
  const refs: Record<string, RefInfo> = {}
  const entries: Array<readonly [string, RoleRefEntry]> = []
  const boxes: Array<LabelBox> = []
  let interactive = 0
  let hidden = 0
  let hiddenInteractive = 0
  for (let i = 0; i < n; i++) {
    if (shown[i] !== 1) continue
    if (out.full) {
      hidden++
      if (eligible[i] === 1 && INTERACTIVE_ROLES.has(nodes[i]!.role)) hiddenInteractive++
      continue
    }
    const node = nodes[i]!
    const head = node.head
    const line = node.line
    const indent = "  ".repeat(shownLevel[i]!)
    let ref: string | undefined
    let entry: RoleRefEntry | undefined
    let text: string
    if (head === undefined) {
      text = indent + line.slice(indentOf(line))
    } else {
      let extra = ""
      if (eligible[i] === 1) {
        const named = node.name !== undefined && node.name !== ""
        const nth = named ? nthNamed[i]! : nthRole[i]!
        const count = named ? byRoleName.get(`${node.lookup}\u0000${node.name}`)! : byRole.get(node.lookup)!
        const target = {
          role: node.lookup,
          name: named ? node.name : undefined,
          nth,
          frameSelector: options.frameSelector,
          scopeSelector: options.scopeSelector
        }
        ref = `e${options.numberFor(roleKey(target))}`
        entry = { ...target, count }
        extra = ` [ref=${ref}]${count > 1 ? ` [nth=${nth}]` : ""}`
        if (options.showBoxes === true && node.box !== undefined) extra += boxAttr(moved(node.box))
      }
      // The tail after the attributes: closing quote (if quoted), then ":" (children follow) or ": value".
      let tail = line.slice(head.attrsEnd)
      let close = ""
      if (head.quoted && tail.startsWith("'")) {
        close = "'"
        tail = tail.slice(1)
      }
      if (tail === ":" && (options.interactive || hasShownChild[i] !== 1)) tail = ""
      text = `${indent}- ${head.quoted ? "'" : ""}${line.slice(head.keyStart, head.attrsEnd)}${extra}${close}${tail}`
    }
    if (!out.push(text, ref)) {
      hidden++
      if (ref !== undefined && INTERACTIVE_ROLES.has(node.role)) hiddenInteractive++
      continue
    }
    if (ref !== undefined && entry !== undefined) {
      // The role shown (a plain editor's `textbox`), not the kind its ref is looked up by.
      const info: RefInfo = entry.count > 1
        ? { role: node.role, name: entry.name ?? "", nth: entry.nth }
        : { role: node.role, name: entry.name ?? "" }
      refs[ref] = info
      entries.push([ref, entry])
      if (INTERACTIVE_ROLES.has(node.role)) interactive++
      if (node.box !== undefined) boxes.push({ ref, ...moved(node.box) })
    }
  }
  const { text, dropped } = out.finish(hidden, {
    hiddenInteractive,
    interactiveRef: (r) => INTERACTIVE_ROLES.has(refs[r]?.role ?? ""),
    ...(deeper > 0 ? { footer: deeperNotice(deeper, options.depth!, options.interactive) } : {}),
    unread: options.unread
  })
  interactive -= forgetDropped(dropped, { refs, entries, boxes })
  return {
    text,
    refs,
    entries,
    truncated: out.full || options.unread !== undefined,
    stats: { lines: out.lines.length, chars: text.length, refs: entries.length, interactive },
    boxes
  }
}
