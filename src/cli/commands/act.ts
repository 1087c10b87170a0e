import { Args, Command, Options } from "@effect/cli"
import { Effect, Option, Schema } from "effect"
import { type ActRequest, type ActResult, FillField, TargetId } from "../../domain/browser.js"
import { waitedFor } from "../../client/waited.js"
import { scrolledLine } from "../../client/scrolled.js"
import { navigationLines, withEffects } from "./actEffects.js"
import { callControl, CliFailure, type CommonArgs, commonOptions, given } from "./shared.js"

// Navigate and act through the gateway. Elements are addressed by the refs a snapshot shows; a CSS
// selector is refused by the gateway (only `wait` takes one).

export const targetIdOption = Options.text("target-id").pipe(
  Options.withSchema(TargetId),
  Options.withDescription("the tab to act in (default: the tab this profile last opened or focused)"),
  Options.optional
)
const withTarget = (t: Option.Option<string>) => Option.match(t, { onNone: () => ({}), onSome: (targetId) => ({ targetId }) })
const ref = (name = "ref") => Args.text({ name }).pipe(Args.withDescription("a ref from `svc browser snapshot`"))
export const timeoutOption = Options.integer("timeout").pipe(
  Options.withDescription(
    "how many milliseconds to wait for the element to be visible, enabled, still and not covered before giving up " +
      "(default 5000)"
  ),
  Options.optional
)
export const withTimeout = (t: Option.Option<number>) => Option.match(t, { onNone: () => ({}), onSome: (timeoutMs) => ({ timeoutMs }) })

/** After an action: its snapshot in the same answer. */
export const after = {
  snapshot: Options.boolean("snapshot").pipe(
    Options.withDescription("print the tab's snapshot after the action too (one call instead of two)")
  ),
  diff: Options.boolean("diff").pipe(
    Options.withDescription("print only what changed in the tab's snapshot since its last one (whole after a navigation)")
  )
}

type Args_ = CommonArgs & {
  readonly targetId: Option.Option<string>
  readonly snapshot?: boolean
  readonly diff?: boolean
}

/** POST /act with one action; prints a short confirmation and what it caused (or the API's JSON). */
export const act = (args: Args_, request: ActRequest, human: (url: string, result: unknown, r: ActResult) => string) =>
  callControl(
    args,
    // The typed client narrows a union payload to one member's type; the schema still encodes any member.
    (c, q) =>
      c.act.act({
        urlParams: q,
        payload: {
          ...request,
          ...withTarget(args.targetId),
          ...(args.snapshot === true ? { snapshot: true } : {}),
          ...(args.diff === true ? { diff: true } : {})
        } as never
      }),
    (r) => withEffects(human(r.url, r.result, r), r)
  )

export const done = (what: string) => (url: string) => `${what} (${url})`

/** How far `svc browser scroll` goes when not told: most of a viewport. */
const DEFAULT_SCROLL_PX = 600

const navigate = Command.make(
  "navigate",
  { ...commonOptions, url: Args.text({ name: "url" }).pipe(Args.withDescription("the URL to load (http, https, file, about:blank)")), targetId: targetIdOption },
  (args) =>
    callControl(
      args,
      (c, q) => c.act.navigate({ urlParams: q, payload: { url: args.url, ...withTarget(args.targetId) } }),
      (r) => navigationLines(args.url, r).join("\n")
    )
).pipe(Command.withDescription("load <url> in the current tab"))

const resize = Command.make(
  "resize",
  {
    ...commonOptions,
    width: Args.integer({ name: "width" }).pipe(Args.withDescription("viewport width in CSS pixels")),
    height: Args.integer({ name: "height" }).pipe(Args.withDescription("viewport height in CSS pixels")),
    timeout: timeoutOption,
    ...after,
    targetId: targetIdOption
  },
  (args) => act(args, { kind: "resize", width: args.width, height: args.height, ...withTimeout(args.timeout) }, done(`resized to ${args.width}x${args.height}`))
).pipe(Command.withDescription("set the tab's viewport size in CSS pixels"))

/** `--at 120,48`: two numbers, x then y. */
export const parsePoint = (raw: string): { x: number; y: number } | undefined => {
  const m = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(raw)
  return m === null ? undefined : { x: Number(m[1]), y: Number(m[2]) }
}

