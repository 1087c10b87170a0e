import { OpenApi } from "@effect/platform"
import { BrowserApi } from "../browser/api.js"
import { ControlApiBase } from "../domain/controlApi.js"
import { GatewayApi } from "../gateway/api.js"
import { MessagingApi } from "../msgbridge/api.js"
import { NodesApi } from "../node/api.js"
import { VERSION } from "../version.js"
import { finishDocument, numericQueryParameters } from "./openApiDocument.js"
import { OpenApiGroup } from "./OpenApiGroup.js"

/** Every capability's groups, as declared. */
class ControlApiGroups extends ControlApiBase
  .addHttpApi(BrowserApi)
  .addHttpApi(MessagingApi)
  .addHttpApi(GatewayApi)
  .addHttpApi(NodesApi)
  .add(OpenApiGroup)
{}

/**
 * The one control API: every capability's groups. The server (gateway/layers.ts), the typed client (the
 * CLI, later the agent tool and the node host) and OpenAPI (`OpenApi.fromApi(ControlApi)`, finished by
 * api/openApiDocument.ts; served at /openapi.json, printed by `svc api spec`) all derive from it.
 */
export class ControlApi extends ControlApiGroups.annotateContext(
  OpenApi.annotations({
    title: "svc control API",
    version: VERSION,
    transform: (generated) => finishDocument(generated, numericQueryParameters(ControlApiGroups))
  })
) {}
