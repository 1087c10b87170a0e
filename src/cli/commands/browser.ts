import { Args, Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { Color, HttpUrl, ProfileName, TargetId } from "../../domain/browser.js"
import { renderProfiles, renderScreenshot, renderStatus, renderTab, renderTabs } from "../output.js"
import { foundHeading } from "../../client/found.js"
import { actCommands } from "./act.js"
import { mouseCommand } from "./mouse.js"
import { dropCommand } from "./drop.js"
import { styles } from "./styles.js"
import { stateCommand } from "./storageState.js"
import { routeCommand } from "./route.js"
import { openedLines } from "./actEffects.js"
import { extensionCommand } from "./extension.js"
import { inspectCommands } from "./inspect.js"
import { callControl, CliFailure, type CommonArgs, commonOptions, given, withControl } from "./shared.js"

const targetIdOption = Options.text("target-id").pipe(
  Options.withSchema(TargetId),
  Options.withDescription("the tab to use (default: the tab this profile last opened or focused)"),
  Options.optional
)
const targetIdArg = Args.text({ name: "targetId" }).pipe(
  Args.withSchema(TargetId),
  Args.withDescription("the tab's targetId, as `svc browser tabs` shows it")
)
const withTarget = (t: Option.Option<string>) => Option.match(t, { onNone: () => ({}), onSome: (targetId) => ({ targetId }) })

const status = Command.make("status", commonOptions, (args) =>
  callControl(args, (c, q) => c.browser.status({ urlParams: q }), renderStatus)
).pipe(Command.withDescription("show the profile's browser: running, pid, CDP port, automation library"))

const start = Command.make("start", commonOptions, (args) =>
  callControl(
    args,
    (c, q) => c.browser.start({ urlParams: q }),
    (r) =>
      r.launched
        ? `started ${r.status.profile} (pid ${r.status.pid}, ${r.status.cdpUrl}) in ${Math.round(r.elapsedMs)} ms`
        : `${r.status.profile} is already running${r.status.pid !== null ? ` (pid ${r.status.pid})` : ""}`
  )
).pipe(Command.withDescription("start the profile's browser (launch the managed one, or attach)"))

const stop = Command.make("stop", commonOptions, (args) =>
  callControl(
    args,
    (c, q) => c.browser.stop({ urlParams: q }),
    (r) => (r.stopped ? `stopped ${r.profile}` : `${r.profile} was not running`)
  )
).pipe(Command.withDescription("stop the profile's browser, if svc launched it"))

const listTabs = Command.make("tabs", commonOptions, (args) =>
  callControl(args, (c, q) => c.tabs.list({ urlParams: q }), (r) => renderTabs(r.tabs))
).pipe(Command.withDescription("list the profile's tabs (* marks the current one)"))

const tabByIndex = (args: CommonArgs, index: number) =>
  withControl(args, (c, q) => c.tabs.list({ urlParams: q })).pipe(
    Effect.map((r) => r.tabs),
    Effect.flatMap((tabs) => {
      const tab = tabs.find((t) => t.index === index)
      return tab !== undefined
        ? Effect.succeed(tab)
        : Effect.fail(
          new CliFailure({
            message: tabs.length === 0
              ? `no tab at index ${index}: the profile has no tabs`
              : `no tab at index ${index} (closed, or never opened; indices are not reused): the open tabs are ` +
                `${tabs.map((t) => t.index).join(", ")} (\`svc browser tab\` lists them)`
          })
        )
    })
  )

const tabNew = Command.make("new", { ...commonOptions, url: Args.text({ name: "url" }).pipe(Args.withDescription("the URL to open (default about:blank)"), Args.optional) }, (args) =>
  callControl(
    args,
    (c, q) => c.tabs.open({ urlParams: q, payload: { url: Option.getOrElse(args.url, () => "about:blank") } }),
    (t) => openedLines(Option.getOrElse(args.url, () => "about:blank"), t).join("\n")
  )
).pipe(Command.withDescription("open a new tab (about:blank unless a URL is given)"))

const tabIndex = Args.integer({ name: "index" }).pipe(Args.withDescription("the tab's number in `svc browser tab` (from 0)"))

const tabSelect = Command.make("select", { ...commonOptions, index: tabIndex }, (args) =>
  Effect.gen(function*() {
    const tab = yield* tabByIndex(args, args.index)
    yield* callControl(args, (c, q) => c.tabs.focus({ urlParams: q, payload: { targetId: tab.targetId } }), (t) => renderTab("focused", t))
  })
).pipe(Command.withDescription("focus the tab at <index> of `svc browser tab`"))

const tabClose = Command.make("close", { ...commonOptions, index: tabIndex }, (args) =>
  Effect.gen(function*() {
    const tab = yield* tabByIndex(args, args.index)
    yield* callControl(
      args,
      (c, q) => c.tabs.close({ urlParams: q, path: { targetId: tab.targetId } }),
      (r) => `closed ${r.targetId}`
    )
  })
).pipe(Command.withDescription("close the tab at <index> of `svc browser tab`"))

const tab = Command.make("tab", commonOptions, (args) =>
  callControl(args, (c, q) => c.tabs.list({ urlParams: q }), (r) => renderTabs(r.tabs))
).pipe(
  Command.withDescription("list tabs by index; `tab new`, `tab select <index>`, `tab close <index>`"),
  Command.withSubcommands([tabNew, tabSelect, tabClose])
)

const open = Command.make("open", { ...commonOptions, url: Args.text({ name: "url" }).pipe(Args.withDescription("the URL to open")) }, (args) =>
  callControl(args, (c, q) => c.tabs.open({ urlParams: q, payload: { url: args.url } }), (t) => openedLines(args.url, t).join("\n"))
).pipe(Command.withDescription("open <url> in a new tab, which becomes the current tab"))

const focus = Command.make(
  "focus",
  { ...commonOptions, targetId: targetIdArg },
  (args) =>
    callControl(
      args,
      (c, q) => c.tabs.focus({ urlParams: q, payload: { targetId: args.targetId } }),
      (t) => renderTab("focused", t)
    )
).pipe(Command.withDescription("focus the tab <targetId>; it becomes the current tab"))

const close = Command.make(
  "close",
  { ...commonOptions, targetId: targetIdArg },
  (args) =>
    callControl(
      args,
      (c, q) => c.tabs.close({ urlParams: q, path: { targetId: args.targetId } }),
      (r) => `closed ${r.targetId}`
    )
).pipe(Command.withDescription("close the tab <targetId>"))

/**
 * The name a screenshot or PDF is saved as, in the downloads root (never over a file); else a new one in media.
 * An option, not an argument: a mistyped option (`--fullpage`) is then refused as one, never taken as a file name.
 */
const saveAs = Options.text("filename").pipe(
  Options.withDescription("save it as this file in the downloads root (sub-folders allowed, never over an existing file)"),
  Options.optional
)

const screenshot = Command.make(
  "screenshot",
  {
    ...commonOptions,
    fullPage: Options.boolean("full-page").pipe(Options.withDescription("capture the whole scrollable page")),
    ref: Options.text("ref").pipe(Options.withDescription("capture just this element (a snapshot ref)"), Options.optional),
    filename: saveAs,
    type: Options.choice("type", ["png", "jpeg"]).pipe(
      Options.withDescription("png (default) or jpeg (a smaller file); a --filename ending .jpg or .jpeg means jpeg"),
      Options.optional
    ),
    targetId: targetIdOption
  },
  (args) =>
    callControl(
      args,
      (c, q) =>
        c.inspect.screenshot({
          urlParams: q,
          payload: {
            ...withTarget(args.targetId),
            fullPage: args.fullPage,
            ...given("ref", args.ref),
            ...given("filename", args.filename),
            ...given("type", args.type)
          }
        }),
      renderScreenshot
    )
).pipe(Command.withDescription("save a PNG (or --type jpeg) of the tab (as --filename in the downloads root, if given) and print MEDIA:<path>"))

const flag = (name: string, description: string) => Options.boolean(name).pipe(Options.withDescription(description))

const snapshot = Command.make(
  "snapshot",
  {
    ...commonOptions,
    format: Options.choice("format", ["ai", "aria", "role"]).pipe(
      Options.withDescription(
        "ai: text with numeric refs (the default with the automation library); aria: the accessibility tree, " +
          "no refs; role: lines with e<n> refs"
      ),
      Options.optional
    ),
    mode: Options.choice("mode", ["efficient"]).pipe(Options.withDescription("same as --efficient"), Options.optional),
    limit: Options.integer("limit").pipe(
      Options.withDescription("aria: at most this many nodes; ai and role: at most this many characters"),
      Options.optional
    ),
    interactive: flag("interactive", "role snapshot: a flat list of the interactive elements"),
    compact: flag("compact", "role snapshot: drop unnamed structure and branches without refs"),
    depth: Options.integer("depth").pipe(Options.withDescription("role snapshot: at most this deep"), Options.optional),
    selector: Options.text("selector").pipe(Options.withDescription("role snapshot of this CSS selector's element"), Options.optional),
    frame: Options.text("frame").pipe(
      Options.withDescription("role snapshot inside this iframe (CSS selector); its refs stay scoped to it"),
      Options.optional
    ),
    efficient: flag("efficient", "interactive + compact, capped at 10,000 characters"),
    labels: flag("labels", "also save a screenshot with each visible ref's label drawn on it (MEDIA:<path>)"),
    boxes: flag("boxes", "each element's box in its line, [box=x,y,width,height] in CSS pixels of the viewport (for click --at)"),
    diff: flag(
      "diff",
      "only the lines changed since this tab's last snapshot (the whole snapshot after a navigation or with " +
        "other options, saying so)"
    ),
    find: Options.text("find").pipe(
      Options.withDescription(
        "only the lines that hold this text (any case), each under the elements it is in; the whole page is searched, " +
          "--limit caps what is found (default 20,000 characters)"
      ),
      Options.optional
    ),
    regex: flag("regex", "--find is a regular expression (`error|warning`, or `/error/i` with flags)"),
    ref: Options.text("ref").pipe(
      Options.withDescription("only this element (a ref from an earlier snapshot) and what is in it, under its path; its refs stay the page's"),
      Options.optional
    ),
    targetId: targetIdOption
  },
  (args) =>
    callControl(
      args,
      (c, q) =>
        c.inspect.snapshot({
          urlParams: {
            ...q,
            ...withTarget(args.targetId),
            ...given("format", args.format),
            ...given("mode", args.mode),
            ...given("limit", args.limit),
            ...given("depth", args.depth),
            ...given("selector", args.selector),
            ...given("frame", args.frame),
            ...(args.interactive ? { interactive: true } : {}),
            ...(args.compact ? { compact: true } : {}),
            ...(args.efficient ? { efficient: true } : {}),
            ...(args.labels ? { labels: true } : {}),
            ...(args.boxes ? { boxes: true } : {}),
            ...(args.diff ? { diff: true } : {}),
            ...given("find", args.find),
            ...(args.regex ? { regex: true } : {}),
            ...given("ref", args.ref)
          }
        }),
      (r) => {
        const text = Option.match(args.find, {
          onNone: () => r.snapshot,
          onSome: (find) => [foundHeading(r, { find, regex: args.regex }), ...(r.snapshot !== "" ? [r.snapshot] : [])].join("\n")
        })
        return r.labelsPath !== undefined ? `${text}\nMEDIA:${r.labelsPath}` : text
      }
    )
).pipe(Command.withDescription("print a snapshot of the tab (refs for click, type, ...)"))

const pdf = Command.make("pdf", { ...commonOptions, filename: saveAs, targetId: targetIdOption }, (args) =>
  callControl(
    args,
    (c, q) => c.inspect.pdf({ urlParams: q, payload: { ...withTarget(args.targetId), ...given("filename", args.filename) } }),
    (r) => `MEDIA:${r.path}`
  )
).pipe(Command.withDescription("save the tab as a PDF (as --filename in the downloads root, if given) and print MEDIA:<path>"))

const profiles = Command.make("profiles", commonOptions, (args) =>
  callControl(args, (c, q) => c.browser.profiles({ urlParams: q }), (r) => renderProfiles(r.profiles))
).pipe(Command.withDescription("list browser profiles (* marks the default)"))

const createProfile = Command.make(
  "create-profile",
  {
    ...commonOptions,
    name: Args.text({ name: "name" }).pipe(Args.withSchema(ProfileName), Args.withDescription("the new profile's name")),
    color: Options.text("color").pipe(
      Options.withSchema(Color),
      Options.withDescription("accent colour of its browser, #RRGGBB (default browser.color)"),
      Options.optional
    ),
    cdpUrl: Options.text("cdp-url").pipe(
      Options.withSchema(HttpUrl),
      Options.withDescription("attach to the browser at this CDP URL instead of launching one"),
      Options.optional
    ),
    attachOnly: Options.boolean("attach-only").pipe(
      Options.withDescription("never launch a browser for it; only attach to one already running")
    )
  },
  (args) =>
    callControl(
      args,
      (c, q) =>
        c.browser.createProfile({
          urlParams: q,
          payload: {
            name: args.name,
            ...Option.match(args.color, { onNone: () => ({}), onSome: (color) => ({ color }) }),
            ...Option.match(args.cdpUrl, { onNone: () => ({}), onSome: (cdpUrl) => ({ cdpUrl }) }),
            ...(args.attachOnly ? { attachOnly: true } : {})
          }
        }),
      (p) => `created profile ${p.name} (${p.driver}${p.cdpPort !== null ? `, port ${p.cdpPort}` : ""})`
    )
).pipe(Command.withDescription("create a browser profile (managed, or remote with --cdp-url)"))

const deleteProfile = Command.make(
  "delete-profile",
  { ...commonOptions, name: Args.text({ name: "name" }).pipe(Args.withSchema(ProfileName), Args.withDescription("the profile to delete")) },
  (args) =>
    callControl(
      args,
      (c, q) => c.browser.deleteProfile({ urlParams: q, path: { name: args.name } }),
      (r) => `deleted profile ${r.name}${r.trashedTo !== null ? `; its data is in the trash: ${r.trashedTo}` : ""}`
    )
).pipe(Command.withDescription("delete a profile; its data directory is moved to the trash"))

export const browserCommand = Command.make("browser").pipe(
  Command.withDescription("drive the browser through the running gateway"),
  Command.withSubcommands([
    status,
    start,
    stop,
    listTabs,
    tab,
    open,
    focus,
    close,
    screenshot,
    snapshot,
    pdf,
    ...actCommands,
    mouseCommand,
    dropCommand,
    styles,
    ...inspectCommands,
    stateCommand,
    routeCommand,
    profiles,
    createProfile,
    deleteProfile,
    extensionCommand
  ])
)
