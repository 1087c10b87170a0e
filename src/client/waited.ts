// What a wait waited for, as it was asked: the CLI's and MCP's answers say it in the same words.

export interface WaitAsked {
  readonly timeMs?: number | undefined
  readonly text?: string | undefined
  readonly textGone?: string | undefined
  readonly url?: string | undefined
  /** A ref or a CSS selector. */
  readonly selector?: string | undefined
  readonly enabled?: boolean | undefined
  readonly load?: string | undefined
  readonly fn?: string | undefined
}

/** `0.3 s and "Done" to show`: each thing waited for, joined. */
export const waitedFor = (w: WaitAsked): string =>
  [
    ...(w.timeMs !== undefined ? [`${w.timeMs / 1000} s`] : []),
    ...(w.text !== undefined ? [`${JSON.stringify(w.text)} to show`] : []),
    ...(w.textGone !== undefined ? [`${JSON.stringify(w.textGone)} to go`] : []),
    ...(w.url !== undefined ? [`the URL to match ${JSON.stringify(w.url)}`] : []),
    ...(w.selector !== undefined
      ? [`${/^(?:[ef]?\d+|f\d+e\d+)$/.test(w.selector) ? `[ref=${w.selector}]` : w.selector} to show${w.enabled === true ? " and be enabled" : ""}`]
      : []),
    ...(w.load !== undefined ? [`the page's ${w.load} state`] : []),
    ...(w.fn !== undefined ? ["the function to hold"] : [])
  ].join(" and ")
