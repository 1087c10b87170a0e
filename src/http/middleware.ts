import { HttpMiddleware, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { checkCredentials, checkHost, checkOrigin, type Credentials } from "./guards.js"

const refuse = (status: 401 | 403, tag: "Unauthorized" | "Forbidden", message: string) =>
  HttpServerResponse.unsafeJson({ _tag: tag, message }, { status })

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
      if (!auth.ok) return refuse(401, "Unauthorized", auth.message)
      return yield* app
    })
  )
