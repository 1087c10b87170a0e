import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { NodeRegistry } from "./NodeRegistry.js"

// The node socket on the gateway port (NODE_SOCKET_PATH). The listener's guard has already checked the
// Host (on a loopback-bound gateway) and the gateway credentials; this refuses what a browser would send
// (a WebSocket from a web page always carries Origin; a node host never does), then hands the socket to the
// registry for the challenge and the node's life.

const refuse = (status: number, tag: string, message: string) =>
  HttpServerResponse.unsafeJson({ _tag: tag, message }, { status })

export const nodeSocketHandler = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const headers = request.headers as Readonly<Record<string, string | undefined>>
  if (headers["origin"] !== undefined || headers["sec-fetch-site"] !== undefined) {
    return refuse(403, "Forbidden", `refused: a node socket from a web page (Origin ${JSON.stringify(headers["origin"] ?? "")})`)
  }
  if (headers["upgrade"]?.toLowerCase() !== "websocket") {
    return refuse(426, "UpgradeRequired", "this is the node hosts' WebSocket: connect with `svc node run --gateway ws://<host>:<port>`")
  }
  const registry = yield* NodeRegistry
  const socket = yield* request.upgrade.pipe(Effect.option)
  if (Option.isNone(socket)) return HttpServerResponse.empty({ status: 400 })
  yield* registry.accept(socket.value, Option.getOrElse(request.remoteAddress, () => "unknown"))
  return HttpServerResponse.empty()
})
