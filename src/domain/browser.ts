import { Schema } from "effect"
import { ShownText } from "./shown.js"

// Transport-neutral shapes of the browser control API, shared by the server, the typed client and the CLI.

export const ProfileName = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/),
  Schema.annotations({
    identifier: "ProfileName",
    message: () => "a profile name is 1-64 letters, digits, '-' or '_', starting with a letter or digit"
  })
)

export const TargetId = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9._:-]{1,128}$/),
  Schema.annotations({ identifier: "TargetId", message: () => "a targetId is the id `svc browser tabs` lists" })
)

export const Color = Schema.String.pipe(
  Schema.pattern(/^#[0-9A-Fa-f]{6}$/),
  Schema.annotations({ identifier: "Color", message: () => "a colour is written #RRGGBB, for example #FF6A00" })
)

export const HttpUrl = Schema.String.pipe(
  Schema.filter((s) => {
    try {
      const u = new URL(s)
      return u.protocol === "http:" || u.protocol === "https:" || u.protocol === "ws:" || u.protocol === "wss:"
    } catch {
      return false
    }
  }),
  Schema.annotations({ identifier: "HttpUrl", message: () => "expected an http(s) or ws(s) URL" })
)

/** How a profile reaches its browser. */
export const ProfileDriver = Schema.Literal("managed", "remote", "relay")
export type ProfileDriver = typeof ProfileDriver.Type

/** Query parameters every control route accepts. */
export const ProfileQuery = Schema.Struct({ profile: Schema.optional(ProfileName) })

export const LastExit = Schema.Struct({
  code: Schema.NullOr(Schema.Number),
  signal: Schema.NullOr(Schema.String),
  at: Schema.String,
  stderrTail: Schema.String
})

export const AutomationStatus = Schema.Struct({
  available: Schema.Boolean,
  library: Schema.String,
  reason: Schema.optional(Schema.String)
})

export const BrowserStatus = Schema.Struct({
  profile: Schema.String,
  driver: ProfileDriver,
  running: Schema.Boolean,
  pid: Schema.NullOr(Schema.Number),
  cdpPort: Schema.NullOr(Schema.Number),
  cdpUrl: Schema.NullOr(Schema.String),
  executable: Schema.NullOr(Schema.String),
  headless: Schema.Boolean,
  attachOnly: Schema.Boolean,
  color: Schema.String,
  currentTargetId: Schema.NullOr(Schema.String),
  automation: AutomationStatus,
  lastExit: Schema.NullOr(LastExit)
})
export type BrowserStatus = typeof BrowserStatus.Type

export const StartResult = Schema.Struct({
  status: BrowserStatus,
  launched: Schema.Boolean,
  elapsedMs: Schema.Number
})
export type StartResult = typeof StartResult.Type

export const StopResult = Schema.Struct({ profile: Schema.String, stopped: Schema.Boolean })
export type StopResult = typeof StopResult.Type

export const Tab = Schema.Struct({
  /**
   * The tab's number in its profile: given in the order the gateway saw tabs open (tabs it found on attach
   * in the browser's order) and never reused, so an index from an earlier listing names its tab or none.
   */
  index: Schema.Int,
  targetId: Schema.String,
  title: Schema.String,
  url: ShownText,
  type: Schema.String,
  /** Whether this is the profile's current tab: the one it last opened or focused. */
  current: Schema.Boolean
})
export type Tab = typeof Tab.Type

export const TabList = Schema.Struct({ profile: Schema.String, tabs: Schema.Array(Tab) })
export type TabList = typeof TabList.Type

/** How a dialog an action or navigation opens is answered: see `dialogs` of ActRequest. */
const DialogMode = Schema.Literal("answer", "hold")

export const OpenTabRequest = Schema.Struct({
  url: Schema.String,
  /**
   * As on navigations: "hold" leaves a dialog the new tab's page opens while it loads open for a `dialog`
   * request, and the tab holds those its page opens later, until an action or navigation with "answer".
   */
  dialogs: Schema.optional(DialogMode)
})
export const FocusTabRequest = Schema.Struct({ targetId: TargetId })
export const CloseTabResult = Schema.Struct({ targetId: Schema.String, closed: Schema.Boolean })

/** ai: text with numeric refs; aria: the accessibility tree, no refs; role: lines with e<n> refs. */
export const SnapshotFormat = Schema.Literal("ai", "aria", "role")
export type SnapshotFormat = typeof SnapshotFormat.Type

/** A boolean in a query string: `true`/`false`/`1`/`0`, or present without a value. */
export const QueryFlag = Schema.transform(Schema.Literal("true", "false", "1", "0", ""), Schema.Boolean, {
  strict: true,
  decode: (s) => s === "true" || s === "1" || s === "",
  encode: (b) => (b ? "true" : "false")
})

const QueryInt = (min: number, max: number) =>
  Schema.NumberFromString.pipe(
    Schema.int(),
    Schema.between(min, max),
    Schema.annotations({ message: () => `expected a whole number from ${min} to ${max}` })
  )

export const SnapshotQuery = Schema.Struct({
  profile: Schema.optional(ProfileName),
  targetId: Schema.optional(TargetId),
  format: Schema.optional(SnapshotFormat),
  /** `efficient`: interactive + compact + a 10,000-character cap. */
  mode: Schema.optional(Schema.Literal("efficient")),
  /** aria: at most this many nodes; ai and role: at most this many characters. */
  limit: Schema.optional(QueryInt(1, 10_000_000)),
  interactive: Schema.optional(QueryFlag),
  compact: Schema.optional(QueryFlag),
  depth: Schema.optional(QueryInt(1, 1000)),
  selector: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
  frame: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
  efficient: Schema.optional(QueryFlag),
  labels: Schema.optional(QueryFlag),
  /** ai and role: each element's box in its line, ` [box=x,y,width,height]` in CSS pixels of the viewport. */
  boxes: Schema.optional(QueryFlag),
  /** ai and role: only what changed since this tab's last snapshot (whole when nothing compares, saying why). */
  diff: Schema.optional(QueryFlag),
  /**
   * Only the lines of the whole snapshot that hold this text (case-insensitive), each under its path from the
   * top, with the first lines of its content; `limit` caps what is found (characters, default 20,000).
   */
  find: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
  /** find is a regular expression (`error|warning`, or `/error/i` with flags). */
  regex: Schema.optional(QueryFlag),
  /**
   * Only the element of this ref (from an earlier snapshot) and everything in it, under its path from the top,
   * read from the whole page's snapshot: its refs are the page's own.
   */
  ref: Schema.optional(Schema.String.pipe(Schema.pattern(/^(?:f\d+)?e?\d+$/), Schema.annotations({
    message: () => "a ref from a snapshot, e.g. 12 or e12 (f1e3 inside an iframe)"
  })))
})
export type SnapshotQuery = typeof SnapshotQuery.Type

export const RefInfo = Schema.Struct({
  role: Schema.String,
  name: Schema.String,
  nth: Schema.optional(Schema.Number)
})

export const SnapshotStats = Schema.Struct({
  lines: Schema.Number,
  chars: Schema.Number,
  refs: Schema.Number,
  interactive: Schema.Number
})

export const SnapshotResult = Schema.Struct({
  format: SnapshotFormat,
  targetId: Schema.String,
  url: ShownText,
  title: Schema.String,
  snapshot: Schema.String,
  truncated: Schema.Boolean,
  /** aria: how many nodes the text shows. */
  nodes: Schema.optional(Schema.Number),
  /** ai and role: each ref the text shows, to its role, name and (role refs) nth. */
  refs: Schema.optional(Schema.Record({ key: Schema.String, value: RefInfo })),
  stats: Schema.optional(SnapshotStats),
  /** With labels: a viewport screenshot with each visible ref's label drawn on its element. */
  labelsPath: Schema.optional(Schema.String),
  /** With find: how many lines of the snapshot match, and how many of them `snapshot` shows (`stats`: the whole one). */
  found: Schema.optional(Schema.Struct({ matches: Schema.Number, shown: Schema.Number })),
  /**
   * With diff: what `snapshot` holds. `base` previous: the lines changed since the tab's last snapshot
   * (`refs`: the refs on the lines shown); otherwise the whole snapshot, because there was none (`none`),
   * the page navigated since (`navigated`), it was taken with other options (`otherOptions`) or most lines
   * changed (`mostlyChanged`). The counts are lines, present when the two were compared; `stats` still
   * describe the whole snapshot.
   */
  diff: Schema.optional(
    Schema.Struct({
      base: Schema.Literal("previous", "none", "navigated", "otherOptions", "mostlyChanged"),
      whole: Schema.Boolean,
      added: Schema.optional(Schema.Number),
      removed: Schema.optional(Schema.Number),
      changed: Schema.optional(Schema.Number),
      unchanged: Schema.optional(Schema.Number)
    })
  )
})
export type SnapshotResult = typeof SnapshotResult.Type

export const ScreenshotRequest = Schema.Struct({
  targetId: Schema.optional(TargetId),
  fullPage: Schema.optional(Schema.Boolean),
  /** A snapshot ref: screenshot just that element (needs the automation library). */
  ref: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
  /** Save it as this file in the downloads root (never over an existing one); else under a new name in media. */
  filename: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
  /** png (default) or jpeg (smaller; quality 80); unset with a filename ending .jpg or .jpeg: jpeg. */
  type: Schema.optional(Schema.Literal("png", "jpeg"))
})

export const ScreenshotResult = Schema.Struct({
  path: Schema.String,
  targetId: Schema.String,
  /** The image's type: png or jpeg. */
  type: Schema.optional(Schema.Literal("png", "jpeg")),
  bytes: Schema.Number,
  width: Schema.Number,
  height: Schema.Number
})
export type ScreenshotResult = typeof ScreenshotResult.Type

export const ProfileInfo = Schema.Struct({
  name: Schema.String,
  driver: ProfileDriver,
  builtIn: Schema.Boolean,
  isDefault: Schema.Boolean,
  cdpPort: Schema.NullOr(Schema.Number),
  cdpUrl: Schema.NullOr(Schema.String),
  attachOnly: Schema.Boolean,
  color: Schema.String,
  running: Schema.Boolean
})
export type ProfileInfo = typeof ProfileInfo.Type

export const ProfileList = Schema.Struct({ profiles: Schema.Array(ProfileInfo) })

export const CreateProfileRequest = Schema.Struct({
  name: ProfileName,
  color: Schema.optional(Color),
  cdpUrl: Schema.optional(HttpUrl),
  attachOnly: Schema.optional(Schema.Boolean)
})

export const DeleteProfileResult = Schema.Struct({
  name: Schema.String,
  deleted: Schema.Boolean,
  /** Where the profile's data directory went (the trash), if it had one. */
  trashedTo: Schema.NullOr(Schema.String)
})

// ---- navigate and act (the automation library) ----

/** A ref from a snapshot: numeric (`12`), role (`e3`) or frame-qualified (`f1e2`). */
export const Ref = Schema.String.pipe(
  Schema.minLength(1),
  Schema.maxLength(200),
  Schema.annotations({ identifier: "Ref", message: () => "a ref is what a snapshot shows as [ref=…], e.g. 12 or e3" })
)

/**
 * A JavaScript dialog the action opened, and how it was answered (`svc browser dialog` arms the next answer);
 * "open": held open for a `dialog` request to answer (the action asked for `dialogs: "hold"`).
 */
export const ActionDialog = Schema.Struct({
  type: Schema.Literal("alert", "confirm", "prompt", "beforeunload"),
  message: Schema.String,
  answer: Schema.Literal("accepted", "dismissed", "open"),
  /** Whether an earlier `dialog` request chose the answer (false: the default policy did). */
  armed: Schema.Boolean,
  /** prompt: the text it was accepted with. */
  promptText: Schema.optional(Schema.String)
})
export type ActionDialog = typeof ActionDialog.Type

export const NavigateRequest = Schema.Struct({
  url: Schema.String,
  targetId: Schema.optional(TargetId),
  /** As on actions: "hold" leaves a dialog the page opens while it loads open for a `dialog` request. */
  dialogs: Schema.optional(DialogMode)
})
/** A file an action or a navigation downloaded, saved in the downloads root. */
export const ActionDownload = Schema.Struct({
  /** Where it is (or, while still arriving, will be). */
  path: Schema.optional(Schema.String),
  suggestedFilename: Schema.String,
  url: ShownText,
  bytes: Schema.optional(Schema.Number),
  /** Still arriving when the action answered; it appears at `path` whole once done. */
  inProgress: Schema.optional(Schema.Boolean),
  /** Why it was not saved. */
  error: Schema.optional(Schema.String)
})
export type ActionDownload = typeof ActionDownload.Type

export const NavigateResult = Schema.Struct({
  targetId: Schema.String,
  /** Where the tab is: after a download, the page it was on. */
  url: ShownText,
  title: Schema.String,
  status: Schema.NullOr(Schema.Number),
  /** Dialogs the page opened while it loaded, and how they were answered ("open": held, see the request). */
  dialogs: Schema.optional(Schema.Array(ActionDialog)),
  /** The URL answered with a file: the browser downloaded it (saved in the downloads root), the tab stayed. */
  downloads: Schema.optional(Schema.Array(ActionDownload))
})
export type NavigateResult = typeof NavigateResult.Type

/**
 * The tab `POST /tabs/open` opened. A URL that answers with a file leaves it blank: the browser downloaded
 * the file (`downloads`, saved in the downloads root as an action's are).
 */
export const OpenedTab = Schema.Struct({
  ...Tab.fields,
  downloads: Schema.optional(Schema.Array(ActionDownload))
})
export type OpenedTab = typeof OpenedTab.Type

export const tab = { targetId: Schema.optional(TargetId) }
export const Dimension = Schema.Int.pipe(
  Schema.between(100, 10_000),
  Schema.annotations({ message: () => "expected a whole number of CSS pixels from 100 to 10000" })
)

export const FillField = Schema.Struct({
  ref: Ref,
  type: Schema.Literal("textbox", "checkbox", "radio", "combobox", "slider"),
  value: Schema.Union(Schema.String, Schema.Boolean, Schema.Number)
})

/**
 * How long an action may take, in milliseconds: an action on a ref waits up to this for its element to be
 * visible, enabled, still and not covered (default 5000); evaluate stops the script after it (default 8000).
 */
const ActTimeout = Schema.Int.pipe(
  Schema.between(1, 120_000),
  Schema.annotations({ message: () => "timeoutMs: expected whole milliseconds from 1 to 120000" })
)

/** One kind of action: `{ kind, targetId?, timeoutMs?, ...fields }`. */
const act = <K extends string, F extends Schema.Struct.Fields>(kind: K, fields: F) =>
  Schema.Struct({
    kind: Schema.Literal(kind),
    ...tab,
    timeoutMs: Schema.optional(ActTimeout),
    /** Answer with the tab's snapshot after the action too (one call instead of two). */
    snapshot: Schema.optional(Schema.Boolean),
    /** Answer with what changed in the tab's snapshot since its last one (implies snapshot). */
    diff: Schema.optional(Schema.Boolean),
    /**
     * A dialog the action opens that nothing armed: "answer" (default) answers it at once by the default
     * policy; "hold" leaves it open, and the answer says so, until a `dialog` request answers it (the way of
     * Playwright MCP). While it is open, requests that need the page are refused. After "hold" the tab also
     * holds the dialogs its page opens by itself (from a timer), until an action or navigation with "answer".
     */
    dialogs: Schema.optional(DialogMode),
    ...fields
  })

/** A scroll's result: where the scrolled part is, in CSS pixels, and the furthest it goes (0: it does not scroll that way). */
export interface ScrollPosition {
  readonly x: number
  readonly y: number
  readonly maxX: number
  readonly maxY: number
  /** Whether the wheel moved it at all. */
  readonly moved: boolean
  /** `page`, or the element that scrolled (its tag, and its id or first class). */
  readonly scroller: string
}

export const ActRequest = Schema.Union(
  act("click", {
    ref: Ref,
    double: Schema.optional(Schema.Boolean),
    button: Schema.optional(Schema.Literal("left", "right", "middle")),
    modifiers: Schema.optional(Schema.Array(Schema.Literal("Alt", "Control", "ControlOrMeta", "Meta", "Shift")))
  }),
  act("type", {
    ref: Ref,
    text: Schema.String,
    submit: Schema.optional(Schema.Boolean),
    slowly: Schema.optional(Schema.Boolean)
  }),
  /** Text into the element that has focus, at its caret (no ref: a text such as "12" is never taken for one). */
  act("typeFocused", {
    text: Schema.String,
    submit: Schema.optional(Schema.Boolean),
    slowly: Schema.optional(Schema.Boolean)
  }),
  act("press", { key: Schema.String.pipe(Schema.minLength(1)) }),
  /** A click at a point of the viewport, in CSS pixels from its top left corner. */
  act("clickAt", {
    x: Schema.Number,
    y: Schema.Number,
    double: Schema.optional(Schema.Boolean),
    button: Schema.optional(Schema.Literal("left", "right", "middle"))
  }),
  /** The pointer moved to a point of the viewport (CSS pixels from its top left corner); buttons held stay held. */
  act("moveAt", { x: Schema.Number, y: Schema.Number }),
  /** A mouse button pressed, or released, where the pointer is: a drag step by step is moveAt, mouseDown, moveAt, mouseUp. */
  act("mouseDown", { button: Schema.optional(Schema.Literal("left", "right", "middle")) }),
  act("mouseUp", { button: Schema.optional(Schema.Literal("left", "right", "middle")) }),
  /** A drag with the left button from one point of the viewport to another. */
  act("dragAt", { startX: Schema.Number, startY: Schema.Number, endX: Schema.Number, endY: Schema.Number }),
  act("back", {}),
  act("forward", {}),
  act("reload", {}),
  /** The element's visible text. */
  act("text", { ref: Ref }),
  /** A control's value: its text, checked state (checkbox, radio) or selected options (select). */
  act("value", { ref: Ref }),
  act("hover", { ref: Ref }),
  act("scrollIntoView", { ref: Ref }),
  /**
   * The mouse wheel turned over the element (or the viewport's middle): dy CSS pixels down (negative: up), dx
   * right (negative: left). The result is where the scrolled part now is: {x, y, maxX, maxY, moved, scroller}.
   */
  act("scroll", {
    dx: Schema.optional(Schema.Number.pipe(Schema.finite())),
    dy: Schema.optional(Schema.Number.pipe(Schema.finite())),
    ref: Schema.optional(Ref)
  }),
  act("drag", { startRef: Ref, endRef: Ref }),
  /** Files (paths in the uploads root) or data (MIME type → text) dropped onto the element from outside the page. */
  act("drop", {
    ref: Ref,
    paths: Schema.optional(Schema.Array(Schema.String.pipe(Schema.minLength(1)))),
    data: Schema.optional(Schema.Record({ key: Schema.String.pipe(Schema.minLength(1)), value: Schema.String }))
  }),
  act("select", { ref: Ref, values: Schema.Array(Schema.String).pipe(Schema.minItems(1)) }),
  act("fill", { fields: Schema.Array(FillField).pipe(Schema.minItems(1)) }),
  act("resize", { width: Dimension, height: Dimension }),
  act("wait", {
    /** A CSS selector; one shaped like a ref (`12`, `e3`, `f1e2`) is taken as a ref. */
    selector: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
    ref: Schema.optional(Ref),
    /** With a selector or ref: wait until the element is enabled, not only visible. */
    enabled: Schema.optional(Schema.Boolean),
    text: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
    textGone: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
    url: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
    load: Schema.optional(Schema.Literal("load", "domcontentloaded", "networkidle")),
    fn: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
    timeMs: Schema.optional(Schema.Int.pipe(Schema.between(0, 60_000)))
  }),
  act("evaluate", { fn: Schema.String.pipe(Schema.minLength(1)), ref: Schema.optional(Ref) }),
  act("close", {})
).pipe(Schema.annotations({ identifier: "ActRequest" }))
export type ActRequest = typeof ActRequest.Type


/** A tab the action opened (a `target=_blank` link, `window.open`). */
export const ActionNewTab = Schema.Struct({
  targetId: Schema.String,
  /** Its index in `svc browser tabs` (stable: `tab select <index>`). */
  index: Schema.Number,
  url: ShownText
})
export type ActionNewTab = typeof ActionNewTab.Type

/** A file chooser the action opened, held for the upload that follows (`svc browser upload <path>`). */
export const ActionFileChooser = Schema.Struct({
  /** Whether it takes several files (its input has `multiple`). */
  multiple: Schema.Boolean
})
export type ActionFileChooser = typeof ActionFileChooser.Type

/** Where the tab went because of the action. */
export const ActionNavigation = Schema.Struct({
  url: ShownText,
  title: Schema.String,
  /** A move within the document (history.pushState, #anchor): no new document, refs still hold. */
  sameDocument: Schema.optional(Schema.Boolean)
})
export type ActionNavigation = typeof ActionNavigation.Type

export const ActResult = Schema.Struct({
  kind: Schema.String,
  targetId: Schema.String,
  url: ShownText,
  /** back, forward, reload: the page's title now, and the HTTP status of its load (absent for a same-page move). */
  title: Schema.optional(Schema.String),
  status: Schema.optional(Schema.Number),
  /** evaluate: the function's JSON result; text: the text; value: a string, a boolean or [{value, label}]; scroll: {x, y, maxX, maxY, moved, scroller}. */
  result: Schema.optional(Schema.Unknown),
  /** What happened because of the action (each present only when it happened). */
  dialogs: Schema.optional(Schema.Array(ActionDialog)),
  newTabs: Schema.optional(Schema.Array(ActionNewTab)),
  downloads: Schema.optional(Schema.Array(ActionDownload)),
  fileChooser: Schema.optional(ActionFileChooser),
  navigation: Schema.optional(ActionNavigation),
  /** close: the tabs left open in the profile, as `tabs` lists them (a closed current tab leaves none current). */
  tabs: Schema.optional(Schema.Array(Tab)),
  /** With `snapshot: true` (or `diff: true`): the tab's snapshot after the action. */
  snapshot: Schema.optional(SnapshotResult),
  /** Why that snapshot is missing (the action itself was done). */
  snapshotError: Schema.optional(Schema.String)
})
export type ActResult = typeof ActResult.Type

export const HighlightRequest = Schema.Struct({ ...tab, ref: Ref })
export const HighlightResult = Schema.Struct({ targetId: Schema.String, ref: Schema.String, description: Schema.String })

export const PdfRequest = Schema.Struct({
  ...tab,
  /** Save it as this file in the downloads root (never over an existing one); else under a new name in media. */
  filename: Schema.optional(Schema.String.pipe(Schema.minLength(1)))
})
export const PdfResult = Schema.Struct({ path: Schema.String, targetId: Schema.String, bytes: Schema.Number })
