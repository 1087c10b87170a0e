// The character cap of a snapshot: lines are taken until the next one would pass it, then the text ends
// with a notice saying how much was left out (lines are dropped from the end to make room for it).

/** Lines under a character cap; a cut says so on its last line. */
export class Output {
  readonly lines: Array<string> = []
  readonly lineRefs: Array<string | undefined> = []
  chars = 0
  full = false
  constructor(readonly limit: number) {}

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

  /** Closes the text; the refs of lines dropped to make room for the notice are returned. */
  finish(hiddenLines: number): { text: string; dropped: Array<string> } {
    if (!this.full) return { text: this.lines.join("\n"), dropped: [] }
    const notice = (hidden: number) =>
      `[… snapshot truncated at the ${this.limit}-character limit: ${hidden} more line(s) not shown. ` +
      "Pass a higher --limit, or narrow it with --efficient, --interactive or --selector <css>]"
    const dropped: Array<string> = []
    let hidden = hiddenLines
    while (this.lines.length > 0 && this.chars + 1 + notice(hidden).length > this.limit) {
      const line = this.lines.pop()!
      const ref = this.lineRefs.pop()
      if (ref !== undefined) dropped.push(ref)
      this.chars -= line.length + (this.lines.length > 0 ? 1 : 0)
      hidden++
    }
    this.lines.push(notice(hidden))
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
