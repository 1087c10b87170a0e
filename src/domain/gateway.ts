import { Schema } from "effect"

// The gateway's own route (`svc status`), transport-neutral.

export const StatusQuery = Schema.Struct({
  /** "true": ask each bridge server now (ping, server info, which actions are on and why not). */
  deep: Schema.optionalWith(Schema.Literal("true", "false"), { exact: true })
})

/** The gateway's state: loose on purpose (a diagnostic document that grows with the gateway). */
export const StatusResult = Schema.Record({ key: Schema.String, value: Schema.Unknown })
