// The character cap of a snapshot: lines are taken until the next one would pass it, then the text ends
// with a notice saying how much was left out, how many interactive elements among it, and what to pass to
// see it (lines are dropped from the end to make room for the notice and for a renderer's own footer).

/** What to pass when the cap cuts: never the mode already in use (see {@link narrowHint}). */
export const DEFAULT_HINT = "Pass a higher --limit, or narrow it with --efficient, --interactive or --selector <css>"

/** Lines under a character cap; a cut says so on its last line. */
export class Output {
  readonly lines: Array<string> = []
  readonly lineRefs: Array<string | undefined> = []
  chars = 0
  full = false
  constructor(readonly limit: number, readonly hint: string = DEFAULT_HINT) {}

  /** false once the cap is reached (the line is not taken). */
  push(line: string, ref: string | undefined): boolean {
    if (this.full) return false
    const add = line.length + (this.lines.length > 0 ? 1 : 0)
    if (this.chars + add > this.limit) {
      this.full = true
      return false
    }
    this.lines.push(line)
    this.lineRefs.push(ref)
    this.chars += add
    return true
  }

  /**
   * Closes the text, with the cut's notice (when the cap cut) and `footer` (when given) as its last lines.
   * `hiddenInteractive` counts the interactive elements among the `hiddenLines` never taken; lines dropped
   * to make room count too (`interactiveRef` says which of their refs are). The refs of dropped lines are
   * returned.
   */
  finish(
    hiddenLines: number,
    options: {
      readonly hiddenInteractive?: number
      readonly interactiveRef?: (ref: string) => boolean
      readonly footer?: string
      /** The read stopped where the cap would fall (walkBound.ts): what the page has after it. */
      readonly unread?: { readonly elements: number; readonly interactive: number } | undefined
    } = {}
  ): { text: string; dropped: Array<string> } {
    const footer = options.footer
    const unread = options.unread
    let cut = this.full || unread !== undefined
    // With a cap too small for the whole notice and a line of the page, the notice is said short.
    let short = false
    const notice = (hidden: number, interactive: number) => {
      if (short) return `[… truncated at ${this.limit} characters: ${hidden} more line(s); pass a higher limit]`
      const parts = [
        ...(hidden > 0 || unread === undefined
          ? [`${hidden} more line(s) not shown${interactive > 0 ? `, ${interactive} of them interactive element(s)` : ""}`]
          : []),
        ...(unread !== undefined
          ? [
            `the rest of the page was not read (about ${unread.elements} more element(s)` +
            `${unread.interactive > 0 ? `, ${unread.interactive} of them interactive` : ""})`
          ]
          : [])
      ]
      return `[… snapshot truncated at the ${this.limit}-character limit: ${parts.join("; ")}. ${this.hint}]`
    }
    const tail = (hidden: number, interactive: number) =>
      [...(cut ? [notice(hidden, interactive)] : []), ...(footer !== undefined ? [footer] : [])]
    const size = (extra: Array<string>) => extra.reduce((n, l) => n + l.length + 1, 0)
    const dropped: Array<string> = []
    let hidden = hiddenLines
    let interactive = options.hiddenInteractive ?? 0
    for (;;) {
      const extra = tail(hidden, interactive)
      if (this.lines.length === 0 || this.chars + size(extra) <= this.limit) break
      if (this.lines.length === 1 && cut) {
        short = true
        if (this.chars + size(tail(hidden, interactive)) <= this.limit) break
        short = false
      }
      const line = this.lines.pop()!
      const ref = this.lineRefs.pop()
      if (ref !== undefined) {
        dropped.push(ref)
        if (options.interactiveRef?.(ref) === true) interactive++
      }
      this.chars -= line.length + (this.lines.length > 0 ? 1 : 0)
      hidden++
      if (!cut) {
        cut = true
        this.full = true
      }
    }
    for (const line of tail(hidden, interactive)) {
      this.lines.push(line)
      this.lineRefs.push(undefined)
    }
    return { text: this.lines.join("\n"), dropped }
  }
}

/** How many lines `s` has from `from` on (a trailing newline does not start one). */
export const countLines = (s: string, from: number) => {
  if (from >= s.length) return 0
  let n = 1
  for (let i = s.indexOf("\n", from); i >= 0; i = s.indexOf("\n", i + 1)) if (i < s.length - 1) n++
  return n
}

/** How many lines from `from` on are interactive elements (the part of a raw snapshot the cap cut). */
export const countInteractive = (s: string, from: number, roles: ReadonlySet<string>) => {
  let n = 0
  const line = /^ *- '?([a-z]+)/gm
  line.lastIndex = from
  for (let m = line.exec(s); m !== null; m = line.exec(s)) if (roles.has(m[1]!)) n++
  return n
}
