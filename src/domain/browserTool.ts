import { Schema } from "effect"
import { NetworkPreset } from "./browserState.js"

// The agent tool named `browser`, as a model sees it: one flat object whose `action` says what to do and
// whose other properties are that action's parameters. Flat on purpose: some model APIs refuse a tool
// whose parameters are a union (`anyOf`), so every property is optional here and the tool checks what an
// action needs, naming the property it misses. Its JSON Schema is derived from this Schema, never written.

// Descriptions sit on the fields, not on their types: the JSON Schema shows them all the same, and a bad
// value is said by its type ("expected a whole number…"), not by the description.
const opt = <A, I>(schema: Schema.Schema<A, I, never>, description: string) =>
  Schema.optionalWith(schema, { exact: true }).annotations({ description })

export const BrowserToolAction = Schema.Literal(
  "status",
  "start",
  "stop",
  "profiles",
  "tabs",
  "open",
  "focus",
  "close",
  "snapshot",
  "screenshot",
  "navigate",
  "act",
  "console",
  "errors",
  "requests",
  "pdf",
  "upload",
  "dialog",
  "download",
  "waitfordownload",
  "cookies",
  "storage",
  "savestate",
  "loadstate",
  "emulate",
  "styles",
  "routes"
)
export type BrowserToolAction = typeof BrowserToolAction.Type

export const BrowserToolActKind = Schema.Literal(
  "click",
  "type",
  "press",
  "hover",
  "drag",
  "drop",
  "select",
  "fill",
  "resize",
  "wait",
  "evaluate",
  "scrollIntoView",
  "scroll",
  "clickAt",
  "moveAt",
  "mouseDown",
  "mouseUp",
  "dragAt",
  "close"
)

/** One field of a form to fill. `value` is text; `true`/`false` for a checkbox or radio. */
export const BrowserToolFillField = Schema.Struct({
  ref: Schema.String,
  type: Schema.Literal("textbox", "checkbox", "radio", "combobox", "slider"),
  value: Schema.String
})

/** One action on the page (`action: "act"`, or an entry of `batch`). */
export const BrowserToolActRequest = Schema.Struct({
  kind: Schema.propertySignature(BrowserToolActKind).annotations({ description: "what to do" }),
  ref: opt(Schema.String, "the element: a ref from the latest snapshot ([ref=…])"),
  text: opt(Schema.String, "type: the text; wait: text to wait for"),
  submit: opt(Schema.Boolean, "type: press Enter after the text"),
  slowly: opt(Schema.Boolean, "type: one key at a time (for pages that react to each key)"),
  key: opt(Schema.String, "press: a key or chord, e.g. Enter, Control+a"),
  double: opt(Schema.Boolean, "click, clickAt: double-click"),
  button: opt(Schema.Literal("left", "right", "middle"), "click, clickAt, mouseDown, mouseUp: the mouse button"),
  modifiers: opt(Schema.Array(Schema.Literal("Alt", "Control", "ControlOrMeta", "Meta", "Shift")), "click: keys held"),
  startRef: opt(Schema.String, "drag: the element to drag"),
  endRef: opt(Schema.String, "drag: where to drop it"),
  values: opt(Schema.Array(Schema.String), "select: the options to choose, by value or label"),
  fields: opt(Schema.Array(BrowserToolFillField), "fill: the fields and their values"),
  width: opt(Schema.Int, "resize: viewport width in CSS pixels"),
  height: opt(Schema.Int, "resize: viewport height in CSS pixels"),
  selector: opt(Schema.String, "wait: a CSS selector to wait for"),
  textGone: opt(Schema.String, "wait: text to wait to disappear"),
  url: opt(Schema.String, "wait: a URL (glob) to wait for"),
  load: opt(Schema.Literal("load", "domcontentloaded", "networkidle"), "wait: a load state"),
  timeMs: opt(Schema.Int, "wait: just wait this long"),
  enabled: opt(Schema.Boolean, "wait: with ref or selector, until it is enabled"),
  fn: opt(Schema.String, "evaluate, wait: a JavaScript function, e.g. () => document.title"),
  dx: opt(Schema.Number, "scroll: pixels right (negative: left)"),
  dy: opt(Schema.Number, "scroll: pixels down (negative: up); over ref's element if given, else the page"),
  paths: opt(Schema.Array(Schema.String), "drop: files in the uploads root"),
  data: opt(Schema.Record({ key: Schema.String, value: Schema.String }), "drop: MIME type to text, e.g. {\"text/plain\": \"hello\"}"),
  x: opt(Schema.Number, "clickAt, moveAt: CSS pixels from the viewport's left edge (as a screenshot shows it)"),
  y: opt(Schema.Number, "clickAt, moveAt: CSS pixels from the viewport's top edge"),
  startX: opt(Schema.Number, "dragAt: where to press, from the left edge"),
  startY: opt(Schema.Number, "dragAt: where to press, from the top edge"),
  endX: opt(Schema.Number, "dragAt: where to release, from the left edge"),
  endY: opt(Schema.Number, "dragAt: where to release, from the top edge"),
  timeoutMs: opt(Schema.Int, "how long the action may take, in milliseconds")
})
export type BrowserToolActRequest = typeof BrowserToolActRequest.Type

