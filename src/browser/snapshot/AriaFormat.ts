import { PASSWORD_MASK } from "./ControlLines.js"

// Renders Chromium's accessibility tree (CDP `Accessibility.getFullAXTree`) as an indented, YAML-like text
// tree in the spirit of Playwright's aria snapshot: one `- role "name" [state]` line per node, no refs.
// Pure: no I/O, so the shapes Chromium produces can be pinned in unit tests.

/** The subset of CDP's `Accessibility.AXValue` the renderer reads. */
export interface AxValue {
  readonly type?: string | undefined
  readonly value?: unknown
}

export interface AxProperty {
  readonly name: string
  readonly value: AxValue
}

/** The subset of CDP's `Accessibility.AXNode` the renderer reads (CDP's own type is assignable to it). */
export interface AxNode {
  readonly nodeId: string
  readonly parentId?: string | undefined
  readonly ignored: boolean
  readonly role?: AxValue | undefined
  readonly name?: AxValue | undefined
  readonly value?: AxValue | undefined
  readonly properties?: ReadonlyArray<AxProperty> | undefined
  readonly childIds?: ReadonlyArray<string> | undefined
  readonly backendDOMNodeId?: number | undefined
}

/** Why an iframe's content is not in the snapshot. */
export interface FrameGap {
  readonly _tag: "FrameGap"
  readonly reason: string
}

/** One frame's nodes, and the trees of the iframes inside it keyed by the iframe element's backendDOMNodeId. */
export interface AxTree {
  readonly nodes: ReadonlyArray<AxNode>
  readonly frames?: ReadonlyMap<number, AxTree | FrameGap> | undefined
}

export interface RenderedSnapshot {
  readonly text: string
  /** Node lines in `text` (text runs count; `/url:` property lines do not). */
  readonly nodes: number
  /** Node lines the whole tree would have without a limit. */
  readonly total: number
  readonly truncated: boolean
}

export const DEFAULT_SNAPSHOT_LIMIT = 2_000
export const MAX_SNAPSHOT_LIMIT = 100_000

const MAX_NAME_CHARS = 300
const MAX_URL_CHARS = 300

/** Roles whose content is their value: the value goes on the line and the editor's inner nodes are dropped. */
const VALUE_ROLES = new Set(["textbox", "searchbox", "spinbutton", "slider"])
/** Nodes that carry nothing a reader needs; their subtree is dropped. */
const DROPPED_ROLES = new Set(["InlineTextBox", "ListMarker", "LineBreak"])
/** Containers without meaning of their own; when unnamed their children take their place. */
const TRANSPARENT_ROLES = new Set([
  "generic",
  "none",
  "presentation",
  "RootWebArea",
  "WebArea",
  // Text-level semantics read better as part of the sentence: "Fill in all fields." rather than four lines.
  "emphasis",
  "strong",
  "code",
  "subscript",
  "superscript",
  "mark",
  "deletion",
  "insertion",
  "time"
])

export const frameGap = (reason: string): FrameGap => ({ _tag: "FrameGap", reason })

interface Ctx {
  readonly byId: ReadonlyMap<string, AxNode>
  readonly frames: ReadonlyMap<number, AxTree | FrameGap> | undefined
}

type Item =
  | { readonly kind: "node"; readonly node: AxNode; readonly ctx: Ctx }
  | { readonly kind: "text"; text: string }
  | { readonly kind: "prop"; readonly text: string }

type Kind = "drop" | "text" | "hoist" | "node"

const makeCtx = (tree: AxTree): Ctx => ({
  byId: new Map(tree.nodes.map((n) => [n.nodeId, n])),
  frames: tree.frames
})

const roleOf = (n: AxNode): string => (typeof n.role?.value === "string" ? n.role.value : "")

const collapse = (s: string): string => s.replace(/\s+/g, " ").trim()

const clip = (s: string, max: number): string => (s.length > max ? `${s.slice(0, max - 1)}…` : s)

const nameOf = (n: AxNode): string =>
  typeof n.name?.value === "string" ? clip(collapse(n.name.value), MAX_NAME_CHARS) : ""

const prop = (n: AxNode, name: string): unknown => n.properties?.find((p) => p.name === name)?.value.value

/**
 * The role a reader sees: an editing host without a role of its own (Chromium says generic) is a
 * textbox, a details summary (Chromium's DisclosureTriangle) a button, as in the AI and role snapshots.
 */
const shownRole = (n: AxNode): string => {
  const role = roleOf(n)
  if (role === "DisclosureTriangle") return "button"
  if (role === "generic" && prop(n, "editable") !== undefined && prop(n, "focusable") === true) return "textbox"
  return role
}

