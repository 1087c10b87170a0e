// The bridge client over the channel's own transport (msgbridge/transport.ts: keep-alive agent, lean
// request path) against loopback servers: connections are reused, and every way a call can end (an error
// status, a timeout, a download stopped at its cap) leaves the connection pool usable.

import { it } from "@effect/vitest"
import { Effect, Exit, Stream } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect } from "vitest"
import { type BridgeClientOptions, makeBridgeClient } from "../../src/msgbridge/bridge/BridgeClient.js"
import { bridgeHttpClientLayer } from "../../src/msgbridge/bridge/transport.js"
import { type FakeBridge, fakeBridge } from "../support/fakeBridge.js"

const DM = "iMessage;-;+15551230001"
const api = (p: string) => `/api/v1${p}`

const clientFor = (bridge: FakeBridge, extra: Partial<BridgeClientOptions> = {}, maxSockets?: number) =>
  makeBridgeClient({ serverUrl: bridge.url, password: bridge.password, ...extra }).pipe(
    Effect.provide(bridgeHttpClientLayer(maxSockets === undefined ? {} : { maxSockets }))
  )

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isFailure(exit) && exit.cause._tag === "Fail") return exit.cause.error
  throw new Error(`expected a failure, got ${Exit.isSuccess(exit) ? "success" : String(exit.cause)}`)
}

/** A minimal bridge that counts the TCP connections it accepts. */
const countingBridge = Effect.acquireRelease(
  Effect.promise(async () => {
    let connections = 0
    const queries: Array<string> = []
    const server = http.createServer((req, res) => {
      queries.push(req.url ?? "")
      req.resume()
      req.on("end", () => {
        res.setHeader("content-type", "application/json")
        res.end(JSON.stringify({ status: 200, message: "Success", data: req.url?.startsWith("/api/v1/message/text") ? { guid: "G" } : "pong" }))
      })
    })
    server.on("connection", () => connections++)
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections, queries }
  }),
  ({ server }) => Effect.promise(() => new Promise<void>((r) => server.close(() => r())))
)

describe("bridge transport", () => {
  it.scopedLive("reuses its connections (keep-alive), password in the query only", () =>
    Effect.gen(function*() {
      const bridge = yield* countingBridge
      const client = yield* makeBridgeClient({ serverUrl: bridge.url, password: "pw 1&2" }).pipe(Effect.provide(bridgeHttpClientLayer()))
      for (let i = 0; i < 20; i++) {
        yield* client.ping
        yield* client.sendText({ chatGuid: DM, message: `m${i}`, method: "apple-script" })
      }
      expect(bridge.connections()).toBe(1)
      expect(bridge.queries.every((q) => new URL(q, "http://x").searchParams.get("password") === "pw 1&2")).toBe(true)
      // Concurrent calls open more connections, up to what they need, and keep them.
      yield* Effect.forEach(Array.from({ length: 8 }), () => client.ping, { concurrency: 8, discard: true })
      const after = bridge.connections()
      expect(after).toBeLessThanOrEqual(8)
      yield* Effect.forEach(Array.from({ length: 8 }), () => client.ping, { concurrency: 8, discard: true })
      expect(bridge.connections()).toBe(after)
    }))

  it.scopedLive("error statuses, timeouts and a download stopped at its cap all free their connection (one socket suffices)", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge({ serverInfo: { private_api: true, helper_connected: true }, attachments: { BIG: 8 * 1024 * 1024, OK: 100_000 } })
      const client = yield* clientFor(bridge, { timeoutMs: 300 }, 1)

      bridge.failNext({ path: api("/ping"), status: 401 })
      expect(failureOf(yield* Effect.exit(client.ping))._tag).toBe("BridgeAuthFailed")
      yield* client.ping

      bridge.failNext({ path: api(`/chat/${DM}/typing`), status: 500, message: "iMessage Error" })
      expect(failureOf(yield* Effect.exit(client.startTyping(DM)))._tag).toBe("BridgeNeedsPrivateApi")
      yield* client.ping

      bridge.failNext({ path: api("/ping"), hang: true })
      const t0 = Date.now()
      expect(failureOf(yield* Effect.exit(client.ping))).toMatchObject({ _tag: "BridgeTimeout", timeoutMs: 300 })
      expect(Date.now() - t0).toBeLessThan(2000)
      yield* client.ping

      bridge.downloadContentLength = false
      const streamed = yield* Effect.exit(Stream.runCollect(client.downloadAttachment("BIG", 200_000)))
      expect(failureOf(streamed)._tag).toBe("BridgeTooLarge")
      yield* client.ping
      expect((yield* client.downloadAttachmentBytes("OK", 1_000_000)).length).toBe(100_000)
      yield* client.ping
    }))

  it.scopedLive("a download refused on its declared length does not block later calls", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge({ attachments: { BIG: 8 * 1024 * 1024 } })
      const client = yield* clientFor(bridge)
      expect(failureOf(yield* Effect.exit(client.downloadAttachmentBytes("BIG", 1_000)))._tag).toBe("BridgeTooLarge")
      yield* client.ping
    }))

  it.scopedLive("multipart sends (attachments) go through on the same agent", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge({ serverInfo: { private_api: true, helper_connected: true } })
      const client = yield* clientFor(bridge)
      yield* client.sendAttachment({ chatGuid: DM, name: "a.txt", data: new Uint8Array([1, 2, 3]), mimeType: "text/plain" })
      const [call] = bridge.callsTo(api("/message/attachment"))
      expect(call!.fields).toMatchObject({ chatGuid: DM, name: "a.txt", method: "private-api" })
      expect(call!.files).toMatchObject({ attachment: { name: "a.txt", size: 3 } })
      expect(call!.passwordHeader).toBe(false)
    }))

  it.live("nothing listening: BridgeUnreachable, without the password", () =>
    Effect.gen(function*() {
      const port = yield* Effect.promise(() =>
        new Promise<number>((resolve) => {
          const s = http.createServer()
          s.listen(0, "127.0.0.1", () => {
            const p = (s.address() as AddressInfo).port
            s.close(() => resolve(p))
          })
        })
      )
      const e = yield* Effect.scoped(
        Effect.flatMap(
          makeBridgeClient({ serverUrl: `127.0.0.1:${port}`, password: "hunter2" }).pipe(Effect.provide(bridgeHttpClientLayer())),
          (client) => Effect.flip(client.ping)
        )
      )
      expect(e._tag).toBe("BridgeUnreachable")
      expect(e.message).not.toContain("hunter2")
    }))
})
