import { Terminal } from "@effect/platform"
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Layer, Mailbox, Option } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect } from "vitest"
import { PromptInput } from "../../../src/cli/commands/onboard.js"
import {
  checkAllowFrom,
  checkPassword,
  checkServerUrl,
  checkWebhookPath,
  parseAllowFrom
} from "../../../src/msgbridge/setup/Onboarding.js"
import { webhookTarget } from "../../../src/msgbridge/setup/WebhookTarget.js"
import { GatewayRunner } from "../../../src/gateway/GatewayRunner.js"
import { runCli } from "../../../src/cli/main.js"
import { fakeBridge } from "../../support/fakeBridge.js"
import { makeMockConsole } from "../../support/mockConsole.js"

// `svc onboard`: the answer checks, the webhook URL, and the interactive questions driven by a Terminal
// that types keystrokes, through the real command tree (runCli) into a temp state dir.

describe("onboard answer checks", () => {
  it("server URL: normalised like the bridge client, never echoing the input", () => {
    expect(checkServerUrl("mac.local:1234/")).toEqual(Either.right("http://mac.local:1234"))
    expect(checkServerUrl(" https://bridge.example.com ")).toEqual(Either.right("https://bridge.example.com"))
    expect(checkServerUrl("")).toEqual(Either.left(expect.stringContaining("required")))
    expect(checkServerUrl("ftp://mac.local")).toEqual(Either.left(expect.stringContaining("http:// or https://")))
    const withSecret = checkServerUrl("http://mac.local:1234/?password=hunter2secret")
    expect(Either.isLeft(withSecret) && withSecret.left).toMatch(/no user, \?query/)
    expect(JSON.stringify(withSecret)).not.toContain("hunter2secret")
    expect(Either.isLeft(checkServerUrl("http://mac local:1234"))).toBe(true)
  })

  it("password, webhook path and allow list as the config schema sees them", () => {
    expect(checkPassword("")).toEqual(Either.left(expect.stringContaining("required")))
    expect(checkPassword(" p w ")).toEqual(Either.right(" p w "))
    expect(checkWebhookPath("/hooks/msgbridge_1")).toEqual(Either.right("/hooks/msgbridge_1"))
    expect(checkWebhookPath("hooks")).toEqual(
      Either.left("a webhook path starts with / and holds letters, digits, -, _ and /")
    )
    expect(Either.isLeft(checkWebhookPath("/a?b"))).toBe(true)
    expect(parseAllowFrom(" +15551230001, a@b.c,,+15551230001 ")).toEqual(["+15551230001", "a@b.c"])
    expect(parseAllowFrom("-")).toEqual([])
    expect(checkAllowFrom("allowlist", [])).toMatch(/at least one sender/)
    expect(checkAllowFrom("allowlist", ["a@b.c"])).toBeUndefined()
    expect(checkAllowFrom("pairing", [])).toBeUndefined()
  })

  it("webhook URL: bind address, port, path, encoded password; a note when the Mac cannot reach it", () => {
    const base = { port: 18789, webhookPath: "/msgbridge-webhook", password: "p w&=?/#", lanAddress: () => "192.168.1.20" }
    const loopback = webhookTarget({ ...base, bind: "127.0.0.1" })
    expect(loopback.url).toBe("http://127.0.0.1:18789/msgbridge-webhook?password=p%20w%26%3D%3F%2F%23")
    expect(loopback.note).toMatch(/loopback.*gateway\.bind.*proxy or tunnel.*port 18789.*\?password=/)
    expect(webhookTarget({ ...base, bind: "localhost" }).note).toBeDefined()
    const lan = webhookTarget({ ...base, bind: "10.0.0.5" })
    expect(lan).toEqual({ url: "http://10.0.0.5:18789/msgbridge-webhook?password=p%20w%26%3D%3F%2F%23", note: undefined })
    const wildcard = webhookTarget({ ...base, bind: "0.0.0.0" })
    expect(wildcard.url.startsWith("http://192.168.1.20:18789/")).toBe(true)
    expect(wildcard.note).toMatch(/every interface/)
    expect(webhookTarget({ ...base, bind: "fd00::5" }).url.startsWith("http://[fd00::5]:18789/")).toBe(true)
  })
})

