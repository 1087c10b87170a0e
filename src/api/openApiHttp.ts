import { HttpApiBuilder, HttpServerResponse, OpenApi } from "@effect/platform"
import { Effect } from "effect"
import { ControlApi } from "./ControlApi.js"

/** The document as the bytes of its JSON, made on the first request and kept. */
let body: Uint8Array | undefined
const documentBody = () => (body ??= new TextEncoder().encode(JSON.stringify(OpenApi.fromApi(ControlApi))))

/** `GET /openapi.json`: the document, generated once. */
export const OpenApiHttpLive = HttpApiBuilder.group(ControlApi, "api", (handlers) =>
  handlers.handle("spec", () =>
    Effect.sync(() => HttpServerResponse.uint8Array(documentBody(), { contentType: "application/json" }))))
