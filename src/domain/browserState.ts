import { Schema } from "effect"
import { ShownText } from "./shown.js"
import { Dimension, ProfileName, QueryFlag, Ref, tab, TargetId } from "./browser.js"

// Transport-neutral shapes of the browser control API's inspection, files and browser state (console,
// errors, requests, traces, dialogs, downloads, uploads, cookies, storage, emulation).

const TabQuery = { profile: Schema.optional(ProfileName), targetId: Schema.optional(TargetId) }
export const TabQueryParams = Schema.Struct(TabQuery)

export const ConsoleQuery = Schema.Struct({
  ...TabQuery,
  level: Schema.optional(Schema.Literal("debug", "log", "info", "warning", "error"))
})
export const ErrorsQuery = Schema.Struct({ ...TabQuery, clear: Schema.optional(QueryFlag) })
export const RequestsQuery = Schema.Struct({
  ...TabQuery,
  /** A substring of the URL or method (any case), or a regular expression of the URL (`api/.*user`, `/re/i`). */
  filter: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
  /** false: leave out static resources (images, fonts, stylesheets, scripts, media) that loaded fine. Default true. */
  static: Schema.optional(QueryFlag),
  clear: Schema.optional(QueryFlag)
})

export const ConsoleEntry = Schema.Struct({
  /** The order the tab's console messages and page errors came in (one sequence for both). */
  seq: Schema.Number,
  /** The console method (log, warn, error, debug, info, ...). */
  type: Schema.String,
  level: Schema.Literal("debug", "info", "warning", "error"),
  text: Schema.String,
  location: Schema.NullOr(Schema.Struct({ url: ShownText, line: Schema.Number, column: Schema.Number })),
  timestamp: Schema.String
})
export const PageErrorEntry = Schema.Struct({
  /** The order the tab's console messages and page errors came in (one sequence for both). */
  seq: Schema.Number,
  name: Schema.String,
  message: Schema.String,
  stack: Schema.NullOr(Schema.String),
  timestamp: Schema.String
})
export const RequestEntry = Schema.Struct({
  seq: Schema.Number,
  method: Schema.String,
  url: ShownText,
  resourceType: Schema.String,
  state: Schema.Literal("pending", "finished", "failed"),
  status: Schema.NullOr(Schema.Number),
  failure: Schema.NullOr(Schema.String),
  durationMs: Schema.NullOr(Schema.Number),
  timestamp: Schema.String
})
export const RequestQuery = Schema.Struct({
  ...TabQuery,
  /** The request's seq, as GET /requests lists it. */
  seq: Schema.NumberFromString.pipe(
    Schema.int(),
    Schema.between(1, Number.MAX_SAFE_INTEGER),
    Schema.annotations({ message: () => "seq: expected a request's seq from GET /requests (a whole number from 1)" })
  )
})
/** One request in full: its entry, its headers both ways (null before a response) and the data it posted. */
export const RequestDetail = Schema.Struct({
  targetId: Schema.String,
  ...RequestEntry.fields,
  requestHeaders: Schema.Record({ key: Schema.String, value: Schema.String }),
  responseHeaders: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.String })),
  postData: Schema.NullOr(Schema.String)
})
export const DialogEntry = Schema.Struct({
  seq: Schema.Number,
  type: Schema.Literal("alert", "confirm", "prompt", "beforeunload"),
  message: Schema.String,
  defaultValue: Schema.NullOr(Schema.String),
  answer: Schema.Literal("accepted", "dismissed", "open"),
  promptText: Schema.NullOr(Schema.String),
  armed: Schema.Boolean,
  url: ShownText,
  error: Schema.NullOr(Schema.String),
  timestamp: Schema.String
})

export const ConsoleResult = Schema.Struct({ targetId: Schema.String, entries: Schema.Array(ConsoleEntry) })
export const ErrorsResult = Schema.Struct({
  targetId: Schema.String,
  entries: Schema.Array(PageErrorEntry),
  /** Dialogs nobody armed: dismissed so the tab keeps working, and recorded here. */
  dialogs: Schema.Array(DialogEntry)
})
export const RequestsResult = Schema.Struct({ targetId: Schema.String, entries: Schema.Array(RequestEntry) })

