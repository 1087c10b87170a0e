// How a message action fails: tagged errors with a message a person (or a model) can act on, each carrying
// the HTTP status the gateway answers with.

import { Data } from "effect"
import type { BridgeError } from "../bridge/errors.js"
import type { ActionName } from "./ActionAvailability.js"

/** No action by that name. 400. */
export class ActionUnknown extends Data.TaggedError("ActionUnknown")<{
  readonly action: string
  readonly message: string
}> {
  readonly status = 400 as const
}

/** The params do not fit the action; `field` names the first offending one. 400. */
export class ActionInvalidParams extends Data.TaggedError("ActionInvalidParams")<{
  readonly action: ActionName
  readonly field: string
  readonly message: string
}> {
  readonly status = 400 as const
}

/** Hidden (host OS, Private API) or switched off in config; `reason` says which. 409. */
export class ActionUnavailable extends Data.TaggedError("ActionUnavailable")<{
  readonly action: ActionName
  readonly reason: string
  readonly message: string
}> {
  readonly status = 409 as const
}

/** A short message id that the short-id cache no longer knows (message from ShortIdUnknown). 404. */
export class ActionShortIdUnknown extends Data.TaggedError("ActionShortIdUnknown")<{
  readonly action: ActionName
  readonly shortId: string
  readonly message: string
}> {
  readonly status = 404 as const
}

/** The bridge server has no message with that guid. 404. */
export class ActionMessageNotFound extends Data.TaggedError("ActionMessageNotFound")<{
  readonly action: ActionName
  readonly messageGuid: string
  readonly message: string
}> {
  readonly status = 404 as const
}

/** A local path outside channels.msgbridge.mediaLocalRoots (or none configured). 403. */
export class ActionPathDenied extends Data.TaggedError("ActionPathDenied")<{
  readonly action: ActionName
  readonly path: string
  readonly message: string
}> {
  readonly status = 403 as const
}

/** Media over mediaMaxBytes. 413. */
export class ActionMediaTooLarge extends Data.TaggedError("ActionMediaTooLarge")<{
  readonly action: ActionName
  readonly size: number
  readonly maxBytes: number
  readonly message: string
}> {
  readonly status = 413 as const
}

/** The bridge call failed; `message` is the bridge error's, prefixed with the action. 502. */
export class ActionBridgeFailed extends Data.TaggedError("ActionBridgeFailed")<{
  readonly action: ActionName
  readonly cause: BridgeError
  readonly message: string
}> {
  readonly status = 502 as const
}

export type ActionError =
  | ActionUnknown
  | ActionInvalidParams
  | ActionUnavailable
  | ActionShortIdUnknown
  | ActionMessageNotFound
  | ActionPathDenied
  | ActionMediaTooLarge
  | ActionBridgeFailed

/** An ActionInvalidParams whose message starts with the action. */
export const invalidParams = (action: ActionName, field: string, message: string) =>
  new ActionInvalidParams({ action, field, message: `${action}: ${message}` })
