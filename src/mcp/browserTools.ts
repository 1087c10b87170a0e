import { Effect, Schema } from "effect"
import type { ActRequest } from "../domain/browser.js"
import { waitedFor } from "../client/waited.js"
import { droppedWhat } from "../client/dropped.js"
import { foundHeading } from "../client/found.js"
import { propertiesParam, stylesText } from "../client/styles.js"
import { snapshotNoticesAsParameters } from "../client/hints.js"
import { actionText, dialogLines, elementName, fileUrlLines, snapshotText, valueText } from "./results.js"
import { refocusAfterClose } from "./tabTools.js"
import { answerOrSave, defineTool, elementRef, field, filenameField, optionalField, type ToolEnv, ToolFailure } from "./tool.js"

// The tools as agents know them from Playwright MCP: same names, same argument names. Each decodes its
// arguments, makes one call of the control API and says what happened.

export const Ref = Schema.String.pipe(Schema.minLength(1))
const refFields = {
  ref: optionalField(Ref, "the element's ref, as the snapshot shows it ([ref=12] → \"12\")"),
  target: optionalField(Ref, "the same as ref (svc's `browser` tool calls it target)"),
  element: optionalField(Schema.String, "what the element is, in your words (shown in the answer)")
}
export const afterFields = {
  snapshot: optionalField(
    Schema.Boolean,
    "also answer with what changed in the page's snapshot since the last one (saves a browser_snapshot call)"
  )
}

/** POST /act with one action. A dialog it opens is held for browser_handle_dialog, as Playwright MCP does. */
export const postAct = (env: ToolEnv, request: ActRequest) =>
  env.client.act.act({
    urlParams: env.query,
    // The typed client narrows a union payload to one member's type; the schema still encodes any member.
    payload: { ...request, dialogs: "hold" } as never
  })

/** One action; the answer is `line` and what the action caused. */
export const act = (env: ToolEnv, request: ActRequest, line: string, snapshot?: boolean) =>
  postAct(env, { ...request, ...(snapshot === true ? { diff: true } : {}) }).pipe(Effect.map((r) => actionText(line, r)))

export const navigate = defineTool({
  name: "browser_navigate",
  title: "Navigate to a URL",
  description: "Load a URL in the current tab (opening a tab if there is none).",
  input: Schema.Struct({
    url: field(Schema.String.pipe(Schema.minLength(1)), "the URL to load"),
    snapshot: optionalField(Schema.Boolean, "also answer with the loaded page's snapshot (saves a browser_snapshot call)")
  }),
  readOnly: false,
  destructive: true,
  run: ({ snapshot, url }, env) =>
    Effect.gen(function*() {
      const r = yield* env.client.act.navigate({ urlParams: env.query, payload: { url, dialogs: "hold" } })
      const line = [
        ...(r.downloads !== undefined
          ? fileUrlLines(url, r.downloads, `the tab stays on ${r.url}`)
          : [`Navigated to ${r.url}${r.status !== null ? ` (HTTP ${r.status})` : ""}${r.title !== "" ? `: ${r.title}` : ""}`]),
        ...dialogLines(r.dialogs)
      ].join("\n")
      // A page that waits in a dialog has no snapshot to give; after a download the page is the one it was.
      if (snapshot !== true || r.downloads !== undefined || r.dialogs?.some((d) => d.answer === "open") === true) return line
      const s = yield* env.client.inspect.snapshot({ urlParams: { ...env.query, targetId: r.targetId } })
      return `${line}\n\n${snapshotText(s)}`
    })
})