/** The response to read: the latest from a URL (a glob), or one request of the log by its #n (`seq`). */
export const ResponseBodyRequest = Schema.Struct({
  ...tab,
  url: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
  seq: Schema.optional(Schema.Int.pipe(Schema.between(1, Number.MAX_SAFE_INTEGER))),
  maxChars: Schema.optional(Schema.Int.pipe(Schema.between(1, 10_000_000))),
  timeoutMs: Schema.optional(Schema.Int.pipe(Schema.between(1, 120_000)))
})
export const ResponseBodyResult = Schema.Struct({
  targetId: Schema.String,
  url: ShownText,
  status: Schema.Number,
  contentType: Schema.NullOr(Schema.String),
  encoding: Schema.Literal("utf8", "base64"),
  body: Schema.String,
  truncated: Schema.Boolean,
  bytes: Schema.Number
})

export const TraceStartRequest = Schema.Struct({
  ...tab,
  screenshots: Schema.optional(Schema.Boolean),
  snapshots: Schema.optional(Schema.Boolean)
})
export const TraceStartResult = Schema.Struct({ targetId: Schema.String, started: Schema.Boolean })
export const TraceStopRequest = Schema.Struct({ ...tab })
export const TraceStopResult = Schema.Struct({ targetId: Schema.String, path: Schema.String, bytes: Schema.Number })

export const DialogHookRequest = Schema.Struct({
  ...tab,
  accept: Schema.Boolean,
  promptText: Schema.optional(Schema.String)
})
export const HookResult = Schema.Struct({ targetId: Schema.String, armed: Schema.Boolean, detail: Schema.String })

export const DownloadRequest = Schema.Struct({ ...tab, ref: Ref, filename: Schema.String })
export const WaitDownloadRequest = Schema.Struct({
  ...tab,
  filename: Schema.String,
  timeoutMs: Schema.optional(Schema.Int.pipe(Schema.between(1, 300_000)))
})
export const DownloadResult = Schema.Struct({
  targetId: Schema.String,
  path: Schema.String,
  suggestedFilename: Schema.String,
  bytes: Schema.Number,
  url: ShownText
})

export const FileChooserRequest = Schema.Struct({
  ...tab,
  paths: Schema.Array(Schema.String).pipe(Schema.minItems(1)),
  /** Set this file input directly instead of arming the next chooser. */
  inputRef: Schema.optional(Ref),
  element: Schema.optional(Schema.String.pipe(Schema.minLength(1)))
})

export const Cookie = Schema.Struct({
  name: Schema.String,
  value: Schema.String,
  domain: Schema.String,
  path: Schema.String,
  expires: Schema.Number,
  httpOnly: Schema.Boolean,
  secure: Schema.Boolean,
  sameSite: Schema.String
})
export const CookiesResult = Schema.Struct({ targetId: Schema.String, cookies: Schema.Array(Cookie) })
export const SetCookieRequest = Schema.Struct({
  ...tab,
  name: Schema.String.pipe(Schema.minLength(1)),
  value: Schema.String,
  url: Schema.String
})
/**
 * A storage state as a file holds it (Playwright's format, so files from its tools load too): the profile's
 * cookies, and each origin's local storage.
 */
export const StorageStateFile = Schema.Struct({
  cookies: Schema.Array(Schema.Struct({
    ...Cookie.fields,
    sameSite: Schema.String.pipe(
      Schema.filter((s): s is "Strict" | "Lax" | "None" => s === "Strict" || s === "Lax" || s === "None", {
        message: () => `sameSite is Strict, Lax or None`
      })
    )
  })),
  origins: Schema.Array(Schema.Struct({
    origin: Schema.String,
    localStorage: Schema.Array(Schema.Struct({ name: Schema.String, value: Schema.String }))
  }))
})
export type StorageStateFile = typeof StorageStateFile.Type

export const SaveStorageStateRequest = Schema.Struct({
  ...tab,
  /** The file's name in the states root (sub-folders allowed); never over an existing file. */
  filename: Schema.optional(Schema.String.pipe(Schema.minLength(1)))
})
export const LoadStorageStateRequest = Schema.Struct({
  ...tab,
  /** A file in the states root, as `save` named it. */
  filename: Schema.String.pipe(Schema.minLength(1))
})
export const StorageStateResult = Schema.Struct({
  targetId: Schema.String,
  path: Schema.String,
  /** How many cookies, and how many origins' local storage, the file holds. */
  cookies: Schema.Number,
  origins: Schema.Number
})

