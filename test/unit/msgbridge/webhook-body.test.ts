// The webhook route's body handling through a real node:http server on loopback: the body is read once,
// capped at 1 MiB as it arrives (also when it is chunked, with no Content-Length to refuse it early),
// then parsed as JSON and handed to the channel.

import { HttpRouter, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { it } from "@effect/vitest"
import { Effect } from "effect"
import * as http from "node:http"
import { describe, expect } from "vitest"
import { WEBHOOK_MAX_BYTES, webhookHandler } from "../../../src/msgbridge/webhook.js"

/** POST `parts` one write each (chunked), on a connection of its own. */
const post = (port: number, parts: ReadonlyArray<string>) =>
  Effect.promise(() =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: "127.0.0.1",
          port,
          method: "POST",
          path: "/hook?password=pw-123456",
          agent: false,
          headers: { "content-type": "application/json" }
        },
        (res) => {
          let body = ""
          res.on("data", (d) => (body += d))
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
        }
      )
      req.on("error", reject)
      for (const p of parts) req.write(p)
      req.end()
    })
  )

const serve = Effect.gen(function*() {
  const received: Array<unknown> = []
  const handler = webhookHandler({
    password: "pw-123456",
    trustedProxies: [],
    handle: (body) => Effect.sync(() => (received.push(body), { status: 200, body: { ok: true } }))
  })
  yield* HttpRouter.empty.pipe(HttpRouter.post("/hook", handler), HttpServer.serveEffect())
  const port = yield* HttpServer.addressWith((a) => Effect.succeed(a._tag === "TcpAddress" ? a.port : 0))
  return { port, received }
})

describe("webhook body", () => {
  it.scopedLive("reads a chunked body in pieces, parses it, hands it to the channel once", () =>
    Effect.gen(function*() {
      const { port, received } = yield* serve
      const payload = JSON.stringify({ type: "new-message", data: { guid: "G1", text: "x".repeat(50_000) } })
      const r = yield* post(port, [payload.slice(0, 10), payload.slice(10, 30_000), payload.slice(30_000)])
      expect(r.status).toBe(200)
      expect(received).toEqual([JSON.parse(payload)])
    }).pipe(Effect.provide(NodeHttpServer.layerTest)))

  it.scopedLive("a chunked body over 1 MiB (no Content-Length to refuse early) is answered 413; not JSON is 400", () =>
    Effect.gen(function*() {
      const { port, received } = yield* serve
      const piece = "x".repeat(256 * 1024)
      const big = yield* post(port, Array.from({ length: Math.ceil(WEBHOOK_MAX_BYTES / piece.length) + 2 }, () => piece))
      expect(big.status).toBe(413)
      expect((yield* post(port, ["{not json"])).status).toBe(400)
      expect(received).toEqual([])
      // The server still answers normally afterwards.
      expect((yield* post(port, ['{"type":"hello-world","data":"hi"}'])).status).toBe(200)
    }).pipe(Effect.provide(NodeHttpServer.layerTest)))
})