/** A move in the current tab's history: back or forward, answered with where it went. */
const historyTool = (kind: "back" | "forward" | "reload", name: string, title: string, description: string) =>
  defineTool({
    name,
    title,
    description,
    input: Schema.Struct({
      snapshot: optionalField(Schema.Boolean, "also answer with the page's snapshot (saves a browser_snapshot call)")
    }),
    readOnly: false,
    destructive: true,
    run: ({ snapshot }, env) =>
      postAct(env, { kind, ...(snapshot === true ? { snapshot: true } : {}) }).pipe(
        Effect.map((r) =>
          actionText(`${kind === "reload" ? "Reloaded" : `Went ${kind} to`} ${r.url}${r.title !== undefined && r.title !== "" ? `: ${r.title}` : ""}`, r)
        )
      )
  })

export const navigateBack = historyTool("back", "browser_navigate_back", "Go back", "Go back to the previous page of the current tab.")

export const navigateForward = historyTool(
  "forward",
  "browser_navigate_forward",
  "Go forward",
  "Go forward to the next page of the current tab's history (after browser_navigate_back)."
)

export const reload = historyTool("reload", "browser_navigate_reload", "Reload", "Load the current tab's page again.")

export const snapshot = defineTool({
  name: "browser_snapshot",
  title: "Page snapshot",
  description: "The current tab's accessibility snapshot: one line per element, with [ref=…] on those you can act on. " +
    "Better than a screenshot for acting. Options narrow it: mode \"efficient\" (interactive and compact, capped), " +
    "interactive, compact, depth, selector (CSS), frame (CSS of an iframe), target (a ref: that element's part), limit " +
    "(characters). A cut snapshot says so " +
    "on its last line and how to see more.",
  input: Schema.Struct({
    mode: optionalField(Schema.Literal("efficient"), "efficient: only what can be acted on, compact, capped at 10,000 characters"),
    interactive: optionalField(Schema.Boolean, "a flat list of what can be acted on"),
    compact: optionalField(Schema.Boolean, "leave out structural lines without a name"),
    depth: optionalField(Schema.Int.pipe(Schema.between(1, 1000)), "how many levels deep"),
    selector: optionalField(Schema.String.pipe(Schema.minLength(1)), "only the part under this CSS selector"),
    frame: optionalField(Schema.String.pipe(Schema.minLength(1)), "only the iframe this CSS selector finds"),
    limit: optionalField(Schema.Int.pipe(Schema.between(1, 10_000_000)), "at most this many characters (default 80,000)"),
    diff: optionalField(Schema.Boolean, "only the lines changed since this tab's last snapshot"),
    boxes: optionalField(
      Schema.Boolean,
      "each element's box in its line, [box=x,y,width,height] in CSS pixels of the viewport (for browser_mouse_click_xy)"
    ),
    target: optionalField(Ref, "only this element (a ref from an earlier snapshot) and what is in it, under its path"),
    ref: optionalField(Ref, "the same as target"),
    ...filenameField
  }),
  readOnly: true,
  run: ({ ref, target, filename, ...input }, env) => {
    const part = ref ?? target
    return env.client.inspect.snapshot({ urlParams: { ...env.query, ...input, ...(part !== undefined ? { ref: part } : {}) } })
      .pipe(Effect.map(snapshotText), Effect.flatMap(answerOrSave(filename)))
  }
})

export const find = defineTool({
  name: "browser_find",
  title: "Find in page snapshot",
  description: "Search the current tab's whole snapshot for a text (any case) or a regular expression: each matching " +
    "line with its [ref=…], under the elements it is in, and the first lines of its content. Cheaper than a whole " +
    "snapshot when you look for one thing, and it reaches past the cap of a long page's snapshot.",
  input: Schema.Struct({
    text: optionalField(Schema.String.pipe(Schema.minLength(1)), "the text to look for (any case); give text or regex"),
    regex: optionalField(
      Schema.String.pipe(Schema.minLength(1)),
      "a regular expression instead (case-sensitive; \"/error/i\" for flags); give text or regex"
    ),
    selector: optionalField(Schema.String.pipe(Schema.minLength(1)), "search only the part under this CSS selector"),
    limit: optionalField(Schema.Int.pipe(Schema.between(1, 10_000_000)), "at most this many characters found (default 20,000)"),
    ...filenameField
  }),
  readOnly: true,
  run: ({ filename, limit, regex, selector, text }, env) =>
    Effect.gen(function*() {
      if ((text === undefined) === (regex === undefined)) {
        return yield* Effect.fail(new ToolFailure("give either text (plain, any case) or regex (a regular expression), not both and not neither"))
      }
      const asked = text !== undefined ? { find: text } : { find: regex!, regex: true }
      const r = yield* env.client.inspect.snapshot({
        urlParams: { ...env.query, ...asked, ...(selector !== undefined ? { selector } : {}), ...(limit !== undefined ? { limit } : {}) }
      })
      const head = `Page: ${r.title !== "" ? `${r.title} ` : ""}(${r.url})\n${foundHeading(r, asked)}`
      return yield* answerOrSave(filename)(r.snapshot !== "" ? `${head}\n${snapshotNoticesAsParameters(r.snapshot)}` : head)
    })
})