// ---------------------------------------------------------------------------------------------- interactive

const key = (name: string, input?: string): Terminal.UserInput => ({
  input: Option.fromNullable(input),
  key: { name, ctrl: false, meta: false, shift: false }
})
const type = (text: string) => [...text].map((c) => key(c, c))
const enter = key("return")
const down = key("down")

/** A terminal a person types `keys` into; when they run out, the input ends (as Ctrl-C ends it). */
const typingTerminal = (keys: ReadonlyArray<Terminal.UserInput>) => {
  const shown: Array<string> = []
  const terminal = Terminal.Terminal.of({
    columns: Effect.succeed(100),
    rows: Effect.succeed(40),
    isTTY: Effect.succeed(true),
    readInput: Effect.gen(function*() {
      const mailbox = yield* Mailbox.make<Terminal.UserInput>()
      yield* mailbox.offerAll(keys)
      yield* mailbox.end
      return mailbox
    }),
    readLine: Effect.succeed(""),
    display: (text) => Effect.sync(() => void shown.push(text))
  })
  return { terminal, shown: () => shown.join("").replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "") }
}

const stateDir = (config?: object) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-onboard-"))
  if (config !== undefined) fs.writeFileSync(path.join(dir, "svc.json"), JSON.stringify(config, null, 2))
  return dir
}

const onboard = (dir: string, keys: ReadonlyArray<Terminal.UserInput>, ...args: Array<string>) =>
  Effect.gen(function*() {
    const typing = typingTerminal(keys)
    const mock = makeMockConsole()
    const code = yield* runCli(["node", "svc", "onboard", ...args]).pipe(
      Effect.provideService(Terminal.Terminal, typing.terminal),
      Effect.provideService(PromptInput, { isTerminal: () => true }),
      Effect.withConsole(mock.console),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["SVC_STATE_DIR", dir], ["SVC_GATEWAY_PORT", "19789"]]))),
      Effect.provide(Layer.mergeAll(NodeContext.layer, NodeHttpClient.layer, Layer.succeed(GatewayRunner, { run: () => Effect.void })))
    )
    return { code, out: mock.out.join("\n"), err: mock.err.join("\n"), shown: typing.shown() }
  })

const readConfig = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, "svc.json"), "utf8"))

