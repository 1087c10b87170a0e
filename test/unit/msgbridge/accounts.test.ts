import { NodeHttpClient } from "@effect/platform-node"
import { it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { describe, expect } from "vitest"
import type { SvcConfig } from "../../../src/config/SvcConfig.js"
import { resolveAccounts } from "../../../src/msgbridge/channel/Accounts.js"
import { makeBridgeClient } from "../../../src/msgbridge/bridge/BridgeClient.js"
import { catchUp } from "../../../src/msgbridge/channel/CatchUp.js"
import { expandTemplates, expandTemplatesDeep } from "../../../src/msgbridge/channel/Templates.js"
import { fakeBridge } from "../../support/fakeBridge.js"

const accounts = (msgbridge: unknown) => resolveAccounts({ channels: { msgbridge } } as SvcConfig)
const error = (msgbridge: unknown) => Either.getLeft(accounts(msgbridge)).pipe((o) => (o._tag === "Some" ? o.value.message : ""))

describe("resolveAccounts", () => {
  it("is empty when the channel is absent or disabled", () => {
    expect(resolveAccounts({} as SvcConfig)).toEqual(Either.right([]))
    expect(accounts({ enabled: false, serverUrl: "x", password: "p" })).toEqual(Either.right([]))
  })

  it("runs the top level as default and each named account with its own bridge, inheriting policies", () => {
    const r = Either.getOrThrow(accounts({
      serverUrl: "mac:1234",
      password: "home-pw",
      dmPolicy: "allowlist",
      allowFrom: ["+15551230001"],
      accounts: { work: { serverUrl: "work-mac:1234", password: "work-pw", textChunkLimit: 500 }, off: { enabled: false } }
    }))
    expect(r.map((a) => [a.accountId, a.webhookPath, a.serverUrl])).toEqual([
      ["default", "/msgbridge-webhook", "mac:1234"],
      ["work", "/msgbridge-webhook/work", "work-mac:1234"]
    ])
    expect(r[1]!.config).toMatchObject({ dmPolicy: "allowlist", allowFrom: ["+15551230001"], textChunkLimit: 500, password: "work-pw" })
  })

  it("names the key path of what is missing or clashing", () => {
    expect(error({ password: "p" })).toBe("channels.msgbridge.serverUrl is required (the bridge server's URL)")
    expect(error({ serverUrl: "x" })).toMatch(/^channels\.msgbridge\.password is required/)
    expect(error({ accounts: { work: { serverUrl: "x" } } })).toMatch(/^channels\.msgbridge\.accounts\.work\.password is required/)
    // The top level's password is not inherited: each account is its own bridge.
    expect(error({ serverUrl: "a", password: "p", accounts: { work: { serverUrl: "b" } } })).toMatch(/accounts\.work\.password/)
    expect(error({ serverUrl: "a", password: "p", accounts: { w: { serverUrl: "b", password: "q", webhookPath: "/msgbridge-webhook" } } }))
      .toMatch(/accounts\.w\.webhookPath .* already the webhook of account "default"/)
    expect(error({ serverUrl: "a", password: "p", accounts: { default: { serverUrl: "b", password: "q" } } })).toMatch(/"default" is the top-level account/)
    expect(error({ serverUrl: "a", password: "p", accounts: { "a b": { serverUrl: "b", password: "q" } } })).toMatch(/account id holds/)
  })
})

describe("templates", () => {
  it("expands the known placeholders that have a value and leaves the rest", () => {
    const v = { MessageSid: "7", MessageSidFull: "GUID-7", ReplyToIdFull: "GUID-1" }
    expect(expandTemplates("{{MessageSid}} {{ MessageSidFull }} {{ReplyToIdFull}} {{ReplyToId}} {{Other}}", v)).toBe(
      "7 GUID-7 GUID-1 {{ReplyToId}} {{Other}}"
    )
    expect(expandTemplatesDeep({ a: ["{{MessageSidFull}}", 1], b: { c: "{{MessageSid}}" }, d: true }, v)).toEqual({
      a: ["GUID-7", 1],
      b: { c: "7" },
      d: true
    })
  })
})

describe("catchUp", () => {
  const m = (guid: string, at: number) => ({ guid, text: guid, dateCreated: at, isFromMe: false })

  it.scopedLive("pages forward from cursor − overlap, oldest first, and stops at the limit", () =>
    Effect.gen(function*() {
      const messages = Array.from({ length: 25 }, (_, i) => m(`M${i}`, 10_000 + i * 10))
      const bridge = yield* fakeBridge({ messages: [m("OLD", 1_000), ...messages] })
      const client = yield* makeBridgeClient({ serverUrl: bridge.url, password: bridge.password }).pipe(Effect.provide(NodeHttpClient.layer))
      const handed: Array<string> = []
      const r = yield* catchUp({
        client,
        cursor: 10_050,
        overlapMs: 100,
        pageSize: 10,
        onMessage: (x) => Effect.sync(() => (handed.push(x.guid), x.guid !== "M3"))
      })
      expect(handed).toEqual(messages.map((x) => x.guid))
      expect(r).toEqual({ fetched: 25, handed: 24, newest: 10_240, truncated: false })
      expect(bridge.callsTo("/api/v1/message/query")[0]!.body).toMatchObject({ after: 9_950, sort: "ASC", limit: 10 })

      const capped = yield* catchUp({ client, cursor: 10_000, overlapMs: 0, pageSize: 10, maxMessages: 12, onMessage: () => Effect.succeed(true) })
      expect(capped).toMatchObject({ fetched: 12, truncated: true })
    }))
})
