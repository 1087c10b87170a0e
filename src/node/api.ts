import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { ControlApiBase } from "../domain/controlApi.js"
import { NodeApproveResult, NodeIdRequest, NodeList, NodeRevokeResult } from "../domain/nodes.js"

// Declarations only (domain imports): api/ControlApi.ts composes this group with the others. These routes
// are the gateway's own: never forwarded to a node, whatever `?node=` says.

/** The node hosts that connect to this gateway: `svc nodes list|approve|revoke`. */
export class NodesGroup extends HttpApiGroup.make("nodes")
  .add(HttpApiEndpoint.get("list", "/nodes").addSuccess(NodeList))
  .add(HttpApiEndpoint.post("approve", "/nodes/approve").setPayload(NodeIdRequest).addSuccess(NodeApproveResult))
  .add(HttpApiEndpoint.post("revoke", "/nodes/revoke").setPayload(NodeIdRequest).addSuccess(NodeRevokeResult))
{}

export class NodesApi extends ControlApiBase.add(NodesGroup) {}
