import { Schema } from "effect"
import { tab } from "./browser.js"

// Network routes of a profile: requests whose URL matches a pattern are answered with a response given here
// (a mock), refused, or sent on with headers changed. Playwright MCP's browser_route, in the control API.

/** `Name: Value`, as a header is written. */
const HeaderLine = Schema.String.pipe(
  Schema.pattern(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+:/),
  Schema.annotations({ message: () => "a header is written \"Name: Value\", e.g. \"X-Test: 1\"" })
)

export const AddRouteRequest = Schema.Struct({
  ...tab,
  /** A URL glob: `**` crosses slashes, `*` does not, `{png,jpg}` either one (e.g. `**\/api/users`, `**\/*.png`). */
  pattern: Schema.String.pipe(Schema.minLength(1)),
  /** Answer matching requests with this status (default 200 when a body is given). */
  status: Schema.optional(Schema.Int.pipe(Schema.between(100, 599))),
  body: Schema.optional(Schema.String),
  contentType: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
  /** With status or body: the mocked response's headers; without: headers added to the request sent on. */
  headers: Schema.optional(Schema.Array(HeaderLine)),
  /** Header names taken off the request sent on. */
  removeHeaders: Schema.optional(Schema.Array(Schema.String.pipe(Schema.minLength(1)))),
  /** Refuse matching requests (they fail as blocked by the client). */
  abort: Schema.optional(Schema.Boolean)
})
export type AddRouteRequest = typeof AddRouteRequest.Type

export const RouteInfo = Schema.Struct({
  pattern: Schema.String,
  /** What it does: `fulfill` (a mock), `abort`, or `continue` (headers changed). */
  action: Schema.Literal("fulfill", "abort", "continue"),
  status: Schema.optional(Schema.Number),
  contentType: Schema.optional(Schema.String),
  bodyBytes: Schema.optional(Schema.Number),
  headers: Schema.optional(Schema.Array(Schema.String)),
  removeHeaders: Schema.optional(Schema.Array(Schema.String)),
  /** How many requests it has answered or changed. */
  hits: Schema.Number
})
export type RouteInfo = typeof RouteInfo.Type

export const RoutesResult = Schema.Struct({ targetId: Schema.String, routes: Schema.Array(RouteInfo) })
/** The profile's routes once this one is in place; `replaced`: it took the place of one with the same pattern. */
export const AddRouteResult = Schema.Struct({ ...RoutesResult.fields, replaced: Schema.Boolean })

export const RemoveRouteRequest = Schema.Struct({
  ...tab,
  /** The pattern as it was added; without one, every route goes. */
  pattern: Schema.optional(Schema.String.pipe(Schema.minLength(1)))
})
export const RemoveRouteResult = Schema.Struct({ targetId: Schema.String, removed: Schema.Number })
