import { Config, Data, Effect, Either, Option, Ref } from "effect"
import * as crypto from "node:crypto"
import { parseRaw, type RawConfig, readConfigText, writeConfigAtomic } from "./file.js"
import { describeConfigError, parseConfigText } from "./parse.js"
import { derivePorts, parsePortEnv, type Ports } from "./ports.js"
import { makeStatePaths, resolveStateDir, type StatePaths } from "./StatePaths.js"
import { DEFAULT_GATEWAY_PORT, type SvcConfig } from "./SvcConfig.js"

export class ConfigError extends Data.TaggedError("ConfigError")<{ readonly message: string }> {}

export type GatewayAuth =
  | { readonly kind: "token"; readonly token: string; readonly password: string | undefined }
  | { readonly kind: "password"; readonly token: undefined; readonly password: string }

type Json = RawConfig

const envVar = (name: string) =>
  Config.option(Config.string(name)).pipe(Effect.map(Option.getOrUndefined), Effect.orElseSucceed(() => undefined))

/**
 * svc.json: loaded and validated once at start-up, written back only for generated secrets and
 * created or deleted profiles. Writes are read-modify-write of the raw JSON, so keys this version does
 * not touch are preserved exactly.
 */
export class ConfigStore extends Effect.Service<ConfigStore>()("svc/ConfigStore", {
  effect: Effect.gen(function*() {
    const stateDir = resolveStateDir({ SVC_STATE_DIR: yield* envVar("SVC_STATE_DIR") })
    const paths: StatePaths = makeStatePaths(stateDir)
    const load = Effect.try({
      try: () => readConfigText(paths.configFile),
      catch: (e) => new ConfigError({ message: `cannot read ${paths.configFile}: ${(e as Error).message}` })
    }).pipe(
      Effect.flatMap((text) =>
        Either.match(parseConfigText(text, paths.configFile), {
          onLeft: (e) => Effect.fail(new ConfigError({ message: describeConfigError(e) })),
          onRight: Effect.succeed
        })
      )
    )
    const ref = yield* Ref.make<SvcConfig>(yield* load)

    const envPort = parsePortEnv(yield* envVar("SVC_GATEWAY_PORT"))
    if (typeof envPort === "string") return yield* new ConfigError({ message: envPort })
    const initial = yield* Ref.get(ref)
    const ports: Ports = derivePorts(envPort ?? initial.gateway?.port ?? DEFAULT_GATEWAY_PORT)

    const lock = yield* Effect.makeSemaphore(1)

    /** Apply `edit` to the raw JSON on disk, validate the result, persist it and adopt it. */
    const update = (edit: (raw: Json) => void) =>
      Effect.try({
        try: () => {
          const raw = parseRaw(readConfigText(paths.configFile))
          edit(raw)
          const next = JSON.stringify(raw, null, 2) + "\n"
          const parsed = parseConfigText(next, paths.configFile)
          if (Either.isLeft(parsed)) throw new Error(describeConfigError(parsed.left))
          writeConfigAtomic(paths.configFile, next)
          return parsed.right
        },
        catch: (e) => new ConfigError({ message: `cannot update ${paths.configFile}: ${(e as Error).message}` })
      }).pipe(Effect.tap((config) => Ref.set(ref, config)), lock.withPermits(1))

    /** The gateway's credentials; generates and persists a token when none is configured. */
    const ensureAuth = Effect.gen(function*() {
      const auth = (yield* Ref.get(ref)).gateway?.auth
      if (auth?.token !== undefined) {
        return { kind: "token", token: auth.token, password: auth.password, generated: false } as const
      }
      if (auth?.password !== undefined) {
        return { kind: "password", token: undefined, password: auth.password, generated: false } as const
      }
      const token = crypto.randomBytes(24).toString("base64url") // 32 characters
      yield* update((raw) => {
        const gateway = (raw.gateway ??= {}) as Json
        const a = (gateway.auth ??= {}) as Json
        a.token = token
      })
      return { kind: "token", token, password: undefined, generated: true } as const
    })

    return {
      paths,
      ports,
      get: Ref.get(ref),
      update,
      ensureAuth
    } as const
  })
}) {}
