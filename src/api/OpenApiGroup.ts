import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"

/** The OpenAPI document as JSON: an object (its shape is OpenAPI 3.1's, not restated here). */
export const OpenApiDocument = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  description: "the control API's OpenAPI 3.1 document (this document)"
})

/** The control API describing itself: `GET /openapi.json`, what `svc api spec` prints. */
export class OpenApiGroup extends HttpApiGroup.make("api")
  .add(HttpApiEndpoint.get("spec", "/openapi.json").addSuccess(OpenApiDocument))
{}
