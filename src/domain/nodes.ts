import { Schema } from "effect"

// Node hosts as the control API shows them (`svc nodes ...`), transport-neutral.

/** A node's id: the first 16 hex digits of the SHA-256 of its public key (so only its key holder can claim it). */
export const NodeId = Schema.String.pipe(
  Schema.pattern(/^[0-9a-f]{16}$/),
  Schema.annotations({ message: () => "expected a node id: 16 hex digits, as `svc nodes list` shows it" })
)

export const NodeStatus = Schema.Literal("pending", "approved")

export const NodeInfo = Schema.Struct({
  id: Schema.String,
  status: NodeStatus,
  /** The name the node gave (its host name unless `svc node run --name`). */
  name: Schema.String,
  connected: Schema.Boolean,
  /** What the node offers: `browser` when it serves its browser control. */
  capabilities: Schema.Array(Schema.String),
  /** Its browser profiles, and the one a request without a profile uses there. */
  profiles: Schema.Array(Schema.String),
  defaultProfile: Schema.optional(Schema.String),
  /** svc's version on the node. */
  version: Schema.optional(Schema.String),
  firstSeenAt: Schema.Number,
  lastSeenAt: Schema.Number,
  approvedAt: Schema.optional(Schema.Number)
})
export type NodeInfo = typeof NodeInfo.Type

export const NodeList = Schema.Struct({ nodes: Schema.Array(NodeInfo) })

export const NodeIdRequest = Schema.Struct({ id: NodeId })

export const NodeApproveResult = Schema.Struct({ node: NodeInfo, message: Schema.String })
export const NodeRevokeResult = Schema.Struct({ id: Schema.String, revoked: Schema.Boolean, message: Schema.String })
