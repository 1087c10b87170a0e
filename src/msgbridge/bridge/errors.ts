// What can go wrong talking to the bridge server, as tagged errors whose messages say what happened and
// what to fix, and which of them are worth a retry.

import { Data } from "effect"

/** Nothing answers at serverUrl (connection refused, DNS failure, reset). Transient. */
export class BridgeUnreachable extends Data.TaggedError("BridgeUnreachable")<{
  readonly url: string
  readonly message: string
}> {}

/** The call took longer than its timeout. Transient. */
export class BridgeTimeout extends Data.TaggedError("BridgeTimeout")<{
  readonly route: string
  readonly timeoutMs: number
  readonly message: string
}> {}

/** 401: the password is wrong. Not transient: fix channels.msgbridge.password. */
export class BridgeAuthFailed extends Data.TaggedError("BridgeAuthFailed")<{
  readonly url: string
  readonly message: string
}> {}

/** A Private-API route failed (500) or a call needs the Private API that the server reports off. */
export class BridgeNeedsPrivateApi extends Data.TaggedError("BridgeNeedsPrivateApi")<{
  readonly route: string
  readonly message: string
}> {}

/** Any other non-2xx answer (400, 404, 500 on a plain route, 504 ...). Transient when status >= 500. */
export class BridgeHttpError extends Data.TaggedError("BridgeHttpError")<{
  readonly route: string
  readonly status: number
  readonly serverMessage: string
  readonly message: string
}> {}

/** The answer was not the documented envelope / shape. */
export class BridgeBadResponse extends Data.TaggedError("BridgeBadResponse")<{
  readonly route: string
  readonly message: string
}> {}

/** An attachment download passed its byte cap; the download was aborted there. */
export class BridgeTooLarge extends Data.TaggedError("BridgeTooLarge")<{
  readonly guid: string
  readonly maxBytes: number
  readonly message: string
}> {}

export type BridgeError =
  | BridgeUnreachable
  | BridgeTimeout
  | BridgeAuthFailed
  | BridgeNeedsPrivateApi
  | BridgeHttpError
  | BridgeBadResponse
  | BridgeTooLarge

/** Worth retrying: connection errors, timeouts, 5xx (including 504). Not 4xx, auth, Private API, shape. */
export const isTransientBridgeError = (e: BridgeError): boolean =>
  e._tag === "BridgeUnreachable" || e._tag === "BridgeTimeout" || (e._tag === "BridgeHttpError" && e.status >= 500)
