import { Either, Schema } from "effect"
import { Color, HttpUrl, ProfileName } from "../domain/browser.js"
import { parseHostPatternText } from "../platform/url.js"

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
  /** Proxies (IP addresses) whose X-Forwarded-For / Forwarded client address is believed. */
  trustedProxies: opt(Schema.Array(Schema.String)),
  /** Address the gateway port binds; loopback unless the user chooses otherwise. */
  bind: opt(Schema.String.pipe(Schema.minLength(1))),
  auth: opt(
    Schema.Struct({
      token: opt(Secret),
      password: opt(Secret)
    })
  ),
  /** auto: a `browser` call without a target goes to the one connected browser node, if there is one; off: never to a node. */
  nodes: opt(Schema.Struct({ browser: opt(Schema.Struct({ mode: opt(Schema.Literal("auto", "off")) })) }))
})

/** A host pattern of browser.allowedDomains / blockedDomains (see platform/url.ts for the shape). */
const HostPatternString = Schema.String.pipe(
  Schema.filter((s) => Either.match(parseHostPatternText(s), { onLeft: (why) => why, onRight: () => true }))
)

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
  /** How long a dialog held open for its answer (svc mcp's actions hold them) waits before the default answer. */
  dialogHoldMs: opt(Millis),
  headless: opt(Schema.Boolean),
  noSandbox: opt(Schema.Boolean),
  /** When set and not empty, the browser goes only to hosts one of these patterns matches. */
  allowedDomains: opt(Schema.Array(HostPatternString)),
  /** The browser never goes to a host one of these patterns matches. */
  blockedDomains: opt(Schema.Array(HostPatternString)),
  /** Whether the browser may open file: URLs (this machine's files). Off unless true. */
  allowFileUrls: opt(Schema.Boolean)
})

// ---- messaging bridge (channels.msgbridge) ----

export const DmPolicy = Schema.Literal("pairing", "allowlist", "open", "disabled")
export const GroupPolicy = Schema.Literal("open", "allowlist", "disabled")

const AbsoluteDir = Schema.String.pipe(
  Schema.filter((s) => s.startsWith("/") || /^[A-Za-z]:[\\/]/.test(s)),
  Schema.annotations({ message: () => "expected an absolute directory path" })
)

const PositiveInt = (max: number) =>
  Schema.Int.pipe(
    Schema.between(0, max),
    Schema.annotations({ message: () => `expected a whole number from 0 to ${max}` })
  )

/** The settings of one bridge account; the channel's top level holds the default account's. */
export /** The bridge server: an http(s) URL, or a bare host[:port] (http is meant). */
const BridgeServerUrl = Schema.String.pipe(
  Schema.filter((raw) => {
    const s = raw.trim()
    const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(s)?.[1]?.toLowerCase()
    if (scheme !== undefined && scheme !== "http" && scheme !== "https") return false
    try {
      const u = new URL(scheme === undefined ? `http://${s}` : s)
      return u.hostname !== ""
    } catch {
      return false
    }
  }),
  Schema.annotations({ message: () => "expected the bridge server's http(s) URL, e.g. http://mac.local:1234" })
)

const MsgbridgeAccountFields = {
  enabled: opt(Schema.Boolean),
  serverUrl: opt(BridgeServerUrl),
  password: opt(Schema.String.pipe(Schema.minLength(1))),
  webhookPath: opt(
    Schema.String.pipe(
      Schema.pattern(/^\/[A-Za-z0-9/_-]*$/),
      Schema.annotations({ message: () => "a webhook path starts with / and holds letters, digits, -, _ and /" })
    )
  ),
  dmPolicy: opt(DmPolicy),
  allowFrom: opt(Schema.Array(Schema.String)),
  groupPolicy: opt(GroupPolicy),
  groupAllowFrom: opt(Schema.Array(Schema.String)),
  groups: opt(Schema.Record({ key: Schema.String, value: Schema.Struct({ requireMention: opt(Schema.Boolean) }) })),
  sendReadReceipts: opt(Schema.Boolean),
  blockStreaming: opt(Schema.Boolean),
  textChunkLimit: opt(Schema.Int.pipe(Schema.between(1, 100_000), Schema.annotations({ message: () => "expected a whole number from 1 to 100000" }))),
  chunkMode: opt(Schema.Literal("length", "newline")),
  mediaMaxMb: opt(Schema.Number.pipe(Schema.between(0.001, 1024), Schema.annotations({ message: () => "expected megabytes, from 0.001 to 1024" }))),
  mediaLocalRoots: opt(Schema.Array(AbsoluteDir)),
  historyLimit: opt(PositiveInt(1000)),
  dmHistoryLimit: opt(PositiveInt(1000)),
  /** While running, ask the bridge for messages since the cursor this often (webhooks it failed to deliver). */
  sweepIntervalSec: opt(
    Schema.Int.pipe(Schema.between(5, 86_400), Schema.annotations({ message: () => "expected whole seconds from 5 to 86400" }))
  ),
  actions: opt(Schema.Record({ key: Schema.String, value: Schema.Boolean }))
}

