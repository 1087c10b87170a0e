import { Effect } from "effect"
import * as fs from "node:fs"
import { ConfigStore } from "../../config/ConfigStore.js"
import { Trash } from "./Trash.js"
import {
  BUILTIN_MANAGED,
  BUILTIN_RELAY,
  BUILTIN_SANDBOX,
  type BrowserProfileConfig,
  DEFAULT_COLOR,
  defaultProfileName,
  type SvcConfig
} from "../../config/SvcConfig.js"
import type { ProfileDriver, ProfileInfo } from "../../domain/browser.js"
import { InternalError, InvalidRequest, NotFound } from "../../domain/errors.js"
import { redactSecrets } from "../../domain/redact.js"

/** A profile as configured: how to reach its browser, and how it looks. */
export interface ResolvedProfile {
  readonly name: string
  readonly driver: ProfileDriver
  readonly builtIn: boolean
  readonly isDefault: boolean
  /**
   * Managed: the CDP port set in svc.json, or null: then Chromium chooses a free one at each launch (kept
   * out of svc.json; the running browser's status shows it).
   */
  readonly cdpPort: number | null
  /** Remote and relay: where CDP answers. Managed: http://127.0.0.1:<cdpPort> when a port is set. */
  readonly cdpUrl: string | null
  readonly attachOnly: boolean
  readonly color: string
  /** Managed only. */
  readonly userDataDir: string | null
}

/** A profile's CDP URL as it may be shown: its credentials and tokens hidden (svc.json keeps them). */
export const redactNullable = (url: string | null): string | null => (url === null ? null : redactSecrets(url))

/** A profile as the API shows it. */
export const profileInfo = (p: ResolvedProfile, running: boolean): ProfileInfo => ({
  name: p.name,
  driver: p.driver,
  builtIn: p.builtIn,
  isDefault: p.isDefault,
  cdpPort: p.cdpPort,
  cdpUrl: redactNullable(p.cdpUrl),
  attachOnly: p.attachOnly,
  color: p.color,
  running
})

const portOf = (url: string): number | null => {
  try {
    const u = new URL(url)
    if (u.port !== "") return Number(u.port)
    return u.protocol === "https:" || u.protocol === "wss:" ? 443 : 80
  } catch {
    return null
  }
}

export class Profiles extends Effect.Service<Profiles>()("svc/Profiles", {
  effect: Effect.gen(function*() {
    const store = yield* ConfigStore
    const trash = yield* Trash
    const relayUrl = `http://127.0.0.1:${store.ports.relay}`

    const defaultName = defaultProfileName

    const build = (config: SvcConfig, name: string): ResolvedProfile | undefined => {
      const entry: BrowserProfileConfig | undefined = config.browser?.profiles?.[name]
      const builtIn = name === BUILTIN_MANAGED || name === BUILTIN_RELAY || name === BUILTIN_SANDBOX
      if (!builtIn && entry === undefined) return undefined
      const color = entry?.color ?? config.browser?.color ?? DEFAULT_COLOR
      const isDefault = defaultName(config) === name
      if (name === BUILTIN_RELAY) {
        return {
          name, driver: "relay", builtIn, isDefault, cdpPort: store.ports.relay, cdpUrl: relayUrl,
          attachOnly: true, color, userDataDir: null
        }
      }
      // browser.cdpUrl points the built-in managed profile at a browser someone else runs.
      const remoteUrl = entry?.cdpUrl ?? (name === BUILTIN_MANAGED ? config.browser?.cdpUrl : undefined)
      if (remoteUrl !== undefined) {
        return {
          name, driver: "remote", builtIn, isDefault, cdpPort: portOf(remoteUrl), cdpUrl: remoteUrl,
          attachOnly: true, color, userDataDir: null
        }
      }
      const cdpPort = entry?.cdpPort ?? null
      return {
        name,
        driver: "managed",
        builtIn,
        isDefault,
        cdpPort,
        cdpUrl: cdpPort === null ? null : `http://127.0.0.1:${cdpPort}`,
        attachOnly: entry?.attachOnly ?? false,
        color,
        userDataDir: store.paths.userDataDir(name)
      }
    }

    const names = (config: SvcConfig) => [
      ...new Set([BUILTIN_MANAGED, BUILTIN_RELAY, BUILTIN_SANDBOX, ...Object.keys(config.browser?.profiles ?? {})])
    ]

    const list = Effect.map(store.get, (config) => names(config).map((n) => build(config, n)!))

    /** The named profile, or the default one. An unknown name is a 404 naming the known ones. */
    const resolve = (name: string | undefined) =>
      Effect.flatMap(store.get, (config) => {
        const wanted = name ?? defaultName(config)
        const profile = build(config, wanted)
        return profile !== undefined
          ? Effect.succeed(profile)
          : Effect.fail(
            new NotFound({
              message: `unknown browser profile "${wanted}"; known profiles: ${names(config).join(", ")}` +
                (name === undefined ? " (browser.defaultProfile names it)" : "")
            })
          )
      })

    const create = (request: {
      readonly name: string
      readonly color?: string | undefined
      readonly cdpUrl?: string | undefined
      readonly attachOnly?: boolean | undefined
    }) =>
      Effect.gen(function*() {
        const config = yield* store.get
        if (names(config).includes(request.name)) {
          return yield* new InvalidRequest({
            message: `profile "${request.name}" already exists; choose another name or delete it first`
          })
        }
        yield* store.update((raw) => {
          const browser = (raw.browser ??= {}) as Record<string, unknown>
          const profiles = (browser.profiles ??= {}) as Record<string, Record<string, unknown>>
          const entry: Record<string, unknown> = {}
          if (request.cdpUrl !== undefined) entry.cdpUrl = request.cdpUrl
          if (request.color !== undefined) entry.color = request.color
          if (request.attachOnly === true) entry.attachOnly = true
          profiles[request.name] = entry
        }).pipe(Effect.mapError((e) => new InternalError({ message: redactSecrets(e.message) })))
        return build(yield* store.get, request.name)!
      })

    /** Forget a user profile's config entry (the caller deals with its running browser and its data). */
    const forget = (name: string) =>
      Effect.gen(function*() {
        if (name === BUILTIN_MANAGED || name === BUILTIN_RELAY) {
          return yield* new InvalidRequest({ message: `"${name}" is a built-in profile and cannot be deleted` })
        }
        const profile = yield* resolve(name)
        yield* store.update((raw) => {
          const profiles = (raw.browser as Record<string, unknown> | undefined)?.profiles as
            | Record<string, unknown>
            | undefined
          if (profiles !== undefined) delete profiles[name]
        }).pipe(Effect.mapError((e) => new InternalError({ message: e.message })))
        return profile
      })

    /** A managed profile's data dir goes to the trash (answers where), once its browser has stopped. */
    const discardData = (profile: ResolvedProfile): Effect.Effect<string | null, InternalError> => {
      const dir = profile.driver === "managed" ? store.paths.profileDir(profile.name) : undefined
      return dir !== undefined && fs.existsSync(dir)
        ? trash.moveToTrash(dir, { stateDir: store.paths.stateDir })
        : Effect.succeed(null)
    }

    return { list, resolve, create, forget, discardData } as const
  }),
  dependencies: []
}) {}
