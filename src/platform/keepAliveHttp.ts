import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Layer } from "effect"

// The gateway's own HTTP client for calls it makes many times to the same hosts (a model provider, its own
// control port): keep-alive connections over node:http. Not undici: its dispatcher closes gracefully, so a
// gateway stopped in the middle of a request would wait for that request before it exits.

export const KeepAliveHttp = NodeHttpClient.layerWithoutAgent.pipe(Layer.provide(NodeHttpClient.makeAgentLayer({ keepAlive: true })))
