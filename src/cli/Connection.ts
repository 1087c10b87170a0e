import { FileSystem } from "@effect/platform"
import { Config, Data, Effect, Either, Option } from "effect"
import { derivePorts, parsePortEnv } from "../config/ports.js"
import { makeStatePaths, resolveStateDir } from "../config/StatePaths.js"
import { DEFAULT_GATEWAY_PORT } from "../config/SvcConfig.js"
import { describeConfigError, parseConfigText } from "../config/parse.js"

/** Where the control server is and how to authenticate, found from the same state dir and env as the gateway. */
export interface Connection {
  readonly baseUrl: string
  readonly controlPort: number
  readonly headers: Readonly<Record<string, string>>
  readonly configFile: string
}

export class ConnectionError extends Data.TaggedError("ConnectionError")<{ readonly message: string }> {}

const envVar = (name: string) =>
  Config.option(Config.string(name)).pipe(Effect.map(Option.getOrUndefined), Effect.orElseSucceed(() => undefined))

export const findConnection: Effect.Effect<Connection, ConnectionError, FileSystem.FileSystem> = Effect.gen(
  function*() {
    const fs = yield* FileSystem.FileSystem
    const env = { SVC_STATE_DIR: yield* envVar("SVC_STATE_DIR"), SVC_GATEWAY_PORT: yield* envVar("SVC_GATEWAY_PORT") }
    const paths = makeStatePaths(resolveStateDir(env))
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
    const envPort = parsePortEnv(env.SVC_GATEWAY_PORT)
    if (typeof envPort === "string") return yield* new ConnectionError({ message: envPort })
    const ports = derivePorts(envPort ?? config.gateway?.port ?? DEFAULT_GATEWAY_PORT)
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
