import { Effect, Schema } from "effect"
import type { Tab } from "../domain/browser.js"
import { fileUrlLines, tabLines } from "./results.js"
import { defineTool, field, optionalField, type ToolEnv, ToolFailure } from "./tool.js"

// browser_tabs, as Playwright MCP shapes it: one tool, an action, tabs by index. svc's indices are stable
// (never reused), so an index the agent read earlier names its tab or none.

const byIndex = (env: ToolEnv, index: number | undefined) =>
  env.client.tabs.list({ urlParams: env.query }).pipe(
    Effect.flatMap(({ tabs }): Effect.Effect<Tab, ToolFailure> => {
      const tab = index === undefined ? tabs.find((t) => t.current) : tabs.find((t) => t.index === index)
      if (tab !== undefined) return Effect.succeed(tab)
      return Effect.fail(
        new ToolFailure(
          index === undefined
            ? "no current tab: give index (browser_tabs {action: \"list\"} lists them)"
            : `no tab ${index}; the tabs are:\n${tabLines(tabs)}`
        )
      )
    })
  )

/**
 * After a tab closed: when the profile has no current tab left but other tabs, the one opened last becomes
 * current (as a browser shows the next tab), so that the next tool call has a tab to work in. `left`: the
 * tabs left, when the close answered them (else they are listed).
 */
export const refocusAfterClose = (env: ToolEnv, left?: ReadonlyArray<Tab>) =>
  (left !== undefined ? Effect.succeed(left) : Effect.map(env.client.tabs.list({ urlParams: env.query }), (l) => l.tabs)).pipe(
    Effect.flatMap((tabs) => {
      if (tabs.some((t) => t.current)) return Effect.succeed("")
      const last = tabs.at(-1)
      if (last === undefined) return Effect.succeed(" No tabs are left: browser_navigate opens one.")
      return env.client.tabs.focus({ urlParams: env.query, payload: { targetId: last.targetId } }).pipe(
        Effect.as(` Tab ${last.index} is current: ${last.title !== "" ? `${last.title} ` : ""}(${last.url}).`)
      )
    })
  )

export const tabs = defineTool({
  name: "browser_tabs",
  title: "Tabs",
  description: "List, open, select or close tabs. list: every tab with its index; new: open a tab (at url, or blank) " +
    "and make it current; select: make tab `index` current; close: close tab `index` (default: the current one).",
  input: Schema.Struct({
    action: field(Schema.Literal("list", "new", "select", "close"), "what to do"),
    index: optionalField(Schema.Int.pipe(Schema.nonNegative()), "the tab, for select and close"),
    url: optionalField(Schema.String.pipe(Schema.minLength(1)), "for new: the URL to open")
  }),
  readOnly: false,
  destructive: true,
  run: (input, env) => {
    switch (input.action) {
      case "list":
        return env.client.tabs.list({ urlParams: env.query }).pipe(Effect.map((r) => tabLines(r.tabs)))
      case "new":
        return env.client.tabs.open({ urlParams: env.query, payload: { url: input.url ?? "about:blank", dialogs: "hold" } }).pipe(
          Effect.map((t) =>
            [
              `Opened tab ${t.index} (${t.url}); it is the current tab`,
              ...(t.downloads !== undefined ? fileUrlLines(input.url ?? "about:blank", t.downloads, "the new tab stays blank") : [])
            ].join("\n")
          )
        )
      case "select":
        if (input.index === undefined) return Effect.fail(new ToolFailure("invalid arguments for browser_tabs: select needs index"))
        return byIndex(env, input.index).pipe(
          Effect.flatMap((t) => env.client.tabs.focus({ urlParams: env.query, payload: { targetId: t.targetId } })),
          Effect.map((t) => `Tab ${t.index} is current: ${t.title !== "" ? `${t.title} ` : ""}(${t.url})`)
        )
      case "close":
        return byIndex(env, input.index).pipe(
          Effect.flatMap((t) =>
            env.client.tabs.close({ urlParams: env.query, path: { targetId: t.targetId } }).pipe(
              Effect.zipRight(refocusAfterClose(env)),
              Effect.map((then) => `Closed tab ${t.index} (${t.url}).${then}`)
            )
          )
        )
    }
  }
})
