// Splitting a reply into messages no longer than the channel's textChunkLimit.
//
// Pure functions, no Effect: the outbound path calls them once per reply (or per block when streaming).

export type ChunkMode = "length" | "newline"

export interface ChunkOptions {
  /** Maximum characters per chunk (UTF-16 code units, as String.length counts them). At least 1. */
  readonly limit: number
  readonly mode: ChunkMode
  /**
   * Prepended to the first chunk only (messages.responsePrefix), and counted against the limit.
   * Later chunks and later blocks do not repeat it.
   */
  readonly prefix?: string
}

const FENCE_LINE = /^ {0,3}(```+)(.*)$/
const CLOSE_LEN = 4 // "\n```"

interface OpenFence {
  /** The whole opening line, e.g. "```ts", repeated at the start of the next chunk. */
  readonly line: string
  /** Length of the backtick run: a closing fence needs at least as many. */
  readonly ticks: number
}

/** The fence left open at the end of `text`, if any (CommonMark-ish: a line of 3+ backticks). */
const openFenceAt = (text: string): OpenFence | undefined => {
  let open: OpenFence | undefined
  for (const line of text.split("\n")) {
    const m = FENCE_LINE.exec(line)
    if (m === null) continue
    const ticks = m[1]!.length
    const info = m[2]!
    if (open === undefined) {
      open = { line: line.trimStart(), ticks }
    } else if (ticks >= open.ticks && info.trim() === "") {
      open = undefined
    }
  }
  return open
}

/** Where to cut `rest` so that the kept part has at most `budget` characters: [end of kept part, start of the rest]. */
const findCut = (rest: string, budget: number): readonly [number, number] => {
  // A separator exactly at `budget` is fine: it is dropped, so the kept part is `budget` long.
  const nl = rest.lastIndexOf("\n", budget)
  if (nl > 0) return [nl, nl + 1]
  const sp = rest.lastIndexOf(" ", budget)
  if (sp > 0) return [sp, sp + 1]
  return [budget, budget]
}

const isBlank = (s: string) => s.trim() === ""

/**
 * Length mode: split only when over the limit, at the last newline or else the last space inside the
 * window, with a hard cut only when there is neither. A cut inside a ``` fence closes the fence at the
 * end of the chunk and reopens it (same info string) at the start of the next.
 */
const chunkByLength = (text: string, limit: number): Array<string> => {
  const out: Array<string> = []
  let rest = text
  let reopen = "" // "```ts\n" when the previous chunk ended inside a fence
  while (rest.length > 0) {
    if (reopen.length + rest.length <= limit) {
      if (!isBlank(rest)) out.push(reopen + rest)
      break
    }
    let budget = limit - reopen.length
    let [end, next] = findCut(rest, budget)
    let fence = openFenceAt(reopen + rest.slice(0, end))
    // Room for the closing marker; when the limit is too small for markers, cut plainly.
    if (fence !== undefined && budget - CLOSE_LEN >= 1) {
      budget -= CLOSE_LEN
      ;[end, next] = findCut(rest, budget)
      fence = openFenceAt(reopen + rest.slice(0, end))
    } else if (fence !== undefined) {
      fence = undefined
    }
    // Whitespace at a cut is the split itself: trailing spaces and newlines end here, blank lines after it go.
    const body = rest.slice(0, end).trimEnd()
    const close = fence !== undefined ? "\n" + "`".repeat(fence.ticks) : ""
    if (!isBlank(body)) out.push(reopen + body + close)
    rest = rest.slice(next).replace(/^\n+/, "")
    const nextReopen = fence !== undefined ? fence.line + "\n" : ""
    // A reopening line that would not leave room for any content is dropped rather than loop forever.
    reopen = nextReopen.length + CLOSE_LEN < limit ? nextReopen : ""
  }
  return out
}

/**
 * Paragraphs separated by blank lines; a blank line inside an open ``` fence does not end a paragraph
 * (a code block stays one unit until it is too long on its own).
 */
const paragraphs = (text: string): Array<string> => {
  const parts = text.split(/\n[ \t]*\n/)
  const out: Array<string> = []
  let pending: string | undefined
  for (const part of parts) {
    pending = pending === undefined ? part : pending + "\n\n" + part
    if (openFenceAt(pending) === undefined) {
      out.push(pending)
      pending = undefined
    }
  }
  if (pending !== undefined) out.push(pending)
  return out.map((p) => p.replace(/^\n+|\n+$/g, "")).filter((p) => !isBlank(p))
}

/** Newline mode: split on blank lines, pack paragraphs up to the limit, split long paragraphs by length. */
const chunkByParagraph = (text: string, limit: number): Array<string> => {
  const out: Array<string> = []
  let current = ""
  for (const para of paragraphs(text)) {
    if (para.length > limit) {
      if (current !== "") out.push(current)
      current = ""
      out.push(...chunkByLength(para, limit))
      continue
    }
    if (current === "") current = para
    else if (current.length + 2 + para.length <= limit) current = current + "\n\n" + para
    else {
      out.push(current)
      current = para
    }
  }
  if (current !== "") out.push(current)
  return out
}

/**
 * Split `text` into chunks of at most `limit` characters. Never returns empty or blank chunks; returns
 * `[]` for blank input. `prefix` (messages.responsePrefix) is prepended to the first chunk only.
 */
export const chunkText = (text: string, options: ChunkOptions): Array<string> => {
  const limit = Math.max(1, Math.floor(options.limit))
  if (isBlank(text)) return []
  const full = (options.prefix ?? "") + text
  return options.mode === "newline" ? chunkByParagraph(full, limit) : chunkByLength(full, limit)
}
