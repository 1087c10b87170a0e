import type { RouteInfo } from "../domain/routes.js"

// A profile's network routes as the CLI's and MCP's answers list them, one line a route.

const what = (r: RouteInfo): string => {
  switch (r.action) {
    case "abort":
      return "refused"
    case "fulfill":
      return [
        `answered ${r.status ?? 200}`,
        ...(r.contentType !== undefined ? [r.contentType] : []),
        ...(r.bodyBytes !== undefined ? [`${r.bodyBytes} byte(s)`] : []),
        ...(r.headers !== undefined && r.headers.length > 0 ? [`headers ${r.headers.join("; ")}`] : [])
      ].join(", ")
    case "continue":
      return [
        "sent on",
        ...(r.headers !== undefined && r.headers.length > 0 ? [`with ${r.headers.join("; ")}`] : []),
        ...(r.removeHeaders !== undefined && r.removeHeaders.length > 0 ? [`without ${r.removeHeaders.join(", ")}`] : [])
      ].join(" ")
  }
}

/** `**\/api/user: answered 200, application/json, 27 byte(s) (3 requests so far)` */
export const routeLine = (r: RouteInfo): string => `${r.pattern}: ${what(r)} (${r.hits} request(s) so far)`

export const routeLines = (routes: ReadonlyArray<RouteInfo>): string =>
  routes.length === 0 ? "no routes" : routes.map(routeLine).join("\n")
