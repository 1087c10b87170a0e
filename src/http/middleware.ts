import { HttpApp, HttpIncomingMessage, HttpMiddleware, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { authThrottle } from "../platform/authThrottle.js"
import { serverTimingHeader, withTiming } from "../platform/serverTiming.js"
import { checkCredentials, checkHost, checkOrigin, type Credentials } from "./guards.js"

const refuse = (
  status: 401 | 403 | 413 | 429,
  tag: "Unauthorized" | "Forbidden" | "PayloadTooLarge" | "TooManyRequests",
  message: string
) =>
  HttpServerResponse.unsafeJson({ _tag: tag, message }, { status })

/** The largest request body a listener reads: requests are small JSON (files go by path, never in a body). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024

const tooLarge = () =>
  refuse(
    413,
    "PayloadTooLarge",
    `the request body is over ${MAX_BODY_BYTES / 1024 / 1024} MiB; requests are small JSON (put files in the uploads root and give their path)`
  )

/**
 * Guards every route of a listener, known or not: a loopback Host (unless the listener is bound wider),
 * no cross-site Origin on mutating requests, and the gateway credentials. No CORS headers are ever sent.
 */
export const guard = (options: { readonly credentials: Credentials; readonly checkHost: boolean }) =>
  HttpMiddleware.make((app) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const headers = request.headers as Readonly<Record<string, string | undefined>>
      if (options.checkHost) {
        const host = checkHost(headers["host"])
        if (!host.ok) return refuse(403, "Forbidden", host.message)
      }
      const origin = checkOrigin(request.method, headers)
      if (!origin.ok) return refuse(403, "Forbidden", origin.message)
      const auth = checkCredentials(headers, options.credentials)
      if (!auth.ok) {
        // Slowed per address (the right credentials never are): guessing runs at a few tries a second.
        const verdict = yield* authThrottle.failed(Option.getOrElse(request.remoteAddress, () => "unknown"))
        return verdict === "refuse"
          ? refuse(429, "TooManyRequests", "too many failed attempts from this address; wait, then send the right credentials")
          : refuse(401, "Unauthorized", auth.message)
      }
      const declared = Number(headers["content-length"] ?? "0")
      if (declared > MAX_BODY_BYTES) return tooLarge()
      // Every 4xx says what was wrong: an unknown route too, which the router answers with an empty body
      // (rewritten on its way out: the server sends it before a middleware could see it).
      yield* HttpApp.appendPreResponseHandler((req, response) =>
        Effect.succeed(
          response.status === 404 && response.body._tag === "Empty"
            ? HttpServerResponse.unsafeJson(
              {
                _tag: "NotFound",
                message: `no route ${req.method} ${req.url.split("?")[0]}; the control API's routes are listed in the README`
              },
              { status: 404 }
            )
            : response
        )
      )
      // Where the request's time went (platform/serverTiming.ts), when its handler says.
      const timing = new Map<string, number>()
      yield* HttpApp.appendPreResponseHandler((_req, response) =>
        Effect.succeed(timing.size > 0 ? HttpServerResponse.setHeader(response, "server-timing", serverTimingHeader(timing)) : response)
      )
      // A body without a length (chunked) is cut at the same size as it is read.
      return yield* withTiming(app.pipe(HttpIncomingMessage.withMaxBodySize(Option.some(MAX_BODY_BYTES))), timing)
    })
  )
