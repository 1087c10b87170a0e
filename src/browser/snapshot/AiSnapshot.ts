import type { AiRefEntry } from "../act/Refs.js"
import { indentOf, nameOf, parseBox, parseLineHead } from "./AriaLine.js"
import { countInteractive, countLines, Output } from "./CharacterCap.js"
import { takeMarker } from "./PseudoControls.js"
import type { Unread } from "./walkBound.js"
import { boxAttr, forgetDropped, INTERACTIVE_ROLES, type LabelBox, type RefInfo, type SnapshotStats } from "./RenderedSnapshot.js"

// AI snapshots: playwright's `mode: "ai"` text, renumbered for the agent in one linear pass over the lines
// (an AI snapshot of a 4,000-node page takes playwright about 200 ms; what we add stays within a few
// percent of that).

export interface RenderedAi {
  readonly text: string
  readonly refs: Record<string, RefInfo>
  readonly entries: Array<readonly [string, AiRefEntry]>
  readonly maxMain: number
  readonly truncated: boolean
  readonly stats: SnapshotStats
  readonly boxes: Array<LabelBox>
}

const AI_REF = /^(f\d+)?e(\d+)$/

/**
 * Renumbers playwright's AI snapshot for the agent: main-frame refs become `base + n` (the base is asked
 * for once the main frame's prefix is known), refs inside iframes stay as playwright prints them. Box
 * attributes (present when labels were asked for) are taken out of the text and collected.
 */
export const renderAiSnapshot = (
  raw: string,
  options: {
    readonly limit: number
    readonly baseFor: (mainPrefix: string) => number
    /** The read stopped where the cap would fall (walkBound.ts): what the page has after it. */
    readonly unread?: Unread | undefined
    /** Keep each element's box in its line, in the viewport's CSS pixels (an iframe's moved by where it is). */
    readonly showBoxes?: boolean | undefined
  }
): RenderedAi => {
  const out = new Output(options.limit)
  const refs: Record<string, RefInfo> = {}
  const entries: Array<readonly [string, AiRefEntry]> = []
  const boxes: Array<LabelBox> = []
  let mainPrefix: string | undefined
  let base = 0
  let maxMain = 0
  let interactive = 0
  // Open iframes: their indent and the offset of their content (boxes inside are relative to the frame).
  const frames: Array<{ indent: number; dx: number; dy: number }> = []
  let pos = 0
  while (pos < raw.length) {
    let end = raw.indexOf("\n", pos)
    if (end < 0) end = raw.length
    let line = raw.slice(pos, end)
    const lineStart = pos
    pos = end + 1
    const indent = indentOf(line)
    while (frames.length > 0 && indent <= frames[frames.length - 1]!.indent) frames.pop()
    // A plain editor or a summary (PseudoControls): shown as its role, its ref looked up by its kind.
    let lookup: string | undefined
    if (line.indexOf(" [~", indent) >= 0) {
      const taken = takeMarker(line)
      line = taken.line
      lookup = taken.kind
    }
    if (line.indexOf("[ref=", indent) < 0 && line.indexOf("[box=", indent) < 0) {
      if (line.startsWith("- iframe", indent)) frames.push({ indent, dx: 0, dy: 0 })
      if (!out.push(line, undefined)) {
        pos = lineStart
        break
      }
      continue
    }
    const head = parseLineHead(line, indent)
    if (head === undefined) {
      if (!out.push(line, undefined)) {
        pos = lineStart
        break
      }
      continue
    }
    const outer = frames.length > 0 ? frames[frames.length - 1]! : undefined
    let box = head.box !== undefined ? parseBox(head.box.value) : undefined
    if (box !== undefined && outer !== undefined) box = { ...box, x: box.x + outer.dx, y: box.y + outer.dy }
    let shown: string | undefined
    if (head.ref !== undefined) {
      const m = AI_REF.exec(head.ref.value)
      if (m !== null) {
        const prefix = m[1] ?? ""
        if (outer === undefined && mainPrefix === undefined) {
          mainPrefix = prefix
          base = options.baseFor(prefix)
        }
        if (outer === undefined && prefix === mainPrefix) {
          const n = base + Number(m[2])
          if (n > maxMain) maxMain = n
          shown = String(n)
        } else {
          shown = head.ref.value
        }
      } else {
        shown = head.ref.value
      }
    }
    // Rebuild the line: ref renamed, box taken out (they are in attribute order, ref before box).
    let rebuilt = line
    if (head.ref !== undefined || head.box !== undefined) {
      const cuts = [head.ref, head.box].filter((c) => c !== undefined).sort((a, b) => a.start - b.start)
      let acc = ""
      let at = 0
      for (const c of cuts) {
        acc += line.slice(at, c.start)
        if (c === head.ref) acc += ` [ref=${shown}]`
        else if (options.showBoxes === true && box !== undefined) acc += boxAttr(box)
        at = c.end
      }
      rebuilt = acc + line.slice(at)
    }
    if (head.role === "iframe") frames.push({ indent, dx: box?.x ?? 0, dy: box?.y ?? 0 })
    if (!out.push(rebuilt, shown)) {
      pos = lineStart
      break
    }
    if (shown !== undefined && head.ref !== undefined) {
      const name = nameOf(line, head)
      refs[shown] = { role: head.role, name }
      entries.push([shown, { aria: head.ref.value, role: lookup ?? head.role, name }])
      if (INTERACTIVE_ROLES.has(head.role)) interactive++
      if (box !== undefined) boxes.push({ ref: shown, ...box })
    }
  }
  const { text, dropped } = out.finish(out.full ? countLines(raw, pos) : 0, {
    hiddenInteractive: out.full ? countInteractive(raw, pos, INTERACTIVE_ROLES) : 0,
    interactiveRef: (ref) => INTERACTIVE_ROLES.has(refs[ref]?.role ?? ""),
    unread: options.unread
  })
  interactive -= forgetDropped(dropped, { refs, entries, boxes })
  return {
    text,
    refs,
    entries,
    maxMain,
    truncated: out.full || options.unread !== undefined,
    stats: { lines: out.lines.length, chars: text.length, refs: entries.length, interactive },
    boxes
  }
}
