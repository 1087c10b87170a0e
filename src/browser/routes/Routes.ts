import { Effect } from "effect"
import type { BrowserContext, Route } from "playwright-core"
import { InvalidRequest, NotFound } from "../../domain/errors.js"
import type { AddRouteRequest, RouteInfo } from "../../domain/routes.js"
import { pageCall } from "../inspect/PageCall.js"
import { TabPages } from "../pages/TabPages.js"

// A profile's network routes: requests whose URL matches a glob are answered with a given response (a
// mock), refused, or sent on with their headers changed, in every tab of the profile, until removed or the
// browser stops. A request sent on goes through the navigation policy's own routing as any other (routes
// fall back to it, never around it). While any route is set the library leaves the HTTP cache off.

type Tab = { readonly profile?: string | undefined; readonly targetId?: string | undefined }

interface Entry {
  info: RouteInfo
  readonly handler: (route: Route) => Promise<void>
}

/** `Name: Value` lines as a header record (the value may hold colons). */
const headerRecord = (lines: ReadonlyArray<string>): Record<string, string> =>
  Object.fromEntries(lines.map((line) => {
    const colon = line.indexOf(":")
    return [line.slice(0, colon).trim(), line.slice(colon + 1).trim()]
  }))

/** What a route does, from what was given; or why that does not make a route. */
export const routePlan = (r: AddRouteRequest): { readonly action: RouteInfo["action"] } | { readonly problem: string } => {
  const responds = r.status !== undefined || r.body !== undefined || r.contentType !== undefined
  if (r.abort === true) {
    return responds || r.headers !== undefined || r.removeHeaders !== undefined
      ? { problem: "abort refuses the request: give it no status, body, content type or headers" }
      : { action: "abort" }
  }
  if (responds) {
    return r.removeHeaders !== undefined
      ? { problem: "removeHeaders changes a request sent on; a mocked response (status, body) sends nothing on" }
      : { action: "fulfill" }
  }
  if (r.headers !== undefined || r.removeHeaders !== undefined) return { action: "continue" }
  return {
    problem: "say what the route does: a response (status, body, contentType), abort, or headers to add or remove " +
      "on the request, e.g. `svc browser route add '**/api/user' --body '{\"name\":\"Ada\"}' --content-type application/json`"
  }
}

export class Routes extends Effect.Service<Routes>()("svc/Routes", {
  effect: Effect.gen(function*() {
    const { pageOf } = yield* TabPages
    const byContext = new WeakMap<BrowserContext, Array<Entry>>()
    const entriesOf = (context: BrowserContext) => {
      let list = byContext.get(context)
      if (list === undefined) byContext.set(context, list = [])
      return list
    }

    const handlerFor = (r: AddRouteRequest, action: RouteInfo["action"], hit: () => void) => {
      const headers = r.headers !== undefined ? headerRecord(r.headers) : undefined
      const removed = new Set((r.removeHeaders ?? []).map((h) => h.toLowerCase()))
      return async (route: Route) => {
        hit()
        switch (action) {
          case "abort":
            return route.abort("blockedbyclient")
          case "fulfill":
            return route.fulfill({
              status: r.status ?? 200,
              body: r.body ?? "",
              ...(r.contentType !== undefined ? { contentType: r.contentType } : {}),
              ...(headers !== undefined ? { headers } : {})
            })
          case "continue": {
            const sent = Object.fromEntries(
              Object.entries(route.request().headers()).filter(([name]) => !removed.has(name.toLowerCase()))
            )
            // fallback, not continue: the navigation policy's routing still judges where it goes.
            return route.fallback({ headers: { ...sent, ...headers } })
          }
        }
      }
    }

    const add = (q: Tab & AddRouteRequest) =>
      Effect.gen(function*() {
        const plan = routePlan(q)
        if ("problem" in plan) return yield* new InvalidRequest({ message: `route add ${q.pattern}: ${plan.problem}` })
        const { page, tab } = yield* pageOf(q.profile, q.targetId)
        const context = page.context()
        const list = entriesOf(context)
        // One route a pattern: adding it again replaces it.
        const replaced = list.filter((e) => e.info.pattern === q.pattern)
        for (const old of replaced) {
          yield* pageCall("route add", () => context.unroute(q.pattern, old.handler))
          list.splice(list.indexOf(old), 1)
        }
        const info: RouteInfo = {
          pattern: q.pattern,
          action: plan.action,
          ...(plan.action === "fulfill" ? { status: q.status ?? 200 } : {}),
          ...(q.contentType !== undefined ? { contentType: q.contentType } : {}),
          ...(q.body !== undefined ? { bodyBytes: Buffer.byteLength(q.body) } : {}),
          ...(q.headers !== undefined ? { headers: q.headers } : {}),
          ...(q.removeHeaders !== undefined ? { removeHeaders: q.removeHeaders } : {}),
          hits: 0
        }
        const entry: Entry = {
          info,
          handler: handlerFor(q, plan.action, () => {
            entry.info = { ...entry.info, hits: entry.info.hits + 1 }
          })
        }
        yield* pageCall("route add", () => context.route(q.pattern, entry.handler))
        list.push(entry)
        return { targetId: tab.targetId, routes: list.map((e) => e.info), replaced: replaced.length > 0 }
      }).pipe(Effect.withSpan("Routes.add"))

    const list = (q: Tab) =>
      Effect.map(pageOf(q.profile, q.targetId), ({ page, tab }) => ({
        targetId: tab.targetId,
        routes: (byContext.get(page.context()) ?? []).map((e) => e.info)
      }))

    const remove = (q: Tab & { readonly pattern?: string | undefined }) =>
      Effect.gen(function*() {
        const { page, tab } = yield* pageOf(q.profile, q.targetId)
        const context = page.context()
        const list = entriesOf(context)
        const going = list.filter((e) => q.pattern === undefined || e.info.pattern === q.pattern)
        if (q.pattern !== undefined && going.length === 0) {
          return yield* new NotFound({
            message: `no route has the pattern ${JSON.stringify(q.pattern)}; ` +
              (list.length === 0 ? "there are none" : `there are ${list.map((e) => JSON.stringify(e.info.pattern)).join(", ")}`)
          })
        }
        for (const e of going) {
          yield* pageCall("route remove", () => context.unroute(e.info.pattern, e.handler))
          list.splice(list.indexOf(e), 1)
        }
        return { targetId: tab.targetId, removed: going.length }
      }).pipe(Effect.withSpan("Routes.remove"))

    return { add, list, remove } as const
  })
}) {}
