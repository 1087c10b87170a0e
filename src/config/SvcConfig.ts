import { Schema } from "effect"
import { Color, HttpUrl, ProfileName } from "../domain/browser.js"

// One schema for the whole svc.json. Unknown keys are refused (a typo must not be silently ignored);
// later capabilities extend this schema.

const Port = Schema.Int.pipe(
  Schema.between(1, 65535),
  Schema.annotations({ message: () => "expected a whole number from 1 to 65535" })
)

const Millis = Schema.Int.pipe(
  Schema.between(1, 600_000),
  Schema.annotations({ message: () => "expected milliseconds, a whole number from 1 to 600000" })
)

const Secret = Schema.String.pipe(
  Schema.minLength(8),
  Schema.annotations({ message: () => "expected a string of at least 8 characters" })
)

export const BrowserProfileConfig = Schema.Struct({
  cdpPort: Schema.optional(Port),
  cdpUrl: Schema.optional(HttpUrl),
  attachOnly: Schema.optional(Schema.Boolean),
  color: Schema.optional(Color)
})
export type BrowserProfileConfig = typeof BrowserProfileConfig.Type

export const SnapshotMode = Schema.Literal("ai", "aria", "role", "efficient")

export const GatewayConfig = Schema.Struct({
  port: Schema.optional(Port),
  /** Address the gateway port binds; loopback unless the user chooses otherwise. */
  bind: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
  auth: Schema.optional(
    Schema.Struct({
      token: Schema.optional(Secret),
      password: Schema.optional(Secret)
    })
  )
})

export const BrowserConfig = Schema.Struct({
  defaultProfile: Schema.optional(ProfileName),
  executablePath: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
  cdpUrl: Schema.optional(HttpUrl),
  profiles: Schema.optional(Schema.Record({ key: ProfileName, value: BrowserProfileConfig })),
  color: Schema.optional(Color),
  remoteCdpTimeoutMs: Schema.optional(Millis),
  remoteCdpHandshakeTimeoutMs: Schema.optional(Millis),
  snapshotDefaults: Schema.optional(Schema.Struct({ mode: Schema.optional(SnapshotMode) })),
  evaluateEnabled: Schema.optional(Schema.Boolean),
  headless: Schema.optional(Schema.Boolean),
  noSandbox: Schema.optional(Schema.Boolean)
})

export const SvcConfig = Schema.Struct({
  $schema: Schema.optional(Schema.String),
  gateway: Schema.optional(GatewayConfig),
  browser: Schema.optional(BrowserConfig)
})
export type SvcConfig = typeof SvcConfig.Type

export const decodeSvcConfig = Schema.decodeUnknownEither(SvcConfig, {
  errors: "all",
  onExcessProperty: "error"
})

export const DEFAULT_GATEWAY_PORT = 18789
export const DEFAULT_COLOR = "#FF6A00"
export const MANAGED_PORT_RANGE = { from: 18800, to: 18899 } as const
export const BUILTIN_MANAGED = "svc"
export const BUILTIN_RELAY = "relay"
