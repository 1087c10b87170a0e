import { Schema } from "effect"
import { Color, HttpUrl, ProfileName } from "../domain/browser.js"

// Keys are optional and, when present, must hold a value (exact: no `undefined` member in error messages).
const opt = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

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
  cdpPort: opt(Port),
  cdpUrl: opt(HttpUrl),
  attachOnly: opt(Schema.Boolean),
  color: opt(Color)
})
export type BrowserProfileConfig = typeof BrowserProfileConfig.Type

export const SnapshotMode = Schema.Literal("ai", "aria", "role", "efficient")

export const GatewayConfig = Schema.Struct({
  port: opt(Port),
  /** Address the gateway port binds; loopback unless the user chooses otherwise. */
  bind: opt(Schema.String.pipe(Schema.minLength(1))),
  auth: opt(
    Schema.Struct({
      token: opt(Secret),
      password: opt(Secret)
    })
  )
})

export const BrowserConfig = Schema.Struct({
  defaultProfile: opt(ProfileName),
  executablePath: opt(Schema.String.pipe(Schema.minLength(1))),
  cdpUrl: opt(HttpUrl),
  profiles: opt(Schema.Record({ key: ProfileName, value: BrowserProfileConfig })),
  color: opt(Color),
  remoteCdpTimeoutMs: opt(Millis),
  remoteCdpHandshakeTimeoutMs: opt(Millis),
  snapshotDefaults: opt(Schema.Struct({ mode: opt(SnapshotMode) })),
  evaluateEnabled: opt(Schema.Boolean),
  headless: opt(Schema.Boolean),
  noSandbox: opt(Schema.Boolean)
})

export const SvcConfig = Schema.Struct({
  $schema: opt(Schema.String),
  gateway: opt(GatewayConfig),
  browser: opt(BrowserConfig)
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