export const TabRequest = Schema.Struct({ ...tab })
export const DoneResult = Schema.Struct({ targetId: Schema.String, done: Schema.String })

export const StorageKind = Schema.Literal("local", "session").pipe(
  Schema.annotations({ message: () => "storage kind is local or session" })
)
export const StorageResult = Schema.Struct({
  targetId: Schema.String,
  kind: StorageKind,
  entries: Schema.Record({ key: Schema.String, value: Schema.String })
})
export const SetStorageRequest = Schema.Struct({ ...tab, key: Schema.String.pipe(Schema.minLength(1)), value: Schema.String })

export const OfflineRequest = Schema.Struct({ ...tab, offline: Schema.Boolean })
export const HeadersRequest = Schema.Struct({ ...tab, headers: Schema.Record({ key: Schema.String, value: Schema.String }) })
export const CredentialsRequest = Schema.Struct({
  ...tab,
  user: Schema.optional(Schema.String),
  pass: Schema.optional(Schema.String),
  /** Only this origin gets them; any origin that asks when absent. */
  origin: Schema.optional(Schema.String),
  clear: Schema.optional(Schema.Boolean)
})
export const GeolocationRequest = Schema.Struct({
  ...tab,
  latitude: Schema.optional(Schema.Number.pipe(Schema.between(-90, 90))),
  longitude: Schema.optional(Schema.Number.pipe(Schema.between(-180, 180))),
  accuracy: Schema.optional(Schema.Number.pipe(Schema.nonNegative())),
  origin: Schema.optional(Schema.String),
  clear: Schema.optional(Schema.Boolean)
})
/**
 * CSS media features pages see, each until changed ("none": stop emulating it): `media` is the colour scheme
 * (prefers-color-scheme); `type` the media type (print shows the page as printed). At least one.
 */
export const MediaRequest = Schema.Struct({
  ...tab,
  media: Schema.optional(Schema.Literal("dark", "light", "no-preference", "none")),
  reducedMotion: Schema.optional(Schema.Literal("reduce", "no-preference", "none")),
  forcedColors: Schema.optional(Schema.Literal("active", "none")),
  contrast: Schema.optional(Schema.Literal("more", "no-preference", "none")),
  type: Schema.optional(Schema.Literal("screen", "print", "none"))
})
export type MediaRequest = typeof MediaRequest.Type
/** Network presets, after the browser's developer tools' own. */
export const NetworkPreset = Schema.Literal("slow-3g", "fast-3g", "slow-4g", "fast-4g", "none")
export type NetworkPreset = typeof NetworkPreset.Type
/**
 * A slower network and CPU for the tab, each until changed: `network` a preset ("none": the full speed
 * again); `latencyMs`, `downloadKbps`, `uploadKbps` set those parts (over the preset, if one is given);
 * `cpu` how many times slower the CPU is (1: its own speed). At least one.
 */
export const ThrottleRequest = Schema.Struct({
  ...tab,
  network: Schema.optional(NetworkPreset),
  latencyMs: Schema.optional(Schema.Number.pipe(Schema.between(0, 60_000))),
  downloadKbps: Schema.optional(Schema.Number.pipe(Schema.positive(), Schema.lessThanOrEqualTo(10_000_000))),
  uploadKbps: Schema.optional(Schema.Number.pipe(Schema.positive(), Schema.lessThanOrEqualTo(10_000_000))),
  cpu: Schema.optional(Schema.Number.pipe(Schema.between(1, 20)))
})
export type ThrottleRequest = typeof ThrottleRequest.Type
export const TimezoneRequest = Schema.Struct({ ...tab, timezone: Schema.String.pipe(Schema.minLength(1)) })
export const LocaleRequest = Schema.Struct({ ...tab, locale: Schema.String.pipe(Schema.minLength(1)) })
export const DeviceRequest = Schema.Struct({ ...tab, name: Schema.String.pipe(Schema.minLength(1)) })
export const ViewportRequest = Schema.Struct({ ...tab, width: Dimension, height: Dimension })
