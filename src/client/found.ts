import { SLASHED } from "../platform/userRegex.js"

// The line a search in a snapshot is answered under: the CLI's and MCP's answers say it in the same words.

export interface FoundAsked {
  readonly find: string
  readonly regex?: boolean | undefined
}

interface FoundResult {
  readonly found?: { readonly matches: number; readonly shown: number } | undefined
  readonly stats?: { readonly lines: number } | undefined
}

const searched = (a: FoundAsked) => a.regex === true ? (SLASHED.test(a.find) ? a.find : `/${a.find}/`) : JSON.stringify(a.find)

/** `3 lines match "Save" (of 412 in the page's snapshot), each under the elements it is in:`, or that none does. */
export const foundHeading = (r: FoundResult, asked: FoundAsked): string => {
  const found = r.found ?? { matches: 0, shown: 0 }
  const of = r.stats !== undefined ? ` (of ${r.stats.lines.toLocaleString("en-US")} in the page's snapshot)` : ""
  if (found.matches === 0) {
    return `No line of the page's snapshot matches ${searched(asked)}${of}: try other words${asked.regex === true ? "" : ", or a regex"}.`
  }
  const shown = found.shown < found.matches ? `, ${found.shown} shown` : ""
  return `${found.matches} line(s) match ${searched(asked)}${shown}${of}, each under the elements it is in:`
}