describe("svc onboard, interactive", () => {
  it.scopedLive("asks every question, re-asks an invalid answer, writes the channel and prints the URL", () =>
    Effect.gen(function*() {
      const dir = stateDir({ browser: { defaultProfile: "svc" } })
      const run = yield* onboard(dir, [
        ...type("ftp://nope"),
        enter, // refused: re-asked
        ...Array.from({ length: 10 }, () => key("backspace")),
        ...type("mac.local:1234"),
        enter,
        ...type("hunter2-secret"),
        enter,
        enter, // default webhook path
        down,
        enter, // pairing → allowlist
        enter, // empty allow list: refused under allowlist
        ...type("+15551230001, friend@example.com"),
        enter,
        ...type("n") // no check
      ])
      expect(run.err).toBe("")
      expect(run.code).toBe(0)
      expect(run.shown).toContain("must start with http:// or https://")
      expect(run.shown).toContain("dmPolicy allowlist needs at least one sender")
      expect(run.shown).toContain("**************") // the password, masked
      expect(run.shown).not.toContain("hunter2-secret")
      expect(readConfig(dir)).toEqual({
        browser: { defaultProfile: "svc" },
        channels: {
          msgbridge: {
            enabled: true,
            serverUrl: "http://mac.local:1234",
            password: "hunter2-secret",
            webhookPath: "/msgbridge-webhook",
            dmPolicy: "allowlist",
            allowFrom: ["+15551230001", "friend@example.com"]
          }
        }
      })
      expect(fs.statSync(path.join(dir, "svc.json")).mode & 0o777).toBe(0o600)
      expect(run.out).toContain("http://127.0.0.1:19789/msgbridge-webhook?password=hunter2-secret")
      expect(run.out).not.toContain("bridge server check")
    }))

  it.scopedLive("a re-run offers the current values (Enter keeps each) and checks the bridge server", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge()
      const dir = stateDir({
        gateway: { bind: "192.168.7.7", auth: { token: "token-0123456789abcdef" } },
        channels: {
          msgbridge: {
            serverUrl: bridge.url,
            password: bridge.password,
            webhookPath: "/hooks/mb",
            dmPolicy: "open",
            allowFrom: ["+15551230001"],
            groupPolicy: "disabled"
          }
        }
      })
      const before = readConfig(dir)
      const run = yield* onboard(dir, [enter, enter, enter, enter, enter, enter])
      expect(run.err).toBe("")
      expect(run.code).toBe(0)
      expect(readConfig(dir)).toEqual({
        ...before,
        channels: { msgbridge: { ...before.channels.msgbridge, enabled: true } }
      })
      expect(run.out).toContain(`http://192.168.7.7:19789/hooks/mb?password=${encodeURIComponent(bridge.password)}`)
      expect(run.out).not.toContain("note:")
      expect(run.out).toContain("bridge server check: OK")
      expect(bridge.callsTo("/api/v1/ping", "GET")).toHaveLength(1)
    }))

  it.scopedLive("flags answer their questions; the rest are asked", () =>
    Effect.gen(function*() {
      const dir = stateDir()
      const run = yield* onboard(dir, [...type("pw-from-prompt"), enter, enter, ...type("n")], "--server-url", "http://mac:1234", "--dm-policy", "pairing", "--webhook-path", "/wh")
      expect(run.code).toBe(0)
      expect(readConfig(dir).channels.msgbridge).toEqual({
        enabled: true,
        serverUrl: "http://mac:1234",
        password: "pw-from-prompt",
        webhookPath: "/wh",
        dmPolicy: "pairing",
        allowFrom: []
      })
      expect(run.shown).not.toContain("Bridge server URL")
      expect(run.shown).not.toContain("Webhook path")
      expect(run.shown).toContain("Check the bridge server now")
    }))

  it.scopedLive("an allowlist chosen in a prompt still needs senders when --allow-from gave none", () =>
    Effect.gen(function*() {
      const dir = stateDir()
      const run = yield* onboard(dir, [...type("pw"), enter, enter, down, enter], "--server-url", "http://mac:1", "--allow-from", "", "--check")
      expect(run.code).toBe(1)
      expect(run.err).toMatch(/^svc: dmPolicy allowlist needs at least one sender.*--allow-from/)
      expect(fs.existsSync(path.join(dir, "svc.json"))).toBe(false)
    }))

  it.scopedLive("cancelled (the input ends) writes nothing", () =>
    Effect.gen(function*() {
      const dir = stateDir({ browser: { defaultProfile: "svc" } })
      const before = fs.readFileSync(path.join(dir, "svc.json"), "utf8")
      const run = yield* onboard(dir, type("http://mac"))
      expect(run.code).toBe(1)
      expect(run.err).toBe("svc: onboarding cancelled; nothing was written")
      expect(fs.readFileSync(path.join(dir, "svc.json"), "utf8")).toBe(before)
    }))

  it.scopedLive("without a terminal, it says to use --non-interactive", () =>
    Effect.gen(function*() {
      const dir = stateDir()
      const mock = makeMockConsole()
      const code = yield* runCli(["node", "svc", "onboard"]).pipe(
        Effect.provideService(Terminal.Terminal, typingTerminal([]).terminal),
        Effect.provideService(PromptInput, { isTerminal: () => false }),
        Effect.withConsole(mock.console),
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["SVC_STATE_DIR", dir]]))),
        Effect.provide(Layer.mergeAll(NodeContext.layer, NodeHttpClient.layer, Layer.succeed(GatewayRunner, { run: () => Effect.void })))
      )
      expect(code).toBe(1)
      expect(mock.err).toEqual([expect.stringMatching(/^svc: onboarding asks its questions on a terminal.*--non-interactive/)])
      expect(fs.existsSync(path.join(dir, "svc.json"))).toBe(false)
    }))
})
