// The gateway's messages say what to do next as CLI commands (`svc browser snapshot --interactive`). An agent
// reaches the same steps as MCP tools (browser_snapshot {interactive: true}) or as actions of its `browser`
// tool (browser {action: "snapshot", interactive: true}): each command in backticks is said that way for it.
// A command with no counterpart on that surface (highlight, the extension's) stays as it is.

export type HintSurface = "mcp" | "agent"

type Said = { readonly mcp?: string; readonly agent?: string }

const json = (s: string) => JSON.stringify(s)
/** A placeholder (`<ref>`) or a shell variable is no value to pass on. */
const given = (word: string | undefined): word is string => word !== undefined && !/^[<$]/.test(word)
const withRef = (ref: string | undefined) => (given(ref) ? `, ref: ${json(ref)}` : "")
const act = (kind: string, rest = "") => `browser {action: "act", request: {kind: "${kind}"${rest}}}`
const action = (name: string, rest = "") => `browser {action: "${name}"${rest}}`

/** `svc browser <command> <args…>`, by command, as each surface says it. */
const COMMANDS: Record<string, (args: ReadonlyArray<string>) => Said> = {
  snapshot: (args) =>
    args.includes("--interactive") || args.includes("-i")
      ? { mcp: "browser_snapshot {interactive: true}", agent: action("snapshot", ", interactive: true") }
      : { mcp: "browser_snapshot", agent: action("snapshot") },
  dialog: () => ({ mcp: "browser_handle_dialog", agent: action("dialog", ", accept: true or false") }),
  tabs: () => ({ mcp: `browser_tabs {action: "list"}`, agent: action("tabs") }),
  tab: (args) =>
    args[0] === "select"
      ? { mcp: `browser_tabs {action: "select"}`, agent: action("focus", ", targetId: …") }
      : { mcp: `browser_tabs {action: "list"}`, agent: action("tabs") },
  open: (args) => ({
    mcp: `browser_tabs {action: "new"${given(args[0]) ? `, url: ${json(args[0])}` : ""}}`,
    agent: action("open", given(args[0]) ? `, url: ${json(args[0])}` : "")
  }),
  focus: () => ({ mcp: `browser_tabs {action: "select"}`, agent: action("focus", ", targetId: …") }),
  close: () => ({ mcp: `browser_tabs {action: "close"}`, agent: action("close") }),
  navigate: (args) => ({
    mcp: `browser_navigate${given(args[0]) ? ` {url: ${json(args[0])}}` : ""}`,
    agent: action("navigate", given(args[0]) ? `, url: ${json(args[0])}` : "")
  }),
  upload: () => ({ mcp: "browser_file_upload", agent: action("upload") }),
  download: () => ({ mcp: "browser_download", agent: action("download") }),
  waitfordownload: () => ({ mcp: action("waitfordownload"), agent: action("waitfordownload") }),
  errors: () => ({ mcp: "browser_errors", agent: action("errors") }),
  console: () => ({ mcp: "browser_console_messages", agent: action("console") }),
  requests: () => ({ mcp: "browser_network_requests", agent: action("requests") }),
  trace: (args) => (args[0] === "start" || args[0] === "stop" ? { mcp: `browser_trace {action: "${args[0]}"}` } : {}),
  start: () => ({ mcp: action("start"), agent: action("start") }),
  stop: () => ({ mcp: action("stop"), agent: action("stop") }),
  status: () => ({ mcp: "browser_status", agent: action("status") }),
  screenshot: (args) =>
    args.includes("--full-page")
      ? { mcp: "browser_take_screenshot {fullPage: true}", agent: action("screenshot", ", fullPage: true") }
      : { mcp: "browser_take_screenshot", agent: action("screenshot") },
  click: (args) => ({ mcp: `browser_click${given(args[0]) ? ` {ref: ${json(args[0])}}` : ""}`, agent: act("click", withRef(args[0])) }),
  type: (args) => ({ mcp: `browser_type${given(args[0]) ? ` {ref: ${json(args[0])}}` : ""}`, agent: act("type", withRef(args[0])) }),
  press: (args) => ({
    mcp: `browser_press_key${given(args[0]) ? ` {key: ${json(args[0])}}` : ""}`,
    agent: act("press", given(args[0]) ? `, key: ${json(args[0])}` : "")
  }),
  select: (args) => ({ mcp: `browser_select_option${given(args[0]) ? ` {ref: ${json(args[0])}}` : ""}`, agent: act("select", withRef(args[0])) }),
  wait: () => ({ mcp: "browser_wait_for", agent: act("wait") }),
  evaluate: () => ({ mcp: "browser_evaluate", agent: act("evaluate") }),
  text: (args) => ({
    mcp: `browser_evaluate {function: "(el) => el.innerText"${withRef(args[0])}}`,
    agent: act("evaluate", `, fn: "(el) => el.innerText"${withRef(args[0])}`)
  }),
  scrollintoview: (args) => ({ mcp: act("scrollIntoView", withRef(args[0])), agent: act("scrollIntoView", withRef(args[0])) }),
  resize: (args) => {
    const [w, h] = args
    const size = given(w) && given(h) && /^\d+$/.test(w) && /^\d+$/.test(h) ? { w, h } : undefined
    return {
      mcp: `browser_resize${size !== undefined ? ` {width: ${size.w}, height: ${size.h}}` : ""}`,
      agent: act("resize", size !== undefined ? `, width: ${size.w}, height: ${size.h}` : "")
    }
  }
}

const CLI_COMMAND = /`svc browser ([^`]*)`/g

/** The snapshot options as CLI flags, and as the parameters a tool call passes (the same on both surfaces). */
const FLAGS: ReadonlyArray<readonly [RegExp, string]> = [
  [/`--interactive`/g, "interactive: true"],
  [/--interactive\b/g, "interactive: true"],
  [/--(compact|boxes)\b/g, "$1: true"],
  [/--efficient\b/g, `mode: "efficient"`],
  [/a narrower --selector\b/g, "a narrower selector"],
  [/--selector <css>/g, `selector: "<css>"`],
  [/--(limit|depth) (<n>|\d+)/g, "$1: $2"],
  [/--(limit|depth)\b/g, "$1"],
  [/--(selector|frame|find|regex|diff)\b/g, "$1"]
]

/** The snapshot options a text names as CLI flags, said as a tool call's parameters. */
export const flagsAsParameters = (text: string): string =>
  text.includes("--") ? FLAGS.reduce((t, [flag, param]) => t.replace(flag, param), text) : text

/**
 * The message with each `svc browser …` command it names said as the surface's tool call, and the snapshot
 * options it names as CLI flags (`nothing matches --selector "x"`) as the call's parameters.
 */
export const hintsFor = (surface: HintSurface) => (message: string): string =>
  flagsAsParameters(message.replace(CLI_COMMAND, (whole, line: string) => {
    const [command, ...args] = line.trim().split(/\s+/)
    const said = command !== undefined ? COMMANDS[command]?.(args.map((a) => a.replace(/^(['"])(.*)\1$/, "$2"))) : undefined
    return said?.[surface] ?? whole
  }))

/**
 * A snapshot's notices (a cut, elements deeper than the depth: its lines that are not the page's `- ` lines)
 * with the options they suggest said as a tool's parameters.
 */
export const snapshotNoticesAsParameters = (snapshot: string): string =>
  snapshot.includes("--")
    ? snapshot.split("\n").map((line) => /^\s*- /.test(line) ? line : flagsAsParameters(line)).join("\n")
    : snapshot
