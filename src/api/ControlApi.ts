import { BrowserApi } from "../browser/api.js"
import { ControlApiBase } from "../domain/controlApi.js"
import { GatewayApi } from "../gateway/api.js"
import { MessagingApi } from "../msgbridge/api.js"

/**
 * The one control API: every capability's groups. The server (gateway/layers.ts), the typed client (the
 * CLI, later the agent tool and the node host) and OpenAPI all derive from it.
 */
export class ControlApi extends ControlApiBase
  .addHttpApi(BrowserApi)
  .addHttpApi(MessagingApi)
  .addHttpApi(GatewayApi)
{}
