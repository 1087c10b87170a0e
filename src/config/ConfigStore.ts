import { Data, Effect, Either, Ref } from "effect"
import * as crypto from "node:crypto"
import { editConfig } from "./edit.js"
import { type RawConfig, readConfigText } from "./file.js"
import { locatePorts, locateStatePaths, type Ports } from "./locate.js"
import { describeConfigError, parseConfigText } from "./parse.js"
import type { StatePaths } from "./StatePaths.js"
import type { SvcConfig } from "./SvcConfig.js"

export class ConfigError extends Data.TaggedError("ConfigError")<{ readonly message: string }> {}

export type GatewayAuth =
  | { readonly kind: "token"; readonly token: string; readonly password: string | undefined }
  | { readonly kind: "password"; readonly token: undefined; readonly password: string }

type Json = RawConfig

/**
 * svc.json: loaded and validated once at start-up, written back only for generated secrets and
 * created or deleted profiles. Writes are read-modify-write of the raw JSON, so keys this version does
 * not touch are preserved exactly.
 */
export class ConfigStore extends Effect.Service<ConfigStore>()("svc/ConfigStore", {
  effect: Effect.gen(function*() {
    const paths: StatePaths = yield* locateStatePaths
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

    const ports: Ports = yield* locatePorts(yield* Ref.get(ref)).pipe(
      Effect.mapError((e) => new ConfigError({ message: e.message }))
    )

    const lock = yield* Effect.makeSemaphore(1)

    /** Apply `edit` to the raw JSON on disk, validate the result, persist it and adopt it. */
    const update = (edit: (raw: Json) => void) =>
      editConfig(paths.configFile, edit).pipe(
        Effect.mapError((e) => new ConfigError({ message: `cannot update ${e.file}: ${e.detail}` })),
        Effect.tap((config) => Ref.set(ref, config)),
        lock.withPermits(1)
      )

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
