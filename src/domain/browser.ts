import { Schema } from "effect"

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
  targetId: Schema.String,
  title: Schema.String,
  url: Schema.String,
  type: Schema.String,
  /** Whether this is the profile's current tab: the one it last opened or focused. */
  current: Schema.Boolean
})
export type Tab = typeof Tab.Type

export const TabList = Schema.Struct({ profile: Schema.String, tabs: Schema.Array(Tab) })
export type TabList = typeof TabList.Type

export const OpenTabRequest = Schema.Struct({ url: Schema.String })
export const FocusTabRequest = Schema.Struct({ targetId: TargetId })
export const CloseTabResult = Schema.Struct({ targetId: Schema.String, closed: Schema.Boolean })

export const SnapshotFormat = Schema.Literal("aria")
export type SnapshotFormat = typeof SnapshotFormat.Type

export const SnapshotQuery = Schema.Struct({
  profile: Schema.optional(ProfileName),
  targetId: Schema.optional(TargetId),
  format: Schema.optional(SnapshotFormat),
  limit: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 100_000)))
})

export const SnapshotResult = Schema.Struct({
  format: SnapshotFormat,
  targetId: Schema.String,
  url: Schema.String,
  title: Schema.String,
  snapshot: Schema.String,
  nodes: Schema.Number,
  truncated: Schema.Boolean
})
export type SnapshotResult = typeof SnapshotResult.Type

export const ScreenshotRequest = Schema.Struct({
  targetId: Schema.optional(TargetId),
  fullPage: Schema.optional(Schema.Boolean)
})

export const ScreenshotResult = Schema.Struct({
  path: Schema.String,
  targetId: Schema.String,
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