const click = Command.make(
  "click",
  {
    ...commonOptions,
    ref: ref().pipe(Args.optional),
    at: Options.text("at").pipe(
      Options.withDescription(
        "click at a point instead of an element: x,y in CSS pixels from the viewport's top left corner, e.g. --at 120,48 " +
          "(a screenshot shows the same pixels)"
      ),
      Options.optional
    ),
    double: Options.boolean("double").pipe(Options.withDescription("double-click")),
    timeout: timeoutOption,
    ...after,
    targetId: targetIdOption
  },
  (args) =>
    Effect.gen(function*() {
      const double = args.double ? { double: true } : {}
      if (Option.isSome(args.at)) {
        if (Option.isSome(args.ref)) {
          return yield* new CliFailure({ message: "click: give a ref or --at x,y, not both" })
        }
        const point = parsePoint(args.at.value)
        if (point === undefined) {
          return yield* new CliFailure({
            message: `click --at: expected x,y in CSS pixels, e.g. --at 120,48 (got ${JSON.stringify(args.at.value)})`
          })
        }
        return yield* act(
          args,
          { kind: "clickAt", ...point, ...double, ...withTimeout(args.timeout) },
          done(`clicked at ${point.x},${point.y}`)
        )
      }
      if (Option.isNone(args.ref)) {
        return yield* new CliFailure({
          message: "click: give the ref of the element to click (from `svc browser snapshot`), or --at x,y for a point"
        })
      }
      const r = args.ref.value
      return yield* act(args, { kind: "click", ref: r, ...double, ...withTimeout(args.timeout) }, done(`clicked ${r}`))
    })
).pipe(Command.withDescription("click the element <ref>, or the point --at x,y"))

const type = Command.make(
  "type",
  {
    ...commonOptions,
    ref: ref().pipe(Args.optional),
    text: Args.text({ name: "text" }).pipe(Args.withDescription("the text to type"), Args.optional),
    focused: Options.text("focused").pipe(
      Options.withDescription(
        "type this text into the element that has focus, at its caret (no ref; the field is not cleared), " +
          "e.g. `type --focused hello`"
      ),
      Options.optional
    ),
    submit: Options.boolean("submit").pipe(Options.withDescription("press Enter afterwards")),
    slowly: Options.boolean("slowly").pipe(Options.withDescription("type key by key instead of filling")),
    timeout: timeoutOption,
    ...after,
    targetId: targetIdOption
  },
  (args) =>
    Effect.gen(function*() {
      const flags = {
        ...(args.submit ? { submit: true } : {}),
        ...(args.slowly ? { slowly: true } : {}),
        ...withTimeout(args.timeout)
      }
      if (Option.isSome(args.focused)) {
        // The text is the option's value, so no positional word (not even one such as "12") is taken for a ref.
        if (Option.isSome(args.ref) || Option.isSome(args.text)) {
          return yield* new CliFailure({
            message: "type --focused <text> takes no ref and no other text: quote the text, e.g. `type --focused \"hello world\"`"
          })
        }
        return yield* act(args, { kind: "typeFocused", text: args.focused.value, ...flags }, done("typed into the focused element"))
      }
      if (Option.isNone(args.ref) || Option.isNone(args.text)) {
        return yield* new CliFailure({
          message: "type: give a ref and the text, e.g. `svc browser type 12 hello`, or `--focused <text>` to type " +
            "into the element that has focus"
        })
      }
      const r = args.ref.value
      return yield* act(args, { kind: "type", ref: r, text: args.text.value, ...flags }, done(`typed into ${r}`))
    })
).pipe(Command.withDescription("type <text> into the element <ref>, or --focused <text> into the focused element"))

const moved = (what: string) => (url: string, _result: unknown, r: ActResult) =>
  `${what} ${url}${r.status !== undefined ? ` (HTTP ${r.status})` : ""}${r.title !== undefined && r.title !== "" ? `: ${r.title}` : ""}`

const historyTimeout = Options.integer("timeout").pipe(
  Options.withDescription("how many milliseconds to wait for the page to load before giving up (default 20000)"),
  Options.optional
)

