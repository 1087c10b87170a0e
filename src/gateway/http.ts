import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { GatewayApi } from "./api.js"
import { GatewayStatus } from "./Status.js"

export const GatewayHttpLive = HttpApiBuilder.group(GatewayApi, "gateway", (handlers) =>
  Effect.map(GatewayStatus, (gateway) =>
    handlers.handle("status", ({ urlParams }) => gateway.status({ deep: urlParams.deep === "true" })))
)