const classify = (n: AxNode): Kind => {
  if (n.ignored) return "hoist"
  const role = shownRole(n)
  if (DROPPED_ROLES.has(role)) return "drop"
  if (role === "StaticText") return "text"
  if (role === "Iframe") return "node"
  if (TRANSPARENT_ROLES.has(role)) return nameOf(n) === "" || role === "RootWebArea" ? "hoist" : "node"
  // Chromium's internal roles are capitalised (LabelText, Section, LayoutTable, ...): containers unless named.
  if (role === "" || /^[A-Z]/.test(role)) return nameOf(n) === "" ? "hoist" : "node"
  return "node"
}

const displayRole = (role: string): string =>
  role === "Iframe" ? "iframe" : /^[A-Z]/.test(role) ? role[0]!.toLowerCase() + role.slice(1) : role

const roots = (ctx: Ctx): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const n of ctx.byId.values()) {
    if (n.parentId === undefined || !ctx.byId.has(n.parentId)) out.push(n.nodeId)
  }
  return out
}

/**
 * The children a reader sees: dropped nodes removed, transparent ones replaced by their own children,
 * adjacent text runs merged into one. Iterative so a deep DOM cannot overflow the stack.
 */
const visibleChildren = (childIds: ReadonlyArray<string>, ctx: Ctx): Array<Item> => {
  const out: Array<Item> = []
  const stack: Array<{ readonly id: string; readonly ctx: Ctx }> = []
  for (let i = childIds.length - 1; i >= 0; i--) stack.push({ id: childIds[i]!, ctx })
  while (stack.length > 0) {
    const { ctx: c, id } = stack.pop()!
    const n = c.byId.get(id)
    if (n === undefined) continue
    switch (classify(n)) {
      case "drop":
        break
      case "hoist": {
        const kids = n.childIds ?? []
        for (let i = kids.length - 1; i >= 0; i--) stack.push({ id: kids[i]!, ctx: c })
        break
      }
      case "text": {
        const raw = typeof n.name?.value === "string" ? n.name.value : ""
        const last = out[out.length - 1]
        if (last !== undefined && last.kind === "text") last.text += raw
        else out.push({ kind: "text", text: raw })
        break
      }
      case "node":
        out.push({ kind: "node", node: n, ctx: c })
    }
  }
  // Merge first, collapse after: "Hi " + "bold" + " there" reads as one run.
  return out.flatMap((item): Array<Item> => {
    if (item.kind !== "text") return [item]
    const text = clip(collapse(item.text), MAX_NAME_CHARS)
    return text === "" ? [] : [{ kind: "text" as const, text }]
  })
}

/** The children of an iframe node: the root nodes of the frame's own tree, when it was captured. */
const frameChildren = (n: AxNode, ctx: Ctx): Array<Item> | FrameGap | undefined => {
  if (n.backendDOMNodeId === undefined || ctx.frames === undefined) return undefined
  const sub = ctx.frames.get(n.backendDOMNodeId)
  if (sub === undefined) return undefined
  if ("_tag" in sub) return sub
  const subCtx = makeCtx(sub)
  return visibleChildren(roots(subCtx), subCtx)
}

const states = (n: AxNode, role: string): string => {
  const out: Array<string> = []
  const checked = prop(n, "checked")
  if (checked === "true" || checked === true) out.push("checked")
  else if (checked === "mixed") out.push("checked=mixed")
  else if (checked === "false" || checked === false) out.push("unchecked")
  if (prop(n, "disabled") === true) out.push("disabled")
  const expanded = prop(n, "expanded")
  if (expanded === true) out.push("expanded")
  else if (expanded === false) out.push("collapsed")
  const level = prop(n, "level")
  if (role === "heading" && typeof level === "number") out.push(`level=${level}`)
  const pressed = prop(n, "pressed")
  if (pressed === "true" || pressed === true) out.push("pressed")
  else if (pressed === "mixed") out.push("pressed=mixed")
  if (prop(n, "selected") === true) out.push("selected")
  return out.map((s) => ` [${s}]`).join("")
}

const YAML_RESERVED = /^(?:true|false|null|yes|no|on|off|~|[-+]?(?:\d[\d_]*)?\.?\d+(?:[eE][-+]?\d+)?)$/i