const back = Command.make("back", { ...commonOptions, timeout: historyTimeout, ...after, targetId: targetIdOption }, (args) =>
  act(args, { kind: "back", ...withTimeout(args.timeout) }, moved("went back to"))).pipe(
    Command.withDescription("go back one page in the tab's history, like the browser's Back button")
  )

const forward = Command.make("forward", { ...commonOptions, timeout: historyTimeout, ...after, targetId: targetIdOption }, (args) =>
  act(args, { kind: "forward", ...withTimeout(args.timeout) }, moved("went forward to"))).pipe(
    Command.withDescription("go forward one page in the tab's history, like the browser's Forward button")
  )

const reload = Command.make("reload", { ...commonOptions, timeout: historyTimeout, ...after, targetId: targetIdOption }, (args) =>
  act(args, { kind: "reload", ...withTimeout(args.timeout) }, moved("reloaded"))).pipe(
    Command.withDescription("reload the current page")
  )

const readTimeout = Options.integer("timeout").pipe(
  Options.withDescription("how many milliseconds to wait for the element to be on the page before giving up (default 5000)"),
  Options.optional
)

const text = Command.make("text", { ...commonOptions, ref: ref(), timeout: readTimeout, targetId: targetIdOption }, (args) =>
  act(args, { kind: "text", ref: args.ref, ...withTimeout(args.timeout) }, (_url, result) => String(result ?? ""))).pipe(
    Command.withDescription("print the visible text of the element <ref> (long text is cut, with a marker saying so)")
  )

/** A control's value for a reader: text as is, a checked state in words, selected options one per line. */
const showValue = (_url: string, result: unknown): string => {
  if (typeof result === "boolean") return result ? "checked" : "not checked"
  if (Array.isArray(result)) {
    return result.length === 0
      ? "(no option selected)"
      : result.map((o: { value: string; label: string }) =>
        o.label === o.value ? o.label : `${o.label} (value ${JSON.stringify(o.value)})`
      ).join("\n")
  }
  return String(result ?? "")
}

const value = Command.make("value", { ...commonOptions, ref: ref(), timeout: readTimeout, targetId: targetIdOption }, (args) =>
  act(args, { kind: "value", ref: args.ref, ...withTimeout(args.timeout) }, showValue)).pipe(
    Command.withDescription(
      "print the current value of the control <ref>: a field's text, a checkbox's or radio's checked state, " +
        "a select's selected option(s)"
    )
  )

const press = Command.make(
  "press",
  {
    ...commonOptions,
    key: Args.text({ name: "key" }).pipe(Args.withDescription("a key name, or keys joined by +")),
    timeout: Options.integer("timeout").pipe(
      Options.withDescription("how many milliseconds the key press may take before giving up (default 5000)"),
      Options.optional
    ),
    ...after,
    targetId: targetIdOption
  },
  (args) => act(args, { kind: "press", key: args.key, ...withTimeout(args.timeout) }, done(`pressed ${args.key}`))
).pipe(
    Command.withDescription("press a key (Enter, Tab, ArrowDown, Control+A, ...)")
  )

const hover = Command.make("hover", { ...commonOptions, ref: ref(), timeout: timeoutOption, ...after, targetId: targetIdOption }, (args) =>
  act(args, { kind: "hover", ref: args.ref, ...withTimeout(args.timeout) }, done(`hovered ${args.ref}`))).pipe(
    Command.withDescription("move the mouse over <ref>")
  )

const scrollIntoView = Command.make(
  "scrollintoview",
  { ...commonOptions, ref: ref(), timeout: timeoutOption, ...after, targetId: targetIdOption },
  (args) => act(args, { kind: "scrollIntoView", ref: args.ref, ...withTimeout(args.timeout) }, done(`scrolled ${args.ref} into view`))
).pipe(
    Command.withDescription("scroll <ref> into view")
  )

