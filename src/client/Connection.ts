import { FileSystem } from "@effect/platform"
import { Data, Effect, Either } from "effect"
import { locatePorts, locateStatePaths } from "../config/locate.js"
import { describeConfigError, parseConfigText } from "../config/parse.js"

/** Where the control server is and how to authenticate, found from the same state dir and env as the gateway. */
export interface Connection {
  readonly baseUrl: string
  readonly controlPort: number
  readonly headers: Readonly<Record<string, string>>
  readonly configFile: string
}

export class ConnectionError extends Data.TaggedError("ConnectionError")<{ readonly message: string }> {}

export const findConnection: Effect.Effect<Connection, ConnectionError, FileSystem.FileSystem> = Effect.gen(
  function*() {
    const fs = yield* FileSystem.FileSystem
    const paths = yield* locateStatePaths
    const text = yield* fs.readFileString(paths.configFile).pipe(
      Effect.catchAll((e) =>
        e._tag === "SystemError" && e.reason === "NotFound"
          ? Effect.succeed(undefined)
          : Effect.fail(new ConnectionError({ message: `cannot read ${paths.configFile}: ${e.message}` }))
      )
    )
    const parsed = parseConfigText(text ?? "", paths.configFile)
    if (Either.isLeft(parsed)) {
      return yield* new ConnectionError({ message: describeConfigError(parsed.left) })
    }
    const config = parsed.right
    const ports = yield* locatePorts(config).pipe(Effect.mapError((e) => new ConnectionError({ message: e.message })))
    const auth = config.gateway?.auth
    let headers: Record<string, string>
    if (auth?.token !== undefined) headers = { authorization: `Bearer ${auth.token}` }
    else if (auth?.password !== undefined) headers = { "x-svc-password": auth.password }
    else {
      return yield* new ConnectionError({
        message:
          `the gateway is not running, or has never run with this state dir (${paths.stateDir}): ` +
          "no gateway token in svc.json yet; start it with `svc gateway run`"
      })
    }
    return {
      baseUrl: `http://127.0.0.1:${ports.control}`,
      controlPort: ports.control,
      headers,
      configFile: paths.configFile
    }
  }
)
