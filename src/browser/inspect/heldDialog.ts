import type { HeldInfo } from "./Dialogs.js"

// What a request on a tab whose page waits in a held dialog is told: which dialog, and how to answer it
// from each surface (the MCP tool, the CLI, the control API).

const clip = (s: string) => (s.length <= 200 ? s : `${s.slice(0, 200)}…`)

/** "an alert", "a confirm". */
const article = (word: string) => (/^[aeiou]/i.test(word) ? `an ${word}` : `a ${word}`)

export const heldDialogRefusal = (h: HeldInfo) =>
  `${article(h.type)} dialog (${JSON.stringify(clip(h.message))}) is open on this tab and holds up its page: answer it ` +
  "first (MCP: browser_handle_dialog with accept true or false; CLI: svc browser dialog --accept or --dismiss; " +
  "control API: POST /hooks/dialog)"
