import { Effect } from "effect"
import type { BrowserContext, Page } from "playwright-core"
import type { ProfileSettings, TabSettings } from "./EmulationSettings.js"
import { pageCall, type PageCallError } from "./PageCall.js"
import { networkConditions } from "./throttle.js"

// Putting settings on the browser: the pieces a setter sends, and all of a tab's or a profile's settings at
// once on a page object or context that has none of them yet (after the connection was re-made).

/** Sends one CDP command on the tab's own session (the one its overrides live on). */
export type Send = (what: string, method: string, params?: Record<string, unknown>) => Effect.Effect<unknown, PageCallError>

/** A setting that could not be applied again, by the keys it is stored under. */
export interface Lost<K> {
  /** What a person calls it: "time zone", "extra headers". */
  readonly setting: string
  readonly keys: ReadonlyArray<K>
  readonly reason: string
}

export const sendUserAgent = (send: Send, s: TabSettings, what: string) =>
  s.userAgent === undefined
    ? Effect.void
    : send(what, "Emulation.setUserAgentOverride", {
      userAgent: s.userAgent,
      // navigator.language(s) and Accept-Language follow the user agent override's acceptLanguage.
      ...(s.locale !== undefined ? { acceptLanguage: s.locale } : {})
    })

export const sendMetrics = (send: Send, s: TabSettings, what: string) =>
  s.size === undefined
    ? Effect.void
    : send(what, "Emulation.setDeviceMetricsOverride", {
      width: s.size.width,
      height: s.size.height,
      deviceScaleFactor: s.scale ?? 1,
      mobile: s.mobile ?? false,
      screenWidth: s.size.width,
      screenHeight: s.size.height
    })

export const sendTouch = (send: Send, s: TabSettings, what: string) =>
  s.touch === undefined
    ? Effect.void
    : send(what, "Emulation.setTouchEmulationEnabled", { enabled: s.touch, ...(s.touch ? { maxTouchPoints: 5 } : {}) })

/**
 * The tab's network throttle (or none), with the profile's offline state: conditions this session sets take
 * the place of the library's (its offline switch) while they throttle, so they carry that state too.
 */
export const sendNetwork = (send: Send, s: TabSettings, offline: boolean, what: string) =>
  send(what, "Network.emulateNetworkConditions", networkConditions(s.network, offline))

export const sendCpu = (send: Send, s: TabSettings, what: string) =>
  send(what, "Emulation.setCPUThrottlingRate", { rate: s.cpuRate ?? 1 })

interface Part<K> {
  readonly setting: string
  readonly keys: ReadonlyArray<K>
  readonly run: Effect.Effect<unknown, PageCallError>
}

/** Runs every part, one after the other; a part that fails does not stop the others. */
const each = <K>(parts: ReadonlyArray<Part<K> | undefined>): Effect.Effect<ReadonlyArray<Lost<K>>> =>
  Effect.map(
    Effect.forEach(parts.filter((p): p is Part<K> => p !== undefined), (part) =>
      Effect.map(Effect.either(part.run), (r) =>
        r._tag === "Left" ? { setting: part.setting, keys: part.keys, reason: r.left.message } : undefined)),
    (results) => results.filter((r): r is Lost<K> => r !== undefined)
  )

const WHAT = "re-applying emulation"

/** The library's emulateMedia options for what is emulated (null: the browser's own). */
export const mediaOptions = (s: TabSettings) => ({
  colorScheme: s.media ?? null,
  reducedMotion: s.reducedMotion ?? null,
  forcedColors: s.forcedColors ?? null,
  contrast: s.contrast ?? null,
  media: s.mediaType ?? null
})

/** Every setting of a tab, on a page object (and its own session) that has none of them. */
export const applyTab = (page: Page, send: Send, s: TabSettings, offline: boolean) =>
  each<keyof TabSettings>([
    s.media !== undefined || s.reducedMotion !== undefined || s.forcedColors !== undefined || s.contrast !== undefined ||
      s.mediaType !== undefined
      ? {
        setting: "media features",
        keys: ["media", "reducedMotion", "forcedColors", "contrast", "mediaType"],
        run: pageCall(WHAT, () => page.emulateMedia(mediaOptions(s)))
      }
      : undefined,
    s.timezone !== undefined
      ? { setting: "time zone", keys: ["timezone"], run: send(WHAT, "Emulation.setTimezoneOverride", { timezoneId: s.timezone }) }
      : undefined,
    s.locale !== undefined
      ? { setting: "locale", keys: ["locale"], run: send(WHAT, "Emulation.setLocaleOverride", { locale: s.locale }) }
      : undefined,
    s.userAgent !== undefined
      ? { setting: "user agent", keys: ["userAgent"], run: sendUserAgent(send, s, WHAT) }
      : undefined,
    s.size !== undefined
      ? { setting: "viewport", keys: ["size", "scale", "mobile"], run: sendMetrics(send, s, WHAT) }
      : undefined,
    s.touch !== undefined ? { setting: "touch", keys: ["touch"], run: sendTouch(send, s, WHAT) } : undefined,
    s.network !== undefined
      ? { setting: "network throttle", keys: ["network"], run: sendNetwork(send, s, offline, WHAT) }
      : undefined,
    s.cpuRate !== undefined ? { setting: "CPU throttle", keys: ["cpuRate"], run: sendCpu(send, s, WHAT) } : undefined
  ])

/** Every profile-wide setting, on a browser context that has none of them. */
export const applyProfile = (context: BrowserContext, s: ProfileSettings) =>
  each<keyof ProfileSettings>([
    s.offline === true
      ? { setting: "offline", keys: ["offline"], run: pageCall(WHAT, () => context.setOffline(true)) }
      : undefined,
    s.headers !== undefined
      ? { setting: "extra headers", keys: ["headers"], run: pageCall(WHAT, () => context.setExtraHTTPHeaders(s.headers!)) }
      : undefined,
    s.credentials !== undefined
      ? {
        setting: "HTTP credentials",
        keys: ["credentials"],
        run: pageCall(WHAT, () =>
          context.setHTTPCredentials({
            username: s.credentials!.user,
            password: s.credentials!.pass,
            ...(s.credentials!.origin !== undefined ? { origin: s.credentials!.origin } : {})
          }))
      }
      : undefined,
    s.geolocation !== undefined
      ? {
        setting: "geolocation",
        keys: ["geolocation"],
        run: Effect.zipRight(
          pageCall(WHAT, () => context.setGeolocation(geolocationOf(s.geolocation!))),
          pageCall(WHAT, () =>
            context.grantPermissions(["geolocation"], s.geolocation!.origin !== undefined ? { origin: s.geolocation!.origin } : {}))
        )
      }
      : undefined
  ])

export const geolocationOf = (g: { readonly latitude: number; readonly longitude: number; readonly accuracy?: number | undefined }) => ({
  latitude: g.latitude,
  longitude: g.longitude,
  ...(g.accuracy !== undefined ? { accuracy: g.accuracy } : {})
})

/** A reason with the given secrets (header values, a password) blanked, so it can be logged and shown. */
export const scrub = (reason: string, secrets: ReadonlyArray<string>): string =>
  secrets.filter((s) => s !== "").reduce((text, secret) => text.split(secret).join("***"), reason)

/** The values of a profile's settings that must never appear in a log or a message. */
export const secretsOf = (s: ProfileSettings | undefined): ReadonlyArray<string> => [
  ...Object.values(s?.headers ?? {}),
  ...(s?.credentials !== undefined ? [s.credentials.pass, s.credentials.user] : [])
]
