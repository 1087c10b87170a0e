import { Effect, Schema } from "effect"
import { routeLine, routeLines } from "../client/routes.js"
import { defineTool, optionalField, field } from "./tool.js"

// Network routes as Playwright MCP names them (browser_route, browser_route_list, browser_unroute): requests
// of every tab of the profile whose URL matches a glob are mocked, refused or sent on with headers changed.

export const route = defineTool({
  name: "browser_route",
  title: "Mock network requests",
  description: "Answer the requests whose URL matches a glob with a response given here (status, body, contentType), " +
    "refuse them (abort), or send them on with headers added or removed; in every tab, until browser_unroute. " +
    "Adding a pattern again replaces its route.",
  input: Schema.Struct({
    pattern: field(Schema.String.pipe(Schema.minLength(1)), "URL glob: ** crosses slashes, * does not, e.g. \"**/api/users\", \"**/*.{png,jpg}\""),
    status: optionalField(Schema.Int.pipe(Schema.between(100, 599)), "HTTP status to answer with (default 200)"),
    body: optionalField(Schema.String, "the body to answer with (text or JSON)"),
    contentType: optionalField(Schema.String.pipe(Schema.minLength(1)), "the answer's Content-Type, e.g. application/json"),
    headers: optionalField(
      Schema.Array(Schema.String),
      "\"Name: Value\" lines: of the answer with status or body, else added to the request sent on"
    ),
    removeHeaders: optionalField(Schema.String, "comma-separated header names taken off the request sent on"),
    abort: optionalField(Schema.Boolean, "refuse the requests (they fail as blocked)")
  }),
  readOnly: false,
  destructive: true,
  run: (input, env) => {
    const removeHeaders = input.removeHeaders?.split(",").map((h) => h.trim()).filter((h) => h !== "")
    return env.client.state.addRoute({
      urlParams: env.query,
      payload: {
        pattern: input.pattern,
        ...(input.status !== undefined ? { status: input.status } : {}),
        ...(input.body !== undefined ? { body: input.body } : {}),
        ...(input.contentType !== undefined ? { contentType: input.contentType } : {}),
        ...(input.headers !== undefined ? { headers: input.headers } : {}),
        ...(removeHeaders !== undefined && removeHeaders.length > 0 ? { removeHeaders } : {}),
        ...(input.abort === true ? { abort: true } : {})
      }
    }).pipe(Effect.map((r) => {
      const mine = r.routes.find((x) => x.pattern === input.pattern)
      return `${r.replaced ? "Replaced the route" : "Route added"} for ${mine !== undefined ? routeLine(mine) : input.pattern}`
    }))
  }
})

export const routeList = defineTool({
  name: "browser_route_list",
  title: "List network routes",
  description: "The routes browser_route set, each with how many requests it has met.",
  input: Schema.Struct({}),
  readOnly: true,
  run: (_, env) => env.client.state.routes({ urlParams: env.query }).pipe(Effect.map((r) => routeLines(r.routes)))
})

export const unroute = defineTool({
  name: "browser_unroute",
  title: "Remove network routes",
  description: "Remove the route of a pattern, or every route when no pattern is given.",
  input: Schema.Struct({ pattern: optionalField(Schema.String.pipe(Schema.minLength(1)), "the route's pattern; omit for all") }),
  readOnly: false,
  run: (input, env) =>
    env.client.state.removeRoute({ urlParams: env.query, payload: input.pattern !== undefined ? { pattern: input.pattern } : {} })
      .pipe(Effect.map((r) => `Removed ${r.removed} route(s)`))
})
