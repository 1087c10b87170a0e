// What changed between two snapshot texts of a tab, as a short text a model reads: a header that says it
// is a diff and counts the lines, then only the changed lines (`- ` old, `+ ` new) with the line that
// encloses each change (unmarked) so the model can tell where on the page it is.
//
// The line diff trims the common prefix and suffix, then runs Myers' O(ND) algorithm on the middle; a long
// middle with changes all over is first split at the lines found once on both sides (nearly every line
// with a ref is). It is bounded (edit distance and work): a page that changed almost entirely is answered
// whole instead.

/** One step of a line diff: a line kept (old index a, new index b), removed (a) or added (b). */
export type LineOp =
  | { readonly kind: "equal"; readonly a: number; readonly b: number }
  | { readonly kind: "delete"; readonly a: number }
  | { readonly kind: "insert"; readonly b: number }

export interface DiffBounds {
  /** The most edits (added + removed lines) one search looks for: its memory grows with their square. */
  readonly maxEdits: number
  /** The most steps all searches together may take, however few the edits. */
  readonly maxWork: number
}

export const DEFAULT_BOUNDS: DiffBounds = { maxEdits: 1_500, maxWork: 20_000_000 }

/** Steps a search may take before the lines found once on both sides split the text for it. */
const DIRECT_WORK = 1_000_000

/** Lines as small integers, equal lines equal numbers: the search then compares numbers. */
const intern = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) => {
  const ids = new Map<string, number>()
  const idOf = (s: string) => {
    let id = ids.get(s)
    if (id === undefined) {
      id = ids.size
      ids.set(s, id)
    }
    return id
  }
  return { a: Int32Array.from(a, idOf), b: Int32Array.from(b, idOf), distinct: ids.size }
}

interface Budget {
  work: number
}

/**
 * Myers' shortest edit script of a → b as ops (indices into a and b, plus the offsets), or undefined when
 * it needs more than maxEdits edits or more work than the budget has left (the work done is charged
 * either way). Keeps each round's furthest-reaching x per diagonal to walk back the path.
 */
const myers = (
  a: Int32Array,
  b: Int32Array,
  offsets: { readonly a: number; readonly b: number },
  maxEdits: number,
  budget: Budget,
  workLimit: number
): Array<LineOp> | undefined => {
  const n = a.length
  const m = b.length
  const maxD = Math.min(n + m, maxEdits)
  const offset = maxD + 1
  const v = new Int32Array(2 * maxD + 3)
  const trace: Array<Int32Array> = []
  let work = 0
  let found = -1
  for (let d = 0; d <= maxD && found < 0; d++) {
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1
      let y = x - k
      const from = x
      while (x < n && y < m && a[x] === b[y]) {
        x++
        y++
      }
      work += 1 + x - from
      v[offset + k] = x
      if (x >= n && y >= m) {
        found = d
        break
      }
    }
    trace.push(v.slice(offset - d, offset + d + 1))
    if (work > workLimit) break
  }
  budget.work -= work
  if (found < 0) return undefined
  const ops: Array<LineOp> = []
  let x = n
  let y = m
  const equal = () => ops.push({ kind: "equal", a: --x + offsets.a, b: --y + offsets.b })
  for (let d = found; d > 0; d--) {
    const prev = trace[d - 1]!
    const at = (k: number) => prev[k + d - 1]!
    const k = x - y
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1))
    const prevK = down ? k + 1 : k - 1
    const prevX = at(prevK)
    const prevY = prevX - prevK
    while (x > prevX && y > prevY) equal()
    if (down) ops.push({ kind: "insert", b: --y + offsets.b })
    else ops.push({ kind: "delete", a: --x + offsets.a })
  }
  while (x > 0 && y > 0) equal()
  return ops.reverse()
}

/**
 * The lines found exactly once in a[aLo, aHi) and once in b[bLo, bHi), the longest run of them in the
 * same order on both sides (patience sorting): fixed points to split a long text's diff at.
 */
