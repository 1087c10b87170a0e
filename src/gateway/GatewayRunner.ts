import { Context, type Effect } from "effect"

/**
 * How `svc gateway run` starts the gateway. The full runtime runs it in this process; the lean CLI
 * runtime (the start-up snapshot, which carries no gateway code) hands over to the full bundle.
 */
export class GatewayRunner extends Context.Tag("svc/GatewayRunner")<
  GatewayRunner,
  { readonly run: (options: GatewayRunOptions) => Effect.Effect<void, GatewayRunError> }
>() {}

export interface GatewayRunOptions {
  readonly port: number | undefined
  readonly startBrowser: boolean
}

export class GatewayRunError {
  readonly _tag = "GatewayRunError"
  /** `heldByOther`: another gateway holds (or is taking) the state dir: it answers there, or soon will. */
  constructor(readonly message: string, readonly heldByOther = false) {}
}
