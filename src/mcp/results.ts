import { snapshotNoticesAsParameters } from "../client/hints.js"
import type { ActionDialog, ActionDownload, ActResult, SnapshotResult, Tab } from "../domain/browser.js"
import type { ConsoleEntry, PageErrorEntry } from "../domain/browserState.js"

// The control API's answers as the short text an agent reads over MCP: what happened, what it caused
// (dialogs, tabs, downloads, where the page went) and, where there is something to do next, which tool
// does it. Snapshots are passed on as the gateway wrote them, refs and all.

const quoted = (s: string, max = 200) => JSON.stringify(s.length <= max ? s : `${s.slice(0, max)}…`)

/** The snapshot text under one line naming the page. */
export const snapshotText = (r: SnapshotResult): string => {
  const head = `Page: ${r.title !== "" ? `${r.title} ` : ""}(${r.url})`
  const diff = r.diff === undefined
    ? ""
    : r.diff.whole
    ? ` — whole snapshot (${r.diff.base === "none" ? "no earlier one" : r.diff.base})`
    : " — only the lines changed since the last snapshot"
  return `${head}${diff}\n${snapshotNoticesAsParameters(r.snapshot)}`
}

/** The dialogs an action or a navigation opened, one line each; an open one says how to answer it. */
export const dialogLines = (dialogs: ReadonlyArray<ActionDialog> | undefined): Array<string> =>
  (dialogs ?? []).map((d) => {
    if (d.answer === "open") {
      return `Dialog: ${d.type} ${quoted(d.message)} is open and holds up the page: answer it with browser_handle_dialog ` +
        `{accept: true or false${d.type === "prompt" ? ", promptText" : ""}}. Until then, other tools on this tab are refused.`
    }
    const how = d.answer === "accepted" && d.promptText !== undefined ? `accepted with ${quoted(d.promptText)}` : d.answer
    return `Dialog: ${d.type} ${quoted(d.message)} was ${how}${
      d.armed ? "" : " by default (to answer the next one otherwise, call browser_handle_dialog before the action)"
    }.`
  })

/** The files an action or a navigation downloaded, one line each. */
export const downloadLines = (downloads: ReadonlyArray<ActionDownload> | undefined): Array<string> =>
  (downloads ?? []).map((d) =>
    d.path !== undefined && d.inProgress !== true
      ? `Downloaded ${d.path}${d.bytes !== undefined ? ` (${d.bytes} bytes)` : ""}.`
      : d.inProgress === true
      ? `Downloading ${quoted(d.suggestedFilename)} from ${d.url}: still arriving; it is saved in the downloads root when done.`
      : `Download of ${quoted(d.suggestedFilename)} failed: ${d.error ?? "unknown error"}.`
  )

/** A URL that answered with a file (navigate, a new tab): that it did, where the tab is, and the download. */
export const fileUrlLines = (requested: string, downloads: ReadonlyArray<ActionDownload>, where: string): Array<string> => [
  `${requested} is a file: ${downloads.length > 0 ? "downloaded" : "handed to the waiting browser_download"}; ${where}`,
  ...downloadLines(downloads)
]

/** What an action caused, one line each, with the tool to call next where there is one. */
export const effectLines = (r: ActResult): Array<string> => {
  const lines: Array<string> = dialogLines(r.dialogs)
  for (const t of r.newTabs ?? []) {
    lines.push(`New tab ${t.index}${t.url !== "" ? ` (${t.url})` : ""}: switch to it with browser_tabs {action: "select", index: ${t.index}}.`)
  }
  lines.push(...downloadLines(r.downloads))
  if (r.fileChooser !== undefined) {
    lines.push(
      `A file chooser opened: give it ${r.fileChooser.multiple ? "files" : "a file"} with browser_file_upload {paths} ` +
        "(files in svc's uploads root)."
    )
  }
  const n = r.navigation
  if (n !== undefined) {
    lines.push(
      `${n.sameDocument === true ? "Moved within the page to" : "The page navigated to"} ${n.url}${n.title !== "" ? ` (${n.title})` : ""}${
        n.sameDocument === true ? "" : ": refs from before are stale, take a new browser_snapshot"
      }.`
    )
  }
  if (r.snapshotError !== undefined) lines.push(r.snapshotError)
  if (r.snapshot !== undefined) lines.push("", snapshotText(r.snapshot))
  return lines
}

/** The action's own line, then what it caused. */
export const actionText = (line: string, r: ActResult): string => [line, ...effectLines(r)].join("\n")

/** A value read from the page (evaluate, text, value) as JSON text. */
export const valueText = (value: unknown): string => (value === undefined ? "undefined" : JSON.stringify(value, null, 2))

export const tabLines = (tabs: ReadonlyArray<Tab>): string =>
  tabs.length === 0
    ? "No tabs open: browser_navigate opens one."
    : tabs.map((t) => `${t.index}:${t.current ? " (current)" : ""} ${t.title !== "" ? `${quoted(t.title, 100)} ` : ""}${t.url}`)
      .join("\n")

/** What to call the element in an answer: the agent's own words for it when given, else its ref. */
export const elementName = (ref: string, element: string | undefined) =>
  element !== undefined && element !== "" ? `${element} [ref=${ref}]` : `[ref=${ref}]`

/**
 * The tab's console as DevTools shows it: what it logged, and its uncaught errors among the messages
 * (`Uncaught Error: …`, at error level), in the order they came in (the two share their `seq` numbers).
 * Agents that know Playwright MCP look for errors there.
 */
export const consoleLines = (
  logged: ReadonlyArray<typeof ConsoleEntry.Type>,
  errors: ReadonlyArray<typeof PageErrorEntry.Type>
): Array<string> =>
  [
    ...logged.map((e) => ({
      seq: e.seq,
      // The line as people count them (the library's is 0-based), as the CLI and DevTools show it.
      text: `[${e.level}] ${e.text}${e.location !== null ? ` (${e.location.url}:${e.location.line + 1})` : ""}`
    })),
    ...errors.map((e) => ({ seq: e.seq, text: `[error] Uncaught ${e.name}: ${e.message}` }))
  ]
    .sort((a, b) => a.seq - b.seq)
    .map((l) => l.text)