const uniqueAnchors = (
  a: Int32Array,
  b: Int32Array,
  range: Range,
  scratch: { readonly countA: Int32Array; readonly countB: Int32Array; readonly posA: Int32Array }
): Array<readonly [number, number]> => {
  const { countA, countB, posA } = scratch
  for (let i = range.aLo; i < range.aHi; i++) {
    countA[a[i]!]!++
    posA[a[i]!] = i
  }
  for (let j = range.bLo; j < range.bHi; j++) countB[b[j]!]!++
  const pairs: Array<readonly [number, number]> = []
  for (let j = range.bLo; j < range.bHi; j++) {
    const id = b[j]!
    if (countA[id] === 1 && countB[id] === 1) pairs.push([posA[id]!, j])
  }
  for (let i = range.aLo; i < range.aHi; i++) countA[a[i]!] = 0
  for (let j = range.bLo; j < range.bHi; j++) countB[b[j]!] = 0
  // Longest increasing run of a-positions among pairs in b order.
  const tails: Array<number> = []
  const back = new Int32Array(pairs.length)
  pairs.forEach(([ai], p) => {
    let lo = 0
    let hi = tails.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (pairs[tails[mid]!]![0] < ai) lo = mid + 1
      else hi = mid
    }
    back[p] = lo > 0 ? tails[lo - 1]! : -1
    tails[lo] = p
  })
  const anchors: Array<readonly [number, number]> = []
  for (let p = tails.length > 0 ? tails[tails.length - 1]! : -1; p >= 0; p = back[p]!) anchors.push(pairs[p]!)
  return anchors.reverse()
}

interface Range {
  readonly aLo: number
  readonly aHi: number
  readonly bLo: number
  readonly bHi: number
}

type Task = { readonly kind: "range"; readonly range: Range } | { readonly kind: "equal"; readonly a: number; readonly b: number }

/**
 * The line diff of before → after: common prefix and suffix kept, then a minimal diff of the middle. A
 * middle too long or too changed for one search is split at the lines found once on both sides, and each
 * part searched on its own. Undefined when that takes more edits or work than the bounds allow.
 */
export const diffLines = (
  before: ReadonlyArray<string>,
  after: ReadonlyArray<string>,
  bounds: DiffBounds = DEFAULT_BOUNDS
): ReadonlyArray<LineOp> | undefined => {
  // The common ends first, on the strings: a small change to a long text never interns all of it.
  let start = 0
  while (start < before.length && start < after.length && before[start] === after[start]) start++
  let endA = before.length
  let endB = after.length
  while (endA > start && endB > start && before[endA - 1] === after[endB - 1]) {
    endA--
    endB--
  }
  const middle = diffMiddle(intern(before.slice(start, endA), after.slice(start, endB)), bounds)
  if (middle === undefined) return undefined
  const ops: Array<LineOp> = []
  for (let i = 0; i < start; i++) ops.push({ kind: "equal", a: i, b: i })
  for (const op of middle) {
    ops.push(
      op.kind === "equal"
        ? { kind: "equal", a: op.a + start, b: op.b + start }
        : op.kind === "delete"
        ? { kind: "delete", a: op.a + start }
        : { kind: "insert", b: op.b + start }
    )
  }
  for (let i = 0; i < before.length - endA; i++) ops.push({ kind: "equal", a: endA + i, b: endB + i })
  return ops
}

/** a → b (interned lines): searched whole when one bounded search is enough, else split at anchors. */
const diffMiddle = (
  { a, b, distinct }: { readonly a: Int32Array; readonly b: Int32Array; readonly distinct: number },
  bounds: DiffBounds
): Array<LineOp> | undefined => {
  const budget: Budget = { work: bounds.maxWork }
  let scratch: Parameters<typeof uniqueAnchors>[3] | undefined
  const ops: Array<LineOp> = []
  // Depth first, parts pushed last to first: ops come out in order.
  const tasks: Array<Task> = [{ kind: "range", range: { aLo: 0, aHi: a.length, bLo: 0, bHi: b.length } }]
  while (tasks.length > 0) {
    const task = tasks.pop()!
    if (task.kind === "equal") {
      ops.push(task)
      continue
    }
    let { aHi, aLo, bHi, bLo } = task.range
    const suffix: Array<LineOp> = []
    while (aLo < aHi && bLo < bHi && a[aLo] === b[bLo]) ops.push({ kind: "equal", a: aLo++, b: bLo++ })
    while (aHi > aLo && bHi > bLo && a[aHi - 1] === b[bHi - 1]) suffix.push({ kind: "equal", a: --aHi, b: --bHi })
    budget.work -= task.range.aHi - task.range.aLo + task.range.bHi - task.range.bLo
    const range = { aLo, aHi, bLo, bHi }
    if (aLo === aHi || bLo === bHi) {
      for (let i = aLo; i < aHi; i++) ops.push({ kind: "delete", a: i })
      for (let j = bLo; j < bHi; j++) ops.push({ kind: "insert", b: j })
    } else {
      const sub = (limit: number) =>
        myers(a.subarray(aLo, aHi), b.subarray(bLo, bHi), { a: aLo, b: bLo }, bounds.maxEdits, budget, limit)
      const direct = sub(Math.min(DIRECT_WORK, budget.work))
      if (direct !== undefined) {
        for (const op of direct) ops.push(op)
      } else {
        scratch ??= { countA: new Int32Array(distinct), countB: new Int32Array(distinct), posA: new Int32Array(distinct) }
        const anchors = uniqueAnchors(a, b, range, scratch)
        budget.work -= aHi - aLo + bHi - bLo
        if (anchors.length === 0) {
          const searched = budget.work > 0 ? sub(budget.work) : undefined
          if (searched === undefined) return undefined
          for (const op of searched) ops.push(op)
        } else {
          // Suffix first (popped last), then each part and anchor from the end.
          for (const op of suffix) tasks.push(op as Task)
          suffix.length = 0
          let next = { a: aHi, b: bHi }
          for (let x = anchors.length - 1; x >= 0; x--) {
            const [ai, bi] = anchors[x]!
            tasks.push({ kind: "range", range: { aLo: ai + 1, aHi: next.a, bLo: bi + 1, bHi: next.b } })
            tasks.push({ kind: "equal", a: ai, b: bi })
            next = { a: ai, b: bi }
          }
          tasks.push({ kind: "range", range: { aLo, aHi: next.a, bLo, bHi: next.b } })
        }
      }
    }
    for (let s = suffix.length - 1; s >= 0; s--) ops.push(suffix[s]!)
    if (budget.work < 0) return undefined
  }
  return ops
}