const scroll = Command.make(
  "scroll",
  {
    ...commonOptions,
    direction: Args.choice([["down", "down"], ["up", "up"], ["right", "right"], ["left", "left"]], { name: "direction" }).pipe(
      Args.withDescription("down, up, right or left")
    ),
    pixels: Args.integer({ name: "pixels" }).pipe(Args.withDescription("how far, in CSS pixels (default 600)"), Args.optional),
    ref: Options.text("ref").pipe(
      Options.withDescription("turn the wheel over this element (a list or panel that scrolls on its own), not the page"),
      Options.optional
    ),
    timeout: timeoutOption,
    ...after,
    targetId: targetIdOption
  },
  (args) =>
    Effect.gen(function*() {
      const pixels = Option.getOrElse(args.pixels, () => DEFAULT_SCROLL_PX)
      if (pixels <= 0) {
        return yield* new CliFailure({ message: `scroll: pixels must be a positive number (got ${pixels}); say up or left to go back` })
      }
      const sign = args.direction === "up" || args.direction === "left" ? -1 : 1
      const delta = args.direction === "left" || args.direction === "right" ? { dx: sign * pixels } : { dy: sign * pixels }
      return yield* act(
        args,
        { kind: "scroll", ...delta, ...given("ref", args.ref), ...withTimeout(args.timeout) },
        (url, result) => `${scrolledLine(result, delta)} (${url})`
      )
    })
).pipe(
  Command.withDescription("scroll the page (or --ref's element) with the mouse wheel, and say where it is now")
)

const drag = Command.make(
  "drag",
  { ...commonOptions, startRef: ref("startRef"), endRef: ref("endRef"), timeout: timeoutOption, ...after, targetId: targetIdOption },
  (args) =>
    act(
      args,
      { kind: "drag", startRef: args.startRef, endRef: args.endRef, ...withTimeout(args.timeout) },
      done(`dragged ${args.startRef} to ${args.endRef}`)
    )
).pipe(Command.withDescription("drag <startRef> onto <endRef>"))

const select = Command.make(
  "select",
  {
    ...commonOptions,
    ref: ref(),
    values: Args.text({ name: "option" }).pipe(
      Args.atLeast(1),
      Args.withDescription("an option's value or label (several for a multiple select)")
    ),
    timeout: timeoutOption,
    ...after,
    targetId: targetIdOption
  },
  (args) =>
    act(
      args,
      { kind: "select", ref: args.ref, values: args.values, ...withTimeout(args.timeout) },
      done(`selected ${args.values.join(", ")} in ${args.ref}`)
    )
).pipe(Command.withDescription("select <option>... (by value or label) in the select <ref>"))

const decodeFields = Schema.decodeUnknownEither(Schema.parseJson(Schema.Array(FillField)))

const fill = Command.make(
  "fill",
  {
    ...commonOptions,
    fields: Options.text("fields").pipe(
      Options.withDescription('JSON: [{"ref":"12","type":"textbox","value":"Ada"},{"ref":"14","type":"checkbox","value":true}]')
    ),
    timeout: timeoutOption.pipe(Options.withDescription("(each field has this timeout of its own)")),
    ...after,
    targetId: targetIdOption
  },
  (args) =>
    Effect.gen(function*() {
      const fields = decodeFields(args.fields)
      if (fields._tag === "Left") {
        return yield* new CliFailure({
          message: `--fields must be a JSON array of {ref, type, value} with type textbox|checkbox|radio|combobox|slider: ${
            fields.left.message.split("\n")[0]
          }`
        })
      }
      yield* act(
        args,
        { kind: "fill", fields: fields.right, ...withTimeout(args.timeout) },
        done(`filled ${fields.right.length} field(s)`)
      )
    })
).pipe(Command.withDescription("fill several form fields at once"))

