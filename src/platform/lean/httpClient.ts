import { HttpClient, HttpClientError, type HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import type * as HttpBody from "@effect/platform/HttpBody"
import { Chunk, Effect, Stream } from "effect"
import type * as NodeHttp from "node:http"
import { builtin } from "../builtin.js"
import { incomingResponse } from "../nodeResponse.js"

// The HttpClient of the CLI's start-up snapshot: node:http (loaded on the first request), one request at
// a time, with the errors @effect/platform-node gives (a Transport RequestError, a Decode ResponseError).

const transportError = (request: HttpClientRequest.HttpClientRequest, cause: unknown) =>
  new HttpClientError.RequestError({ request, reason: "Transport", cause })

/** The request body as bytes (the CLI sends small JSON bodies). */
const bodyBytes = (
  request: HttpClientRequest.HttpClientRequest,
  body: HttpBody.HttpBody
): Effect.Effect<{ bytes: unknown; headers: Record<string, string> }, HttpClientError.RequestError> => {
  switch (body._tag) {
    case "Empty":
      return Effect.succeed({ bytes: undefined, headers: {} })
    case "Uint8Array":
    case "Raw":
      return Effect.succeed({ bytes: body.body, headers: {} })
    case "Stream":
      return Stream.runCollect(body.stream).pipe(
        Effect.map((chunks) => ({ bytes: Buffer.concat(Chunk.toReadonlyArray(chunks)), headers: {} })),
        Effect.mapError((cause) => transportError(request, cause))
      )
    case "FormData":
      return Effect.tryPromise({
        try: async () => {
          const encoded = new Response(body.formData)
          const headers: Record<string, string> = {}
          encoded.headers.forEach((value, key) => (headers[key] = value))
          return { bytes: Buffer.from(await encoded.arrayBuffer()), headers }
        },
        catch: (cause) => transportError(request, cause)
      })
  }
}

/**
 * One connection per request (no agent, no keep-alive), so nothing holds the process open once the
 * answer has been read.
 */
export const leanHttpClient: HttpClient.HttpClient = HttpClient.make((request, url, signal) =>
  Effect.flatMap(bodyBytes(request, request.body), ({ bytes, headers }) =>
    Effect.async<HttpClientResponse.HttpClientResponse, HttpClientError.RequestError>((resume) => {
      let nodeRequest: NodeHttp.ClientRequest
      try {
        const http = builtin<typeof NodeHttp>(url.protocol === "https:" ? "node:https" : "node:http")
        nodeRequest = http.request(url, {
          agent: false,
          method: request.method,
          headers: { ...request.headers, ...headers },
          signal
        })
      } catch (cause) {
        return resume(Effect.fail(transportError(request, cause)))
      }
      const onError = (cause: Error) => resume(Effect.fail(transportError(request, cause)))
      nodeRequest.once("error", onError)
      nodeRequest.once("response", (response) => {
        nodeRequest.off("error", onError)
        // A late socket error is reported through the response body; never let it crash the process.
        nodeRequest.on("error", () => {})
        resume(Effect.succeed(incomingResponse(request, response)))
      })
      nodeRequest.end(bytes as Uint8Array | undefined)
      return Effect.sync(() => nodeRequest.destroy())
    }))
)
