import { Context, type Effect } from "effect"

/**
 * How `svc mcp` serves MCP on stdio. The full runtime serves it in this process (src/mcp/server.ts); the
 * lean CLI runtime, which carries no MCP or gateway code, hands over to the full bundle.
 */
export class McpRunner extends Context.Tag("svc/McpRunner")<
  McpRunner,
  { readonly run: (options: McpRunOptions) => Effect.Effect<void, McpRunError> }
>() {}

export interface McpRunOptions {
  /** The browser profile every tool uses (default: the gateway's default profile). */
  readonly profile: string | undefined
  /** The session is sandboxed: it uses the `sandbox` profile. */
  readonly sandbox: boolean
}

export class McpRunError {
  readonly _tag = "McpRunError"
  constructor(readonly message: string) {}
}