export const click = defineTool({
  name: "browser_click",
  title: "Click",
  description: "Click an element by its snapshot ref. Waits (up to 5 s) for it to be visible, enabled, still and " +
    "not covered, then says which it is not. The answer says what the click caused: a dialog, a new tab, a download, " +
    "a navigation.",
  input: Schema.Struct({
    ...refFields,
    doubleClick: optionalField(Schema.Boolean, "double-click"),
    button: optionalField(Schema.Literal("left", "right", "middle"), "the mouse button (default left)"),
    modifiers: optionalField(Schema.Array(Schema.Literal("Alt", "Control", "ControlOrMeta", "Meta", "Shift")), "keys held while clicking"),
    ...afterFields
  }),
  readOnly: false,
  destructive: true,
  run: (input, env) =>
    Effect.flatMap(elementRef(input), (ref) =>
      act(
        env,
        {
          kind: "click",
          ref,
          ...(input.doubleClick === true ? { double: true } : {}),
          ...(input.button !== undefined ? { button: input.button } : {}),
          ...(input.modifiers !== undefined ? { modifiers: input.modifiers } : {})
        },
        `${input.doubleClick === true ? "Double-clicked" : "Clicked"} ${elementName(ref, input.element)}`,
        input.snapshot
      ))
})

export const type = defineTool({
  name: "browser_type",
  title: "Type text",
  description: "Type text into an editable element by its ref (replacing what it holds); submit presses Enter after; " +
    "slowly types one key at a time (for pages that react to each key).",
  input: Schema.Struct({
    ...refFields,
    text: field(Schema.String, "the text to type"),
    submit: optionalField(Schema.Boolean, "press Enter after"),
    slowly: optionalField(Schema.Boolean, "one key at a time"),
    ...afterFields
  }),
  readOnly: false,
  destructive: true,
  run: (input, env) =>
    Effect.flatMap(elementRef(input), (ref) =>
      act(
        env,
        {
          kind: "type",
          ref,
          text: input.text,
          ...(input.submit !== undefined ? { submit: input.submit } : {}),
          ...(input.slowly !== undefined ? { slowly: input.slowly } : {})
        },
        `Typed ${JSON.stringify(input.text)} into ${elementName(ref, input.element)}${input.submit === true ? " and pressed Enter" : ""}`,
        input.snapshot
      ))
})

export const pressKey = defineTool({
  name: "browser_press_key",
  title: "Press a key",
  description: "Press a key or a combination in the page: Enter, ArrowLeft, a, Control+a.",
  input: Schema.Struct({ key: field(Schema.String.pipe(Schema.minLength(1)), "the key, as Playwright names it"), ...afterFields }),
  readOnly: false,
  destructive: true,
  run: (input, env) => act(env, { kind: "press", key: input.key }, `Pressed ${input.key}`, input.snapshot)
})

