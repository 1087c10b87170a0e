import { describe, expect, it } from "vitest"
import { INVESTIGATE } from "../../../src/browser/act/messages.js"
import { flagsAsParameters, hintsFor, snapshotNoticesAsParameters } from "../../../src/client/hints.js"
import { toolHints } from "../../../src/mcp/failures.js"

// The gateway's next steps, said as CLI commands, reach an agent as the calls it can make: MCP tools, or
// actions of the agent tool `browser`.

const mcp = hintsFor("mcp")
const agent = hintsFor("agent")

describe("hints for agents", () => {
  it("a timed-out step's investigation: errors, requests and a trace", () => {
    expect(mcp(INVESTIGATE)).toBe(
      'check browser_errors and browser_network_requests, then record a trace (browser_trace {action: "start"}, ' +
        'repeat the step, browser_trace {action: "stop"})'
    )
    // The agent tool has no traces: that command stays as it is.
    expect(agent(INVESTIGATE)).toBe(
      'check browser {action: "errors"} and browser {action: "requests"}, then record a trace ' +
        "(`svc browser trace start`, repeat the step, `svc browser trace stop`)"
    )
  })

  it("snapshots, dialogs and tabs", () => {
    const stale = "take a fresh snapshot (`svc browser snapshot`, or `svc browser snapshot --interactive`) and use a [ref=…] from it"
    expect(mcp(stale)).toBe("take a fresh snapshot (browser_snapshot, or browser_snapshot {interactive: true}) and use a [ref=…] from it")
    expect(agent(stale)).toBe(
      'take a fresh snapshot (browser {action: "snapshot"}, or browser {action: "snapshot", interactive: true}) and use a [ref=…] from it'
    )
    expect(mcp("arm it with `svc browser dialog --accept`")).toBe("arm it with browser_handle_dialog")
    expect(agent("arm it with `svc browser dialog --accept`")).toBe('arm it with browser {action: "dialog", accept: true or false}')
    expect(mcp("see `svc browser tabs`")).toBe('see browser_tabs {action: "list"}')
    expect(agent("`svc browser open <url>`, then `svc browser focus <targetId>`"))
      .toBe('browser {action: "open"}, then browser {action: "focus", targetId: …}')
  })

  it("values the command gives are passed on; placeholders are not", () => {
    expect(mcp("press it: `svc browser press Enter`")).toBe('press it: browser_press_key {key: "Enter"}')
    expect(agent("press it: `svc browser press Enter`")).toBe('press it: browser {action: "act", request: {kind: "press", key: "Enter"}}')
    expect(mcp("e.g. `svc browser navigate https://example.com`")).toBe('e.g. browser_navigate {url: "https://example.com"}')
    expect(mcp("`svc browser click <ref>`")).toBe("browser_click")
    expect(agent("`svc browser click 12`")).toBe('browser {action: "act", request: {kind: "click", ref: "12"}}')
    expect(mcp("`svc browser resize 1280 800`")).toBe("browser_resize {width: 1280, height: 800}")
    expect(mcp("`svc browser select 4 Blue`")).toBe('browser_select_option {ref: "4"}')
  })

  it("what has no counterpart stays a command, and other text is untouched", () => {
    expect(mcp("`svc browser highlight 3`")).toBe("`svc browser highlight 3`")
    expect(mcp("run `svc mcp --sandbox` or `svc gateway run`")).toBe("run `svc mcp --sandbox` or `svc gateway run`")
    expect(agent("no hint here")).toBe("no hint here")
  })
})

describe("a snapshot's notices for agents", () => {
  it("say the options as parameters, and leave the page's lines alone", () => {
    const snapshot = [
      '- textbox "--limit of the form" [ref=e3]',
      "[… snapshot truncated at the 500-character limit: 19 more line(s) not shown. Pass a higher --limit, or narrow it " +
      "with --efficient, --interactive or --selector <css>]",
      "[3 interactive element(s) deeper than --depth 2 not shown; `--interactive` lists them all]",
      "# truncated: showed 10 of 40 nodes; raise the limit with --limit <n> (--limit 40 shows all)"
    ].join("\n")
    expect(snapshotNoticesAsParameters(snapshot).split("\n")).toEqual([
      '- textbox "--limit of the form" [ref=e3]',
      "[… snapshot truncated at the 500-character limit: 19 more line(s) not shown. Pass a higher limit, or narrow it " +
      'with mode: "efficient", interactive: true or selector: "<css>"]',
      "[3 interactive element(s) deeper than depth: 2 not shown; interactive: true lists them all]",
      "# truncated: showed 10 of 40 nodes; raise the limit with limit: <n> (limit: 40 shows all)"
    ])
  })
})

describe("a failure's flags for agents", () => {
  it("a selector or frame that matched nothing is named as the parameter", () => {
    expect(toolHints('nothing on the page matches --selector "#nope" (waited 5000 ms); check the selector'))
      .toBe('nothing on the page matches selector "#nope" (waited 5000 ms); check the selector')
    expect(flagsAsParameters('--frame "iframe" --selector "b" matches more than one element'))
      .toBe('frame "iframe" selector "b" matches more than one element')
    expect(flagsAsParameters("taken with other options (role --interactive --compact --limit 10000 --boxes; this one: ai)"))
      .toBe("taken with other options (role interactive: true compact: true limit: 10000 boxes: true; this one: ai)")
    expect(flagsAsParameters("--find answers only the lines it finds, and --diff only the lines that changed"))
      .toBe("find answers only the lines it finds, and diff only the lines that changed")
  })
})
