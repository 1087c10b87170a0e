// What the bridge server says about itself (GET /server/info), and what follows from it: the host's OS
// version, whether the Private API can be used, and so which method a send takes.

import { Schema } from "effect"

export const ServerInfo = Schema.Struct({
  os_version: Schema.String,
  server_version: Schema.optional(Schema.NullOr(Schema.String)),
  private_api: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  helper_connected: Schema.optionalWith(Schema.Boolean, { default: () => false })
})
export type ServerInfo = typeof ServerInfo.Type

/** The Private API is on and its helper connected: effects, typing, reactions ... can work. */
export const privateApiUsable = (info: ServerInfo): boolean => info.private_api && info.helper_connected

/** Major version of the bridge host's OS ("15.3.1" → 15); undefined when unparseable. */
export const osMajor = (info: ServerInfo): number | undefined => {
  const n = Number.parseInt(info.os_version, 10)
  return Number.isFinite(n) ? n : undefined
}

export type SendMethod = "apple-script" | "private-api"

/**
 * The send-method rule (the bridge needs `method` explicitly):
 * - effects, subjects and replies need `private-api`; when server info says the Private API is off or its
 *   helper is not connected, such a send fails at once with BridgeNeedsPrivateApi (it could not succeed);
 * - otherwise `private-api` when server info says the helper is connected (faster, no AppleScript),
 * - else `apple-script` (also when server info cannot be read).
 */
export const chooseSendMethod = (needsPrivateApi: boolean, info: ServerInfo | undefined): SendMethod | "unavailable" => {
  if (needsPrivateApi) return info === undefined || privateApiUsable(info) ? "private-api" : "unavailable"
  return info !== undefined && privateApiUsable(info) ? "private-api" : "apple-script"
}