export const hover = defineTool({
  name: "browser_hover",
  title: "Hover",
  description: "Move the mouse over an element by its ref.",
  input: Schema.Struct({ ...refFields, ...afterFields }),
  readOnly: false,
  run: (input, env) =>
    Effect.flatMap(elementRef(input), (ref) =>
      act(env, { kind: "hover", ref }, `Hovered over ${elementName(ref, input.element)}`, input.snapshot))
})

export const highlight = defineTool({
  name: "browser_highlight",
  title: "Highlight an element",
  description: "Scroll an element into view and outline it for a moment, so a person watching the browser sees which " +
    "element a ref is (the outline takes no clicks and leaves the page as it was).",
  input: Schema.Struct(refFields),
  readOnly: true,
  run: (input, env) =>
    Effect.flatMap(elementRef(input), (ref) =>
      env.client.act.highlight({ urlParams: env.query, payload: { ref } }).pipe(
        Effect.map((r) => `Highlighted ${elementName(ref, input.element)}: ${r.description}`)
      ))
})

export const cssStyles = defineTool({
  name: "browser_get_css_styles",
  title: "CSS of an element",
  description: "An element's CSS by its ref: what its properties compute to, and the page's rules that set them, " +
    "highest precedence first, with the stylesheet and line of each and [overridden] on declarations another one " +
    "beats. properties narrows both to those named (and then includes the browser's own rules for them).",
  input: Schema.Struct({
    ...refFields,
    properties: optionalField(Schema.Array(Schema.String.pipe(Schema.minLength(1))), "CSS property names, e.g. [\"color\", \"margin\"]")
  }),
  readOnly: true,
  run: (input, env) =>
    Effect.flatMap(elementRef(input), (ref) =>
      env.client.act.styles({
        urlParams: { ...env.query, ref, ...propertiesParam(input.properties) }
      }).pipe(Effect.map(stylesText)))
})

export const drag = defineTool({
  name: "browser_drag",
  title: "Drag and drop",
  description: "Drag one element onto another, both by their refs.",
  input: Schema.Struct({
    startRef: optionalField(Ref, "the ref of the element to drag"),
    endRef: optionalField(Ref, "the ref of the element to drop it on"),
    startTarget: optionalField(Ref, "the same as startRef"),
    endTarget: optionalField(Ref, "the same as endRef"),
    startElement: optionalField(Schema.String, "what the dragged element is, in your words"),
    endElement: optionalField(Schema.String, "what the drop target is, in your words"),
    ...afterFields
  }),
  readOnly: false,
  destructive: true,
  run: (input, env) =>
    Effect.gen(function*() {
      const startRef = input.startRef ?? input.startTarget
      const endRef = input.endRef ?? input.endTarget
      if (startRef === undefined || endRef === undefined) {
        return yield* Effect.fail(
          new ToolFailure("invalid arguments for browser_drag: give startRef (the element to drag) and endRef (where to drop it)")
        )
      }
      return yield* act(
        env,
        { kind: "drag", startRef, endRef },
        `Dragged ${elementName(startRef, input.startElement)} onto ${elementName(endRef, input.endElement)}`,
        input.snapshot
      )
    })
})

export const drop = defineTool({
  name: "browser_drop",
  title: "Drop files or data onto an element",
  description: "Drop files (paths in svc's uploads root) or MIME-typed data onto an element by its ref, as if dragged " +
    "in from outside the page (an upload area, an editor). Give paths, data, or both.",
  input: Schema.Struct({
    ...refFields,
    paths: optionalField(Schema.Array(Schema.String.pipe(Schema.minLength(1))), "files to drop, in the uploads root"),
    data: optionalField(
      Schema.Record({ key: Schema.String.pipe(Schema.minLength(1)), value: Schema.String }),
      "data to drop, MIME type to text, e.g. {\"text/plain\": \"hello\", \"text/uri-list\": \"https://example.com\"}"
    ),
    ...afterFields
  }),
  readOnly: false,
  destructive: true,
  run: (input, env) =>
    Effect.flatMap(elementRef(input), (ref) =>
      act(
        env,
        {
          kind: "drop",
          ref,
          ...(input.paths !== undefined ? { paths: input.paths } : {}),
          ...(input.data !== undefined ? { data: input.data } : {})
        },
        `Dropped ${droppedWhat(input.paths, input.data)} onto ${elementName(ref, input.element)}`,
        input.snapshot
      ))
})

