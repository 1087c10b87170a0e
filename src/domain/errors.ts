import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { ShownText } from "./shown.js"

// Errors that cross HTTP. Each carries its status and a message a person (or a model) can act on:
// what was wrong, and what to do about it.

export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()(
  "InvalidRequest",
  { message: ShownText },
  HttpApiSchema.annotations({ status: 400 })
) {}

export class Unauthorized extends Schema.TaggedError<Unauthorized>()(
  "Unauthorized",
  { message: ShownText },
  HttpApiSchema.annotations({ status: 401 })
) {}

export class Forbidden extends Schema.TaggedError<Forbidden>()(
  "Forbidden",
  { message: ShownText },
  HttpApiSchema.annotations({ status: 403 })
) {}

/**
 * The navigation policy refused where the browser was to go (navigate, open, a redirect, a new tab, a page's
 * request): `rule` names the rule, the message the URL, the rule and the svc.json key that would change it.
 */
export class NavigationBlocked extends Schema.TaggedError<NavigationBlocked>()(
  "NavigationBlocked",
  {
    message: ShownText,
    rule: Schema.Literal("scheme", "ownPort", "cloudMetadata", "blockedDomains", "allowedDomains")
  },
  HttpApiSchema.annotations({ status: 403 })
) {}

export class NotFound extends Schema.TaggedError<NotFound>()(
  "NotFound",
  { message: ShownText },
  HttpApiSchema.annotations({ status: 404 })
) {}

/** The request is fine but the browser is not in a state to serve it (not running, no current tab). */
export class Conflict extends Schema.TaggedError<Conflict>()(
  "Conflict",
  { message: ShownText },
  HttpApiSchema.annotations({ status: 409 })
) {}

/** The browser could not be found, launched or reached. */
export class BrowserUnavailable extends Schema.TaggedError<BrowserUnavailable>()(
  "BrowserUnavailable",
  { message: ShownText },
  HttpApiSchema.annotations({ status: 503 })
) {}

/** A capability this gateway build does not have (the automation library is absent). */
export class NotImplemented extends Schema.TaggedError<NotImplemented>()(
  "NotImplemented",
  { message: ShownText },
  HttpApiSchema.annotations({ status: 501 })
) {}

/** An upload or attachment over its size limit. */
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()(
  "PayloadTooLarge",
  { message: ShownText },
  HttpApiSchema.annotations({ status: 413 })
) {}

/** An upstream server (the bridge server) failed or could not be reached. */
export class BadGateway extends Schema.TaggedError<BadGateway>()(
  "BadGateway",
  { message: ShownText },
  HttpApiSchema.annotations({ status: 502 })
) {}

export class InternalError extends Schema.TaggedError<InternalError>()(
  "InternalError",
  { message: ShownText },
  HttpApiSchema.annotations({ status: 500 })
) {}

/** The errors any control route may answer with. */
export const ControlErrors = [
  InvalidRequest,
  Unauthorized,
  Forbidden,
  NavigationBlocked,
  NotFound,
  Conflict,
  BrowserUnavailable,
  NotImplemented,
  PayloadTooLarge,
  BadGateway,
  InternalError
] as const

export type ControlError =
  | InvalidRequest
  | Unauthorized
  | Forbidden
  | NavigationBlocked
  | NotFound
  | Conflict
  | BrowserUnavailable
  | NotImplemented
  | PayloadTooLarge
  | BadGateway
  | InternalError