/** A YAML plain scalar when that reads unambiguously, a JSON (hence YAML) double-quoted string otherwise. */
export const yamlScalar = (s: string): string => {
  const plain =
    s !== "" &&
    !YAML_RESERVED.test(s) &&
    !/^[\s\-?:,[\]{}#&*!|>'"%@`]/.test(s) &&
    !/\s$/.test(s) &&
    !/: |:$| #/.test(s) &&
    // eslint-disable-next-line no-control-regex
    !/[\u0000-\u001f\u007f]/.test(s)
  return plain ? s : JSON.stringify(s)
}

/** Chromium gives a password field's value as one bullet per character: shown as every snapshot shows it. */
const MASKED = /^\u2022+$/

const valueText = (n: AxNode): string | undefined => {
  const v = n.value?.value
  if (typeof v === "string") return MASKED.test(v) ? PASSWORD_MASK : clip(collapse(v), MAX_NAME_CHARS)
  if (typeof v === "number" || typeof v === "boolean") return String(v)
  return undefined
}

/**
 * Renders the tree. `limit` caps the node lines; when it cuts, the text ends with a comment line saying how
 * many nodes there were and how to see them.
 */
export const renderAriaSnapshot = (tree: AxTree, options: { readonly limit?: number } = {}): RenderedSnapshot => {
  const limit = Math.max(1, Math.floor(options.limit ?? DEFAULT_SNAPSHOT_LIMIT))
  const ctx = makeCtx(tree)
  const lines: Array<string> = []
  let total = 0
  let shown = 0

  const stack: Array<{ readonly item: Item; readonly depth: number }> = []
  const pushAll = (items: ReadonlyArray<Item>, depth: number) => {
    for (let i = items.length - 1; i >= 0; i--) stack.push({ item: items[i]!, depth })
  }
  pushAll(visibleChildren(roots(ctx), ctx), 0)

  while (stack.length > 0) {
    const { depth, item } = stack.pop()!
    const indent = "  ".repeat(depth)
    if (item.kind === "prop") {
      if (total <= limit) lines.push(`${indent}- ${item.text}`)
      continue
    }
    total++
    const emit = total <= limit
    if (emit) shown++
    if (item.kind === "text") {
      if (emit) lines.push(`${indent}- text: ${yamlScalar(item.text)}`)
      continue
    }

    const { ctx: c, node } = item
    const role = shownRole(node)
    const name = nameOf(node)
    let inline: string | undefined
    let kids: Array<Item> = []
    let gap: FrameGap | undefined

    if (role === "Iframe") {
      const sub = frameChildren(node, c)
      if (sub !== undefined && !Array.isArray(sub)) gap = sub as FrameGap
      else kids = sub ?? []
    } else if (VALUE_ROLES.has(role)) {
      inline = valueText(node)
    } else {
      kids = visibleChildren(node.childIds ?? [], c)
      const only = kids[0]
      if (kids.length === 1 && only !== undefined && only.kind === "text") {
        if (only.text !== name) inline = only.text
        kids = []
      }
      if (role === "combobox" && kids.length === 0 && inline === undefined) inline = valueText(node)
    }

    const url = prop(node, "url")
    if (role === "link" && typeof url === "string" && url !== "") {
      if (inline !== undefined) {
        kids = [{ kind: "text", text: inline }]
        inline = undefined
      }
      kids.unshift({ kind: "prop", text: `/url: ${yamlScalar(clip(url, MAX_URL_CHARS))}` })
    }

    if (emit) {
      const head = `${indent}- ${displayRole(role)}${name === "" ? "" : ` ${JSON.stringify(name)}`}${states(node, role)}`
      const tail = gap !== undefined
        ? ` [not captured: ${gap.reason}]`
        : inline !== undefined && inline !== ""
        ? `: ${yamlScalar(inline)}`
        : kids.length > 0
        ? ":"
        : ""
      lines.push(head + tail)
    }
    pushAll(kids, depth + 1)
  }

  const truncated = total > limit
  if (truncated) {
    lines.push(
      `# truncated: showed ${shown} of ${total} nodes; raise the limit with --limit <n> (--limit ${
        Math.min(total, MAX_SNAPSHOT_LIMIT)
      } shows ${total > MAX_SNAPSHOT_LIMIT ? `the first ${MAX_SNAPSHOT_LIMIT}` : "all"})`
    )
  }
  return { text: lines.join("\n"), nodes: shown, total, truncated }
}

/** The backendDOMNodeIds of the iframe elements in a frame's tree, whose documents the renderer can inline. */
export const iframeOwners = (nodes: ReadonlyArray<AxNode>): ReadonlyArray<number> =>
  nodes.flatMap((n) => (!n.ignored && roleOf(n) === "Iframe" && n.backendDOMNodeId !== undefined ? [n.backendDOMNodeId] : []))

/** The document's title and URL as the tree's root node reports them. */
export const documentInfo = (nodes: ReadonlyArray<AxNode>): { readonly title?: string; readonly url?: string } => {
  const root = nodes.find((n) => roleOf(n) === "RootWebArea")
  if (root === undefined) return {}
  const url = prop(root, "url")
  const title = typeof root.name?.value === "string" ? root.name.value : undefined
  return {
    ...(title !== undefined ? { title } : {}),
    ...(typeof url === "string" ? { url } : {})
  }
}
