import { FileSystem, HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { Data, Effect, FiberRef, ParseResult } from "effect"
import { ControlApi } from "../api/ControlApi.js"
import { type Connection, findConnection } from "./Connection.js"
import { describeIssues } from "./issues.js"

/**
 * The gateway answered, but not in the shape this CLI's schema expects (another version of svc). The
 * typed client fails with a bare ParseError both for that and for a request its schema refuses before
 * sending; this tells the two apart.
 */
export class UnexpectedResponse extends Data.TaggedError("UnexpectedResponse")<{
  readonly message: string
  readonly status: number | undefined
}> {}

const clip = (text: string) => (text.length > 200 ? `${text.slice(0, 199)}…` : text)

/**
 * The node host that the calls made inside `withNode(id)` go to: the client adds `?node=<id>` to each
 * request, and the gateway forwards the request to that node (whatever the route).
 */
export const CurrentNode = FiberRef.unsafeMake<string | undefined>(undefined)

/** Runs `self` with its control API calls sent to node `node` (none: this gateway's own browsers). */
export const withNode = (node: string | undefined) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  node === undefined ? self : Effect.locally(self, CurrentNode, node)

/**
 * The typed client of the control API at `baseUrl` with these credentials, and the status of the last
 * answer it received (for `--json` errors).
 */
export const makeControlClientAt = (connection: { readonly baseUrl: string; readonly headers: Readonly<Record<string, string>> }) =>
  Effect.gen(function*() {
    let lastStatus: number | undefined
    const client = yield* HttpApiClient.make(ControlApi, {
      baseUrl: connection.baseUrl,
      transformClient: (client) =>
        client.pipe(
          HttpClient.mapRequest(HttpClientRequest.setHeaders(connection.headers)),
          HttpClient.mapRequestEffect((request) =>
            Effect.map(FiberRef.get(CurrentNode), (node) => node === undefined ? request : HttpClientRequest.setUrlParam(request, "node", node))
          ),
          HttpClient.tap((response) => Effect.sync(() => void (lastStatus = response.status)))
        ),
      transformResponse: (decode) =>
        Effect.mapError(decode, (e) =>
          ParseResult.isParseError(e)
            ? new UnexpectedResponse({
              status: lastStatus,
              message: `the gateway's answer (HTTP ${lastStatus ?? "?"}) does not match this CLI's schema; is the gateway ` +
                `another version of svc? (${clip(describeIssues(ParseResult.ArrayFormatter.formatErrorSync(e)))})`
            })
            : e)
    })
    return { client, lastStatus: () => lastStatus }
  })

/** The typed client pointed at the gateway this state dir belongs to (see makeControlClientAt). */
export const makeControlClient = Effect.gen(function*() {
  const connection = yield* findConnection
  const { client, lastStatus } = yield* makeControlClientAt(connection)
  return { client, connection, lastStatus }
})

export type ControlClient = Effect.Effect.Success<typeof makeControlClient>["client"]
export type { Connection }
export type ControlClientEnv = FileSystem.FileSystem | HttpClient.HttpClient