export const selectOption = defineTool({
  name: "browser_select_option",
  title: "Select options",
  description: "Select one or more options of a select element by its ref (by value or label).",
  input: Schema.Struct({
    ...refFields,
    values: field(Schema.Array(Schema.String).pipe(Schema.minItems(1)), "the options to select"),
    ...afterFields
  }),
  readOnly: false,
  destructive: true,
  run: (input, env) =>
    Effect.flatMap(elementRef(input), (ref) =>
      act(
        env,
        { kind: "select", ref, values: input.values },
        `Selected ${input.values.map((v) => JSON.stringify(v)).join(", ")} in ${elementName(ref, input.element)}`,
        input.snapshot
      ))
})

export const fillForm = defineTool({
  name: "browser_fill_form",
  title: "Fill a form",
  description: "Fill several fields at once, each by its ref: textboxes get text, checkboxes and radios true or false, " +
    "comboboxes an option, sliders a number.",
  input: Schema.Struct({
    fields: field(
      Schema.Array(Schema.Struct({
        ref: field(Ref, "the field's ref"),
        name: optionalField(Schema.String, "what the field is, in your words"),
        type: Schema.Literal("textbox", "checkbox", "radio", "combobox", "slider"),
        value: Schema.Union(Schema.String, Schema.Boolean, Schema.Number)
      })).pipe(Schema.minItems(1)),
      "the fields to fill"
    ),
    ...afterFields
  }),
  readOnly: false,
  destructive: true,
  run: (input, env) =>
    act(
      env,
      { kind: "fill", fields: input.fields.map(({ ref, type, value }) => ({ ref, type, value })) },
      `Filled ${input.fields.length} field${input.fields.length === 1 ? "" : "s"}: ${
        input.fields.map((f) => elementName(f.ref, f.name)).join(", ")
      }`,
      input.snapshot
    )
})

export const evaluate = defineTool({
  name: "browser_evaluate",
  title: "Evaluate JavaScript",
  description: "Run a JavaScript function in the page and answer its JSON result: `() => document.title`, or with a ref " +
    "`(element) => element.value`. Stopped after 8 s; the tab stays usable.",
  input: Schema.Struct({
    function: field(Schema.String.pipe(Schema.minLength(1)), "the function's source"),
    ...refFields,
    ...filenameField
  }),
  readOnly: false,
  destructive: true,
  run: (input, env) => {
    const ref = input.ref ?? input.target
    return postAct(env, { kind: "evaluate", fn: input.function, ...(ref !== undefined ? { ref } : {}) }).pipe(
      Effect.map((r) => actionText(valueText(r.result), r)),
      Effect.flatMap(answerOrSave(input.filename))
    )
  }
})

