import { Context, type Effect } from "effect"

/**
 * How `svc node run` runs the node host. The full runtime runs it in this process (gateway/nodeRun.ts);
 * the lean CLI runtime, which carries no browser code, hands over to the full bundle.
 */
export class NodeRunner extends Context.Tag("svc/NodeRunner")<
  NodeRunner,
  { readonly run: (options: NodeRunOptions) => Effect.Effect<void, NodeRunError> }
>() {}

export interface NodeRunOptions {
  /** ws(s)://host:port of the gateway. */
  readonly gateway: string
  /** The gateway's token (else SVC_GATEWAY_TOKEN, else this machine's gateway.auth.token). */
  readonly token: string | undefined
  /** The name the gateway shows (default: this machine's host name). */
  readonly name: string | undefined
}

export class NodeRunError {
  readonly _tag = "NodeRunError"
  constructor(readonly message: string) {}
}
