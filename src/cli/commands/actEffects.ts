import type { ActionDialog, ActionDownload, ActResult, NavigateResult, OpenedTab } from "../../domain/browser.js"
import { renderTab } from "../output.js"

// What an action caused, for a person or a model reading the CLI: one line per dialog, tab, download and
// navigation, each with what to do next where there is something to do; then the snapshot asked for.

const quoted = (s: string, max = 200) => JSON.stringify(s.length <= max ? s : `${s.slice(0, max)}…`)

/** The dialogs an action or a navigation opened, a line each. */
export const dialogLines = (dialogs: ReadonlyArray<ActionDialog> | undefined): Array<string> =>
  (dialogs ?? []).map((d) => {
    if (d.answer === "open") {
      return `dialog: ${d.type} ${quoted(d.message)} is open and holds up the page: answer it with \`svc browser dialog --accept\` or \`--dismiss\``
    }
    const how = d.answer === "accepted" && d.promptText !== undefined ? `accepted with ${quoted(d.promptText)}` : d.answer
    return `dialog: ${d.type} ${quoted(d.message)} was ${how}${
      d.armed ? "" : " (by default; to answer the next one otherwise, run `svc browser dialog --accept` or `--dismiss` before the action)"
    }`
  })

/** The files an action or a navigation downloaded, a line each. */
export const downloadLines = (downloads: ReadonlyArray<ActionDownload> | undefined): Array<string> =>
  (downloads ?? []).map((d) =>
    d.path !== undefined && d.inProgress !== true
      ? `downloaded ${d.path}${d.bytes !== undefined ? ` (${d.bytes} bytes)` : ""}`
      : d.inProgress === true
      ? `downloading ${quoted(d.suggestedFilename)} from ${d.url}: still arriving; it is saved in the downloads root when done`
      : `download of ${quoted(d.suggestedFilename)} failed: ${d.error ?? "unknown error"}`
  )

/** A URL that answered with a file (navigate, open): that it did, where the tab is, and the download. */
export const fileUrlLines = (requested: string, downloads: ReadonlyArray<ActionDownload>, where: string): Array<string> => [
  `${requested} is a file: ${downloads.length > 0 ? "downloaded" : "handed to the waiting `svc browser waitfordownload`"}; ${where}`,
  ...downloadLines(downloads)
]

/** A navigation's answer: where the tab is, or, for a URL that answered with a file, the download. */
export const navigationLines = (requested: string, r: NavigateResult): Array<string> =>
  r.downloads !== undefined
    ? [...fileUrlLines(requested, r.downloads, `the tab stays on ${r.url}`), ...dialogLines(r.dialogs)]
    : [`navigated to ${r.url}${r.status !== null ? ` (HTTP ${r.status})` : ""}${r.title !== "" ? `: ${r.title}` : ""}`, ...dialogLines(r.dialogs)]

/** An opened tab's answer (`svc browser open`, `tab new`). */
export const openedLines = (requested: string, t: OpenedTab): Array<string> => [
  renderTab("opened", t),
  ...(t.downloads !== undefined ? fileUrlLines(requested, t.downloads, "the new tab stays blank") : [])
]

export const effectLines = (r: ActResult): Array<string> => {
  const lines: Array<string> = dialogLines(r.dialogs)
  for (const t of r.newTabs ?? []) {
    lines.push(`new tab [${t.index}] ${t.targetId}${t.url !== "" ? ` ${t.url}` : ""} (switch to it: \`svc browser tab select ${t.index}\`)`)
  }
  lines.push(...downloadLines(r.downloads))
  if (r.fileChooser !== undefined) {
    lines.push(
      `file chooser opened: give it ${r.fileChooser.multiple ? "files" : "a file"} from the uploads root with \`svc browser upload <path>\``
    )
  }
  const n = r.navigation
  if (n !== undefined) {
    lines.push(
      `${n.sameDocument === true ? "moved within the page to" : "navigated to"} ${n.url}${
        n.title !== "" ? `: ${n.title}` : ""
      }`
    )
  }
  if (r.snapshotError !== undefined) lines.push(r.snapshotError)
  if (r.snapshot !== undefined) lines.push("", r.snapshot.snapshot)
  return lines
}

/** The action's own line, then what it caused. */
export const withEffects = (line: string, r: ActResult): string => [line, ...effectLines(r)].join("\n")