export const waitFor = defineTool({
  name: "browser_wait_for",
  title: "Wait",
  description: "Wait for a text to appear or disappear, for a time to pass (seconds), for the URL to match a glob, or for " +
    "an element (ref) to be visible.",
  input: Schema.Struct({
    time: optionalField(Schema.Number.pipe(Schema.between(0, 60)), "seconds to wait"),
    text: optionalField(Schema.String.pipe(Schema.minLength(1)), "wait until this text shows"),
    textGone: optionalField(Schema.String.pipe(Schema.minLength(1)), "wait until this text is gone"),
    url: optionalField(Schema.String.pipe(Schema.minLength(1)), "wait until the URL matches this glob"),
    ref: optionalField(Ref, "wait until this element is visible"),
    target: optionalField(Ref, "the same as ref"),
    timeout: optionalField(Schema.Int.pipe(Schema.between(1, 120_000)), "give up after this many milliseconds (default 5000)")
  }),
  readOnly: true,
  run: (input, env) => {
    const ref = input.ref ?? input.target
    if (input.time === undefined && input.text === undefined && input.textGone === undefined && input.url === undefined && ref === undefined) {
      return Effect.fail(new ToolFailure("invalid arguments for browser_wait_for: give time, text, textGone, url or ref"))
    }
    return act(
      env,
      {
        kind: "wait",
        ...(input.time !== undefined ? { timeMs: Math.round(input.time * 1000) } : {}),
        ...(input.text !== undefined ? { text: input.text } : {}),
        ...(input.textGone !== undefined ? { textGone: input.textGone } : {}),
        ...(input.url !== undefined ? { url: input.url } : {}),
        ...(ref !== undefined ? { ref } : {}),
        ...(input.timeout !== undefined ? { timeoutMs: input.timeout } : {})
      },
      `Waited for ${waitedFor({ ...input, timeMs: input.time !== undefined ? Math.round(input.time * 1000) : undefined, selector: ref })}`
    )
  }
})


export const takeScreenshot = defineTool({
  name: "browser_take_screenshot",
  title: "Screenshot",
  description: "A PNG (or JPEG) of the tab's viewport, of the whole page (fullPage) or of one element (ref). To act on " +
    "the page, browser_snapshot is better.",
  input: Schema.Struct({
    fullPage: optionalField(Schema.Boolean, "the whole scrollable page"),
    ...refFields,
    type: optionalField(
      Schema.Literal("png", "jpeg"),
      "png (default) or jpeg (a smaller file); unset with a filename ending .jpg or .jpeg: jpeg"
    ),
    filename: optionalField(
      Schema.String.pipe(Schema.minLength(1)),
      "save it as this file in svc's downloads root (never over an existing file); else it gets a new name"
    )
  }),
  readOnly: true,
  run: (input, env) =>
    Effect.gen(function*() {
      const ref = input.ref ?? input.target
      const r = yield* env.client.inspect.screenshot({
        urlParams: env.query,
        payload: {
          ...(input.fullPage === true ? { fullPage: true } : {}),
          ...(ref !== undefined ? { ref } : {}),
          ...(input.filename !== undefined ? { filename: input.filename } : {}),
          ...(input.type !== undefined ? { type: input.type } : {})
        }
      })
      const data = yield* env.readFile(r.path)
      const what = ref !== undefined ? elementName(ref, input.element) : input.fullPage === true ? "the whole page" : "the viewport"
      return [
        { type: "text" as const, text: `Screenshot of ${what}, ${r.width}×${r.height}, saved to ${r.path}` },
        { type: "image" as const, data, mimeType: r.type === "jpeg" ? "image/jpeg" : "image/png" }
      ]
    })
})

export const pdfSave = defineTool({
  name: "browser_pdf_save",
  title: "Save as PDF",
  description: "Save the current tab as a PDF; answers its path.",
  input: Schema.Struct({
    filename: optionalField(
      Schema.String.pipe(Schema.minLength(1)),
      "save it as this file in svc's downloads root (never over an existing file); else it gets a new name"
    )
  }),
  readOnly: true,
  run: (input, env) =>
    env.client.inspect.pdf({ urlParams: env.query, payload: input.filename !== undefined ? { filename: input.filename } : {} }).pipe(
      Effect.map((r) => `Saved the page as a PDF: ${r.path} (${r.bytes} bytes)`)
    )
})

export const close = defineTool({
  name: "browser_close",
  title: "Close the page",
  description: "Close the current tab; the tab opened last becomes current.",
  input: Schema.Struct({}),
  readOnly: false,
  destructive: true,
  run: (_, env) =>
    env.client.act.act({ urlParams: env.query, payload: { kind: "close" } as never }).pipe(
      Effect.flatMap((r) => Effect.map(refocusAfterClose(env, r.tabs), (then) => `Closed the tab (${r.url}).${then}`))
    )
})
