import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { NodesApi } from "./api.js"
import { NodeRegistry } from "./gateway/NodeRegistry.js"

export const NodesHttpLive = HttpApiBuilder.group(NodesApi, "nodes", (handlers) =>
  Effect.map(NodeRegistry, (registry) =>
    handlers
      .handle("list", () => Effect.map(registry.list, (nodes) => ({ nodes })))
      .handle("approve", ({ payload }) => registry.approve(payload.id))
      .handle("revoke", ({ payload }) => registry.revoke(payload.id))))
