import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { ControlApiBase } from "../domain/controlApi.js"
import { StatusQuery, StatusResult } from "../domain/gateway.js"

// Declarations only (domain imports): api/ControlApi.ts composes this group with the capabilities' groups.

/** The gateway itself: `svc status`. */
export class GatewayGroup extends HttpApiGroup.make("gateway")
  .add(HttpApiEndpoint.get("status", "/status").setUrlParams(StatusQuery).addSuccess(StatusResult))
{}

export class GatewayApi extends ControlApiBase.add(GatewayGroup) {}