// ---------------------------------------------------------------------------------------------------------
// Rendering

export interface DiffCounts {
  readonly added: number
  readonly removed: number
  readonly changed: number
  readonly unchanged: number
}

export interface RenderedDiff {
  readonly counts: DiffCounts
  /** Header line, then the changes; ends without a newline. */
  readonly text: string
  /** The lines shown, without their markers (to find the refs they carry). */
  readonly shown: ReadonlyArray<string>
}

const REF = /\[ref=([^\]\s]+)\]/

/** The ref a snapshot line carries, if any. */
export const refOfLine = (line: string): string | undefined => REF.exec(line)?.[1]

const indentOf = (line: string) => {
  let i = 0
  while (i < line.length && line[i] === " ") i++
  return i
}

/** Indentation and role (the first word after `- `): how a line without a ref is matched to its new version. */
const shapeOf = (line: string) => {
  const indent = indentOf(line)
  const head = /^[-']*\s*'?([^\s:"'[]+)/.exec(line.slice(indent))
  return `${indent}\u0000${head?.[1] ?? ""}`
}

/**
 * Which removed line became which added line, within one run of changes: first the lines carrying the same
 * ref, then the rest in order by indentation and role. Answers added index → removed index.
 */
const pairChanges = (
  removed: ReadonlyArray<number>,
  added: ReadonlyArray<number>,
  before: ReadonlyArray<string>,
  after: ReadonlyArray<string>
): Map<number, number> => {
  const pairs = new Map<number, number>()
  const taken = new Set<number>()
  const byRef = new Map<string, number>()
  for (const i of removed) {
    const ref = refOfLine(before[i]!)
    if (ref !== undefined && !byRef.has(ref)) byRef.set(ref, i)
  }
  for (const j of added) {
    const ref = refOfLine(after[j]!)
    const i = ref !== undefined ? byRef.get(ref) : undefined
    if (i !== undefined && !taken.has(i)) {
      pairs.set(j, i)
      taken.add(i)
    }
  }
  let from = 0
  for (const j of added) {
    if (pairs.has(j)) continue
    const shape = shapeOf(after[j]!)
    for (let r = from; r < removed.length; r++) {
      const i = removed[r]!
      if (!taken.has(i) && shapeOf(before[i]!) === shape) {
        pairs.set(j, i)
        taken.add(i)
        from = r + 1
        break
      }
    }
  }
  return pairs
}

/** For each line, the nearest line above it that is less indented (its enclosing line), or -1. */
const enclosingLines = (lines: ReadonlyArray<string>): Int32Array => {
  const parent = new Int32Array(lines.length)
  const stack: Array<number> = []
  lines.forEach((line, i) => {
    const indent = indentOf(line)
    while (stack.length > 0 && indentOf(lines[stack[stack.length - 1]!]!) >= indent) stack.pop()
    parent[i] = stack.length > 0 ? stack[stack.length - 1]! : -1
    stack.push(i)
  })
  return parent
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

/** The counts and the text of before → after from a line diff of them. */
export const renderDiff = (
  before: ReadonlyArray<string>,
  after: ReadonlyArray<string>,
  ops: ReadonlyArray<LineOp>
): RenderedDiff => {
  const parent = enclosingLines(after)
  const out: Array<string> = []
  const shown: Array<string> = []
  const contextShown = new Set<number>()
  let added = 0
  let removed = 0
  let changed = 0
  let unchanged = 0
  /** Where in the new text the next run of changes sits. */
  let nextB = 0
  let i = 0
  while (i < ops.length) {
    const op = ops[i]!
    if (op.kind === "equal") {
      unchanged++
      nextB = op.b + 1
      i++
      continue
    }
    // One run of changes, and where it sits in the new text.
    const dels: Array<number> = []
    const ins: Array<number> = []
    const at = nextB
    let least = Number.MAX_SAFE_INTEGER
    while (i < ops.length && ops[i]!.kind !== "equal") {
      const o = ops[i]!
      if (o.kind === "delete") {
        dels.push(o.a)
        least = Math.min(least, indentOf(before[o.a]!))
      } else {
        ins.push(o.b)
        least = Math.min(least, indentOf(after[o.b]!))
        nextB = o.b + 1
      }
      i++
    }
    // Its context: the line enclosing the least indented changed line, unless already shown.
    let ctx = at - 1
    while (ctx >= 0 && indentOf(after[ctx]!) >= least) ctx = parent[ctx]!
    if (ctx >= 0 && !contextShown.has(ctx)) {
      contextShown.add(ctx)
      out.push(`  ${after[ctx]}`)
      shown.push(after[ctx]!)
    }
    const pairs = pairChanges(dels, ins, before, after)
    const pairedOld = new Set(pairs.values())
    const emittedOld = new Set<number>()
    const emitOld = (d: number) => {
      emittedOld.add(d)
      out.push(`- ${before[d]}`)
    }
    for (const b of ins) {
      const d = pairs.get(b)
      if (d !== undefined) {
        for (const earlier of dels) {
          if (earlier >= d) break
          if (!pairedOld.has(earlier) && !emittedOld.has(earlier)) emitOld(earlier)
        }
        emitOld(d)
      }
      out.push(`+ ${after[b]}`)
      shown.push(after[b]!)
      contextShown.add(b)
    }
    for (const d of dels) if (!emittedOld.has(d)) emitOld(d)
    changed += pairs.size
    added += ins.length - pairs.size
    removed += dels.length - pairs.size
  }
  const counts: DiffCounts = { added, removed, changed, unchanged }
  const header = added + removed + changed === 0
    ? `[no change since this tab's last snapshot (${plural(unchanged, "line", "lines")})]`
    : `[diff since this tab's last snapshot: ${changed} changed, ${added} added, ${removed} removed; ` +
      `${plural(unchanged, "line", "lines")} unchanged, not shown. "- " old line, "+ " new line, unmarked: where it is]`
  return { counts, text: [header, ...out].join("\n"), shown }
}

// ---------------------------------------------------------------------------------------------------------
// A snapshot answered as a diff, or whole saying why

/**
 * What the text is measured against: the tab's previous snapshot (a diff, or whole when most lines
 * changed), or nothing comparable: none taken, the page navigated since, or it was taken with other options.
 */
export type DiffBase = "previous" | "none" | "navigated" | "otherOptions" | "mostlyChanged"

export interface SnapshotDiffInfo extends Partial<DiffCounts> {
  readonly base: DiffBase
  /** The text is the whole snapshot (after its first line), not a diff. */
  readonly whole: boolean
}

export interface DiffAnswer {
  readonly text: string
  readonly diff: SnapshotDiffInfo
  /** The snapshot lines the text shows (undefined: all of them). */
  readonly shown: ReadonlyArray<string> | undefined
}

/** The whole snapshot, its first line saying why it is not a diff. */
export const wholeAnswer = (text: string, base: DiffBase, why: string, counts?: DiffCounts): DiffAnswer => ({
  text: `[whole snapshot, not a diff: ${why}]\n${text}`,
  diff: { base, whole: true, ...counts },
  shown: undefined
})

const splitLines = (text: string) => (text === "" ? [] : text.split("\n"))

/**
 * `after` as a diff against `before` (the tab's previous snapshot, taken the same way of the same
 * document); whole when the diff would be no shorter, or too costly to find.
 */
export const diffAnswer = (before: string, after: string, bounds: DiffBounds = DEFAULT_BOUNDS): DiffAnswer => {
  const a = splitLines(before)
  const b = splitLines(after)
  const ops = diffLines(a, b, bounds)
  if (ops === undefined) {
    return wholeAnswer(after, "mostlyChanged", "too many lines changed since this tab's last snapshot to list them")
  }
  const rendered = renderDiff(a, b, ops)
  const { added, changed, removed } = rendered.counts
  // Each change costs a line or two of the diff: past the snapshot's own length it is no help.
  if (b.length > 0 && added + removed + 2 * changed >= b.length) {
    return wholeAnswer(
      after,
      "mostlyChanged",
      `most lines changed since this tab's last snapshot (${changed} changed, ${added} added, ${removed} removed)`,
      rendered.counts
    )
  }
  return { text: rendered.text, diff: { base: "previous", whole: false, ...rendered.counts }, shown: rendered.shown }
}