const wait = Command.make(
  "wait",
  {
    ...commonOptions,
    selector: Args.text({ name: "ref-or-selector" }).pipe(
      Args.withDescription("wait until this element is visible: a ref from `svc browser snapshot`, or a CSS selector"),
      Args.optional
    ),
    enabled: Options.boolean("enabled").pipe(
      Options.withDescription("with a ref or selector: wait until the element is enabled too, e.g. `wait 12 --enabled`")
    ),
    text: Options.text("text").pipe(Options.withDescription("wait until this text appears"), Options.optional),
    textGone: Options.text("text-gone").pipe(Options.withDescription("wait until this text is gone"), Options.optional),
    url: Options.text("url").pipe(Options.withDescription("wait until the URL matches this glob"), Options.optional),
    load: Options.choice("load", ["load", "domcontentloaded", "networkidle"]).pipe(
      Options.withDescription("wait for a load state"),
      Options.optional
    ),
    fn: Options.text("fn").pipe(Options.withDescription("wait until this JS predicate is truthy"), Options.optional),
    time: Options.integer("time").pipe(Options.withDescription("wait this many milliseconds"), Options.optional),
    timeout: Options.integer("timeout").pipe(Options.withDescription("give up after this many milliseconds"), Options.optional),
    ...after,
    targetId: targetIdOption
  },
  (args) => {
    const request = {
      kind: "wait" as const,
      ...given("selector", args.selector),
      ...(args.enabled ? { enabled: true } : {}),
      ...given("text", args.text),
      ...given("textGone", args.textGone),
      ...given("url", args.url),
      ...given("load", args.load),
      ...given("fn", args.fn),
      ...given("timeMs", args.time),
      ...given("timeoutMs", args.timeout)
    }
    return act(args, request as ActRequest, done(`waited for ${waitedFor(request) || "nothing"}`))
  }
).pipe(Command.withDescription("wait for an element (ref or selector), text, URL, load state, JS predicate or time"))

const evaluate = Command.make(
  "evaluate",
  {
    ...commonOptions,
    script: Args.text({ name: "function" }).pipe(
      Args.withDescription("a JS function, e.g. '() => document.title' (or give it with --fn)"),
      Args.optional
    ),
    fn: Options.text("fn").pipe(
      Options.withDescription("a JS function, e.g. '() => document.title' or '(el) => el.value'"),
      Options.optional
    ),
    ref: Options.text("ref").pipe(Options.withDescription("pass this element to the function"), Options.optional),
    timeout: Options.integer("timeout").pipe(
      Options.withDescription("stop the function after this many milliseconds (default 8000); the tab stays usable"),
      Options.optional
    ),
    ...after,
    targetId: targetIdOption
  },
  (args) =>
    Effect.gen(function*() {
      if (Option.isSome(args.script) && Option.isSome(args.fn)) {
        return yield* new CliFailure({ message: "evaluate: give the function once: as an argument or with --fn, not both" })
      }
      const fn = Option.orElse(args.script, () => args.fn)
      if (Option.isNone(fn)) {
        return yield* new CliFailure({ message: "evaluate: give a function, e.g. `svc browser evaluate '() => document.title'`" })
      }
      return yield* act(
        args,
        {
          kind: "evaluate",
          fn: fn.value,
          ...Option.match(args.ref, { onNone: () => ({}), onSome: (ref) => ({ ref }) }),
          ...withTimeout(args.timeout)
        },
        (_url, result) => (result === undefined ? "undefined" : JSON.stringify(result, null, 2))
      )
    })
).pipe(Command.withDescription("run a JS function in the page and print its JSON result"))

const highlight = Command.make("highlight", { ...commonOptions, ref: ref(), targetId: targetIdOption }, (args) =>
  callControl(
    args,
    (c, q) => c.act.highlight({ urlParams: q, payload: { ref: args.ref, ...withTarget(args.targetId) } }),
    (r) => `highlighted ${r.ref}: ${r.description}`
  )).pipe(Command.withDescription("draw a visible outline around <ref> (see it with `screenshot`)"))

const closeTab = Command.make(
  "close-page",
  {
    ...commonOptions,
    timeout: Options.integer("timeout").pipe(
      Options.withDescription("how many milliseconds closing may take (the page's unload handlers) before giving up (default 5000)"),
      Options.optional
    ),
    targetId: targetIdOption
  },
  (args) => act(args, { kind: "close", ...withTimeout(args.timeout) }, () => "closed the page")
).pipe(
    Command.withDescription("close the current page (like window.close)")
  )

export const actCommands = [
  navigate,
  back,
  forward,
  reload,
  resize,
  click,
  type,
  press,
  hover,
  scrollIntoView,
  scroll,
  drag,
  select,
  fill,
  wait,
  evaluate,
  text,
  value,
  highlight,
  closeTab
] as const
