import { Args, Command, Options } from "@effect/cli"
import { Option } from "effect"
import { routeLine, routeLines } from "../../client/routes.js"
import { tabOptions } from "./inspect.js"
import { callControl, given } from "./shared.js"

// `svc browser route [add|remove]`: mock, refuse or change the requests whose URL matches a glob, in every tab
// of the profile; list them with how many requests each has met.

const withTarget = (t: Option.Option<string>) => given("targetId", t)

const add = Command.make(
  "add",
  {
    ...tabOptions,
    pattern: Args.text({ name: "pattern" }).pipe(
      Args.withDescription("a URL glob: ** crosses slashes, * does not, {png,jpg} either (e.g. '**/api/users')")
    ),
    status: Options.integer("status").pipe(Options.withDescription("answer with this HTTP status (default 200)"), Options.optional),
    body: Options.text("body").pipe(Options.withDescription("answer with this body"), Options.optional),
    contentType: Options.text("content-type").pipe(Options.withDescription("the answer's content type, e.g. application/json"), Options.optional),
    header: Options.text("header").pipe(
      Options.withDescription("'Name: Value', repeatable: of the answer with --status/--body, else added to the request sent on"),
      Options.repeated
    ),
    removeHeader: Options.text("remove-header").pipe(Options.withDescription("a header taken off the request sent on, repeatable"), Options.repeated),
    abort: Options.boolean("abort").pipe(Options.withDescription("refuse the requests (they fail as blocked)"))
  },
  (args) =>
    callControl(
      args,
      (c, q) =>
        c.state.addRoute({
          urlParams: q,
          payload: {
            pattern: args.pattern,
            ...given("status", args.status),
            ...given("body", args.body),
            ...given("contentType", args.contentType),
            ...(args.header.length > 0 ? { headers: args.header } : {}),
            ...(args.removeHeader.length > 0 ? { removeHeaders: args.removeHeader } : {}),
            ...(args.abort ? { abort: true } : {}),
            ...withTarget(args.targetId)
          }
        }),
      (r) => {
        const mine = r.routes.find((x) => x.pattern === args.pattern)
        return `${r.replaced ? "replaced the route" : "added a route"} ${mine !== undefined ? routeLine(mine) : args.pattern}`
      }
    )
).pipe(Command.withDescription("mock, refuse or change the requests matching <pattern>, in every tab of the profile"))

const remove = Command.make(
  "remove",
  {
    ...tabOptions,
    pattern: Args.text({ name: "pattern" }).pipe(Args.withDescription("the route's pattern (default: every route)"), Args.optional)
  },
  (args) =>
    callControl(
      args,
      (c, q) => c.state.removeRoute({ urlParams: q, payload: { ...given("pattern", args.pattern), ...withTarget(args.targetId) } }),
      (r) => `removed ${r.removed} route(s)`
    )
).pipe(Command.withDescription("remove the route of <pattern>, or every route"))

export const routeCommand = Command.make("route", tabOptions, (args) =>
  callControl(args, (c, q) => c.state.routes({ urlParams: { ...q, ...withTarget(args.targetId) } }), (r) => routeLines(r.routes))).pipe(
    Command.withDescription("list the profile's network routes; `route add <pattern> …` mocks, refuses or changes requests, `route remove [pattern]`"),
    Command.withSubcommands([add, remove])
  )
