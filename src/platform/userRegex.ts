// A regular expression a person typed: bare (`error|warning`) or between slashes with flags (`/error/i`).
// The global and sticky flags are dropped: each test starts afresh.

/** `/source/flags`: the slashed form, its source and flags. */
export const SLASHED = /^\/(.+)\/([a-z]*)$/s

/** The expression, with `bareFlags` when written bare; throws (a SyntaxError) when it is not one. */
export const userRegex = (text: string, bareFlags: string): RegExp => {
  const slashed = SLASHED.exec(text)
  return slashed !== null ? new RegExp(slashed[1]!, slashed[2]!.replace(/[gy]/g, "")) : new RegExp(text, bareFlags)
}
