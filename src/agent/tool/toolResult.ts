import { snapshotNoticesAsParameters } from "../../client/hints.js"
import { type FoundAsked, foundHeading } from "../../client/found.js"
import type { ActionDialog, ActionDownload, ActResult, NavigateResult, SnapshotResult } from "../../domain/browser.js"

// What a `browser` tool call answers, in the shape model APIs and MCP share: text parts a model reads
// well, image parts for screenshots, and an error flag. Errors say how to recover (the control API's
// messages already do).

export type ToolContent =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image"; readonly data: Uint8Array; readonly mimeType: string }

export interface ToolResult {
  readonly content: ReadonlyArray<ToolContent>
  readonly isError: boolean
}

export const textResult = (text: string): ToolResult => ({ content: [{ type: "text", text }], isError: false })

export const errorResult = (text: string): ToolResult => ({ content: [{ type: "text", text }], isError: true })

/** A snapshot: its text with refs, then one line saying what it is, how big, and whether it was cut. */
export const snapshotText = (s: SnapshotResult): string => {
  const facts = [
    `${s.format} snapshot of tab ${s.targetId}: ${s.url}${s.title !== "" ? ` (${JSON.stringify(s.title)})` : ""}`
  ]
  if (s.stats !== undefined) facts.push(`${s.stats.lines} lines, ${s.stats.refs} refs, ${s.stats.interactive} interactive`)
  if (s.diff !== undefined) {
    facts.push(
      s.diff.whole
        ? `whole snapshot (no diff: ${s.diff.base})`
        : `changes since the last snapshot: ${s.diff.added ?? 0} added, ${s.diff.removed ?? 0} removed, ${s.diff.changed ?? 0} changed`
    )
  }
  if (s.truncated) {
    facts.push("truncated: pass selector (a part of the page), mode \"efficient\" (interactive only) or a higher limit to see more")
  }
  return `${snapshotNoticesAsParameters(s.snapshot)}\n\n[${facts.join("; ")}]`
}

/** What a search in a tab's snapshot found: the heading, then the lines (each under its path). */
export const foundText = (s: SnapshotResult, asked: FoundAsked): string =>
  [
    `${s.format} snapshot of tab ${s.targetId}: ${s.url}${s.title !== "" ? ` (${JSON.stringify(s.title)})` : ""}`,
    foundHeading(s, asked),
    ...(s.snapshot !== "" ? [snapshotNoticesAsParameters(s.snapshot)] : [])
  ].join("\n")

/** A dialog an action or a navigation opened, and how it was answered. */
export const dialogLine = (d: ActionDialog): string =>
  `dialog: ${d.type} ${JSON.stringify(d.message)} was ${d.answer}${d.armed ? "" : " (by default; arm an answer with action dialog)"}`

/** A file an action or a navigation downloaded. */
export const downloadLine = (d: ActionDownload): string =>
  `download: ${d.suggestedFilename}${d.path !== undefined ? ` → ${d.path}` : ""}${
    d.bytes !== undefined ? ` (${d.bytes} bytes)` : d.inProgress === true ? " (still downloading)" : d.error !== undefined ? ` (failed: ${d.error})` : ""
  }`

/** A URL that answered with a file (navigate, open): that it did, where the tab is, and the download. */
export const fileUrlLines = (requested: string, downloads: ReadonlyArray<ActionDownload>, where: string): Array<string> => [
  `${requested} is a file: ${downloads.length > 0 ? "downloaded" : "handed to the waiting waitfordownload"}; ${where}`,
  ...downloads.map(downloadLine)
]

/** A navigation's answer: where the tab went, or, for a URL that answered with a file, the download. */
export const navigateText = (requested: string, r: NavigateResult): string =>
  [
    ...(r.downloads !== undefined
      ? fileUrlLines(requested, r.downloads, `tab ${r.targetId} stays on ${r.url}`)
      : [`navigated tab ${r.targetId} to ${r.url} (${JSON.stringify(r.title)}${r.status !== null ? `, HTTP ${r.status}` : ""})`]),
    ...(r.dialogs ?? []).map(dialogLine)
  ].join("\n")

/** An action's answer: what was done, what it caused, and the snapshot after it when asked for. */
export const actText = (r: ActResult, what: string): string => {
  const lines = [`${what}: done (tab ${r.targetId}, ${r.url})`]
  if (r.title !== undefined) lines.push(`page: ${JSON.stringify(r.title)}${r.status !== undefined ? `, HTTP ${r.status}` : ""}`)
  if (r.result !== undefined) lines.push(`result: ${JSON.stringify(r.result)}`)
  else if (r.kind === "evaluate") lines.push("result: undefined")
  lines.push(...(r.dialogs ?? []).map(dialogLine))
  for (const t of r.newTabs ?? []) lines.push(`new tab: ${t.targetId} ${t.url}`)
  lines.push(...(r.downloads ?? []).map(downloadLine))
  if (r.fileChooser !== undefined) {
    lines.push(`file chooser opened: give it ${r.fileChooser.multiple ? "files" : "a file"} with action upload (paths in the uploads root)`)
  }
  if (r.navigation !== undefined) {
    lines.push(`navigated${r.navigation.sameDocument === true ? " (same document)" : ""}: ${r.navigation.url}`)
  }
  if (r.snapshot !== undefined) lines.push("", snapshotText(r.snapshot))
  if (r.snapshotError !== undefined) lines.push(r.snapshotError)
  return lines.join("\n")
}

/** Any other answer: its JSON, which models read well. */
export const jsonText = (value: unknown): string => JSON.stringify(value, null, 2)
