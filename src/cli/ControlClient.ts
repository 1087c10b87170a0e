import { FileSystem, HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect } from "effect"
import { ControlApi } from "../api/ControlApi.js"
import { type Connection, findConnection } from "./Connection.js"

/** The typed client of the control API, pointed at the gateway this state dir belongs to. */
export const makeControlClient = Effect.gen(function*() {
  const connection = yield* findConnection
  const client = yield* HttpApiClient.make(ControlApi, {
    baseUrl: connection.baseUrl,
    transformClient: HttpClient.mapRequest(HttpClientRequest.setHeaders(connection.headers))
  })
  return { client, connection }
})

export type ControlClient = Effect.Effect.Success<typeof makeControlClient>["client"]
export type { Connection }
export type ControlClientEnv = FileSystem.FileSystem | HttpClient.HttpClient