export const BrowserToolParams = Schema.Struct({
  action: Schema.propertySignature(BrowserToolAction).annotations({ description: "what to do" }),
  profile: opt(Schema.String, "the browser profile (default: the gateway's default profile)"),
  target: opt(
    Schema.Literal("sandbox", "host", "node"),
    "which browser: sandbox (an isolated one), host (the gateway machine's), node (a connected node's)"
  ),
  node: opt(Schema.String, "target node: the node's id, when several nodes are connected"),
  targetId: opt(Schema.String, "the tab (from tabs or open); default: the current tab"),
  url: opt(Schema.String, "open, navigate: the URL"),
  format: opt(Schema.Literal("ai", "aria", "role"), "snapshot: ai (default, numeric refs), role (e-refs), aria (no refs)"),
  mode: opt(Schema.Literal("efficient"), "snapshot: efficient = interactive elements only, compact and capped"),
  interactive: opt(Schema.Boolean, "snapshot: interactive elements only"),
  compact: opt(Schema.Boolean, "snapshot: drop unnamed structural lines"),
  depth: opt(Schema.Int, "snapshot: at most this deep"),
  selector: opt(Schema.String, "snapshot: only the part under this CSS selector"),
  frame: opt(Schema.String, "snapshot: an iframe's CSS selector"),
  limit: opt(Schema.Int, "snapshot: at most this many characters"),
  diff: opt(Schema.Boolean, "snapshot, act: only what changed since the tab's last snapshot"),
  find: opt(Schema.String, "snapshot: only the lines holding this text (any case), each under its path; the whole page is searched"),
  regex: opt(Schema.Boolean, "snapshot: find is a regular expression (/error/i for flags)"),
  ref: opt(
    Schema.String,
    "snapshot: only this element and what is in it; screenshot: one element; upload: the file input; download: the link; " +
      "styles: the element"
  ),
  properties: opt(Schema.Array(Schema.String), "styles: only these CSS properties (and every rule that sets them)"),
  fullPage: opt(Schema.Boolean, "screenshot: the whole page, not the viewport"),
  request: opt(BrowserToolActRequest, "act: the action"),
  batch: opt(Schema.Array(BrowserToolActRequest), "act: several actions, in order"),
  stopOnError: opt(Schema.Boolean, "act with batch: stop at the first that fails (default true)"),
  snapshotAfter: opt(Schema.Boolean, "act: answer with the tab's snapshot after the action"),
  level: opt(Schema.Literal("debug", "log", "info", "warning", "error"), "console: the lowest level shown"),
  filter: opt(Schema.String, "requests: only URLs containing this, or matching it as a regular expression"),
  clear: opt(Schema.Boolean, "errors, requests, cookies, storage: clear them; routes: remove the pattern's route (every route without one)"),
  paths: opt(Schema.Array(Schema.String), "upload: the files (in the uploads root)"),
  accept: opt(Schema.Boolean, "dialog: accept (true) or dismiss (false) the next dialog"),
  promptText: opt(Schema.String, "dialog: the text for a prompt"),
  filename: opt(
    Schema.String,
    "download, waitfordownload: the file name to save as; screenshot, pdf: save as this file in the downloads root; " +
      "savestate, loadstate: the storage state's file in the states root"
  ),
  timeoutMs: opt(Schema.Int, "waitfordownload: how long to wait, in milliseconds"),
  name: opt(Schema.String, "cookies: the cookie to set; emulate: a device name (none: stop emulating one)"),
  value: opt(Schema.String, "cookies, storage: the value to set"),
  kind: opt(Schema.Literal("local", "session"), "storage: localStorage or sessionStorage"),
  key: opt(Schema.String, "storage: the key to set"),
  offline: opt(Schema.Boolean, "emulate: network offline"),
  media: opt(Schema.Literal("dark", "light", "no-preference", "none"), "emulate: colour scheme"),
  timezone: opt(Schema.String, "emulate: an IANA time zone (none: stop emulating one)"),
  locale: opt(Schema.String, "emulate: a locale, e.g. de-DE (none: stop emulating one)"),
  width: opt(Schema.Int, "emulate: viewport width"),
  height: opt(Schema.Int, "emulate: viewport height"),
  latitude: opt(Schema.Number, "emulate: geolocation latitude"),
  longitude: opt(Schema.Number, "emulate: geolocation longitude"),
  network: opt(NetworkPreset, "emulate: a slower network (a preset; none: full speed)"),
  cpu: opt(Schema.Number, "emulate: how many times slower the CPU runs, 1 to 20 (1: its own speed)"),
  pattern: opt(Schema.String, "routes: the URL glob of requests to answer (* and ** match); with clear: the route to remove"),
  status: opt(Schema.Int, "routes: the HTTP status to answer with (default 200)"),
  body: opt(Schema.String, "routes: the body to answer with"),
  contentType: opt(Schema.String, "routes: the content type of that body"),
  abort: opt(Schema.Boolean, "routes: refuse the requests instead (they fail as a network error)")
}).annotations({
  identifier: "browser",
  description: "Drive a web browser: tabs, snapshots with refs, actions by ref, screenshots, and the page's console, " +
    "errors, requests, cookies and storage. Take a snapshot first; act on its refs."
})
export type BrowserToolParams = typeof BrowserToolParams.Type