export const MsgbridgeAccountConfig = Schema.Struct(MsgbridgeAccountFields)
export type MsgbridgeAccountConfig = typeof MsgbridgeAccountConfig.Type

export const MsgbridgeConfig = Schema.Struct({
  ...MsgbridgeAccountFields,
  accounts: opt(Schema.Record({ key: Schema.String, value: MsgbridgeAccountConfig }))
})
export type MsgbridgeConfig = typeof MsgbridgeConfig.Type

/** The agent that answers messages: echo (replies `echo: <text>`) or a language model. */
export const AgentConfig = Schema.Struct({
  provider: opt(Schema.Literal("echo", "anthropic", "openai")),
  /** The provider's model name (defaults in agent/model/settings.ts). */
  model: opt(Schema.NonEmptyTrimmedString),
  /** Prefer the env: ANTHROPIC_API_KEY / OPENAI_API_KEY. Never printed by `svc config get`. */
  apiKey: opt(Schema.NonEmptyTrimmedString),
  /** A proxy or a compatible server instead of the provider's own API. */
  apiUrl: opt(HttpUrl),
  /** Replaces the built-in instructions (the channel's rules, the time and the chat are still added). */
  systemPrompt: opt(Schema.String),
  /** Tool rounds per message (default 12). */
  maxSteps: opt(Schema.Int.pipe(Schema.between(1, 100), Schema.annotations({ message: () => "expected a whole number from 1 to 100" }))),
  /** Time for one message, tool rounds and retries included (default 120000). */
  timeoutMs: opt(Schema.Int.pipe(Schema.between(1_000, 3_600_000), Schema.annotations({ message: () => "expected milliseconds, a whole number from 1000 to 3600000" }))),
  maxOutputTokens: opt(Schema.Int.pipe(Schema.between(1, 200_000), Schema.annotations({ message: () => "expected a whole number from 1 to 200000" }))),
  /** The agent drives only the sandbox browser (default false: the host's). */
  sandboxed: opt(Schema.Boolean),
  /** What is kept of each chat's conversation (default 40 turns, 60000 characters). */
  conversation: opt(Schema.Struct({
    maxTurns: opt(Schema.Int.pipe(Schema.between(1, 1000), Schema.annotations({ message: () => "expected a whole number from 1 to 1000" }))),
    maxChars: opt(Schema.Int.pipe(Schema.between(1_000, 2_000_000), Schema.annotations({ message: () => "expected a whole number from 1000 to 2000000" })))
  }))
})
export type AgentConfig = typeof AgentConfig.Type

const GroupChatConfig = Schema.Struct({ mentionPatterns: opt(Schema.Array(Schema.String)) })

export const SvcConfig = Schema.Struct({
  $schema: opt(Schema.String),
  gateway: opt(GatewayConfig),
  browser: opt(BrowserConfig),
  channels: opt(Schema.Struct({ msgbridge: opt(MsgbridgeConfig) })),
  agent: opt(AgentConfig),
  agents: opt(Schema.Struct({
    list: opt(Schema.Array(Schema.Struct({ id: opt(Schema.String), groupChat: opt(GroupChatConfig) }))),
    defaults: opt(Schema.Struct({
      sandbox: opt(Schema.Struct({
        /** A sandboxed session may drive the host's browsers (and nodes') too, not only the sandbox browser. */
        browser: opt(Schema.Struct({ allowHostControl: opt(Schema.Boolean) }))
      }))
    }))
  })),
  messages: opt(Schema.Struct({ groupChat: opt(GroupChatConfig), responsePrefix: opt(Schema.String) })),
  /** `svc node run` on this machine: browserProxy.enabled false announces no browser and refuses the gateway's browser requests. */
  nodeHost: opt(Schema.Struct({ browserProxy: opt(Schema.Struct({ enabled: opt(Schema.Boolean) })) }))
})
export type SvcConfig = typeof SvcConfig.Type

export const decodeSvcConfig = Schema.decodeUnknownEither(SvcConfig, {
  errors: "all",
  onExcessProperty: "error"
})

export const DEFAULT_GATEWAY_PORT = 18789
export const DEFAULT_COLOR = "#FF6A00"
export const BUILTIN_MANAGED = "svc"
export const BUILTIN_RELAY = "relay"
/** The sandbox browser of sandboxed agent sessions: managed, with a user-data dir of its own. */
export const BUILTIN_SANDBOX = "sandbox"

/** The profile a request without one uses: browser.defaultProfile, else the extension relay. */
export const defaultProfileName = (config: SvcConfig): string => config.browser?.defaultProfile ?? BUILTIN_RELAY
