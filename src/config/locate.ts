import { Config, Data, Effect, Option } from "effect"
import * as os from "node:os"
import * as path from "node:path"
import { makeStatePaths, type StatePaths } from "./StatePaths.js"
import { DEFAULT_GATEWAY_PORT, type SvcConfig } from "./SvcConfig.js"

// Where svc lives, found the same way by the gateway (ConfigStore) and the CLI (Connection, `svc config`):
// the state dir from SVC_STATE_DIR, else ~/.svc; the gateway port from SVC_GATEWAY_PORT, else svc.json's
// gateway.port, else the default; the control server and the relay sit above it.

export const resolveStateDir = (env: { readonly SVC_STATE_DIR?: string | undefined }): string => {
  const fromEnv = env.SVC_STATE_DIR
  if (fromEnv !== undefined && fromEnv.trim() !== "") return path.resolve(fromEnv)
  return path.join(os.homedir(), ".svc")
}

export interface Ports {
  readonly gateway: number
  readonly control: number
  readonly relay: number
}

/** The control server sits two above the gateway port and the relay one above that. */
export const derivePorts = (gateway: number = DEFAULT_GATEWAY_PORT): Ports => ({
  gateway,
  control: gateway + 2,
  relay: gateway + 3
})

/** SVC_GATEWAY_PORT as a port, undefined when unset, or the message saying why it is not one. */
export const parsePortEnv = (raw: string | undefined): number | undefined | string => {
  if (raw === undefined || raw.trim() === "") return undefined
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 1 || n > 65532) {
    return `SVC_GATEWAY_PORT must be a whole number from 1 to 65532 (the control and relay ports sit 2 and 3 above it), got ${JSON.stringify(raw)}`
  }
  return n
}

/** SVC_GATEWAY_PORT is set to something that is not a usable port. */
export class PortEnvError extends Data.TaggedError("PortEnvError")<{ readonly message: string }> {}

const envVar = (name: string) =>
  Config.option(Config.string(name)).pipe(Effect.map(Option.getOrUndefined), Effect.orElseSucceed(() => undefined))

/** The state dir (SVC_STATE_DIR, else ~/.svc) and the paths under it. */
export const locateStatePaths: Effect.Effect<StatePaths> = Effect.map(
  envVar("SVC_STATE_DIR"),
  (dir) => makeStatePaths(resolveStateDir({ SVC_STATE_DIR: dir }))
)

/** svc.json in the state dir. */
export const locateConfigFile: Effect.Effect<string> = Effect.map(locateStatePaths, (paths) => paths.configFile)

/** The gateway port (SVC_GATEWAY_PORT, else gateway.port of `config`, else the default) and those above it. */
export const locatePorts = (config: SvcConfig): Effect.Effect<Ports, PortEnvError> =>
  Effect.flatMap(envVar("SVC_GATEWAY_PORT"), (raw) => {
    const fromEnv = parsePortEnv(raw)
    return typeof fromEnv === "string"
      ? Effect.fail(new PortEnvError({ message: fromEnv }))
      : Effect.succeed(derivePorts(fromEnv ?? config.gateway?.port ?? DEFAULT_GATEWAY_PORT))
  })
