import { Effect, Either } from "effect"
import { createRequire } from "node:module"
import * as path from "node:path"
import type { CDPSession, Page } from "playwright-core"
import { InvalidRequest, NotImplemented } from "../../domain/errors.js"
import { checkViewport } from "../act/inputs.js"
import { pageCall } from "./PageCall.js"
import { AUTOMATION_UNAVAILABLE_MESSAGE } from "../pages/Playwright.js"

// Emulated conditions of a tab or of the whole profile.
//
// Profile-wide (the library's context setters; the default context over CDP is the whole profile, and
// tabs opened later get them too while the gateway stays connected): offline, extra headers, HTTP
// credentials, geolocation (with its permission).
// Per tab: media (the library's emulateMedia), and over a CDP session of our own that stays attached to the
// tab (an Emulation override lasts only as long as the session that set it): timezone, locale, device
// (user agent, metrics, touch) and viewport. A reconnect of the gateway to the browser drops all of them.

export type Scope = "tab" | "profile"

export interface Applied<A> {
  readonly scope: Scope
  readonly value: A
}

export type ColorScheme = "dark" | "light" | "no-preference" | "none"

export interface Geolocation {
  readonly latitude: number
  readonly longitude: number
  readonly accuracy?: number
  /** The origin granted the permission; the tab's origin when absent. */
  readonly origin?: string
}

export interface Credentials {
  readonly user: string
  readonly pass: string
  /** Only this origin gets them; any origin that asks when absent. */
  readonly origin?: string
}

export interface DeviceInfo {
  readonly name: string
  readonly userAgent: string
  readonly viewport: { readonly width: number; readonly height: number }
  readonly deviceScaleFactor: number
  readonly isMobile: boolean
  readonly hasTouch: boolean
}

type DeviceDescriptor = {
  readonly userAgent: string
  readonly viewport: { readonly width: number; readonly height: number }
  readonly screen?: { readonly width: number; readonly height: number }
  readonly deviceScaleFactor: number
  readonly isMobile: boolean
  readonly hasTouch: boolean
}

declare const __filename: string | undefined

/** The library's device presets, loaded at first use (never at start-up). */
let deviceTable: Record<string, DeviceDescriptor> | undefined
const loadDevices = (): Either.Either<Record<string, DeviceDescriptor>, NotImplemented> => {
  if (deviceTable !== undefined) return Either.right(deviceTable)
  const require = createRequire(typeof __filename === "string" ? __filename : path.join(process.cwd(), "package.json"))
  for (const name of ["playwright-core", "playwright"]) {
    try {
      const lib = require(name) as { devices?: Record<string, DeviceDescriptor> }
      if (lib.devices !== undefined) {
        deviceTable = lib.devices
        return Either.right(deviceTable)
      }
    } catch {
      // try the next
    }
  }
  return Either.left(new NotImplemented({ message: AUTOMATION_UNAVAILABLE_MESSAGE }))
}

/** The names of the library's device presets. */
export const deviceNames = (): Either.Either<ReadonlyArray<string>, NotImplemented> =>
  Either.map(loadDevices(), (t) => Object.keys(t))

const distance = (a: string, b: string): number => {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1))
      prev = cur
    }
  }
  return row[b.length]!
}

/** The presets closest to what was asked: containing it first, then by edit distance. */
export const closestDevices = (asked: string, names: ReadonlyArray<string>, n = 6): ReadonlyArray<string> => {
  const q = asked.toLowerCase().trim()
  return [...names]
    .map((name) => {
      const l = name.toLowerCase()
      const contains = l.includes(q) || (q.length > 0 && q.includes(l))
      return { name, score: (contains ? 0 : 1_000) + distance(q, l) }
    })
    .sort((a, b) => a.score - b.score || a.name.localeCompare(b.name))
    .slice(0, n)
    .map((x) => x.name)
}

export const findDevice = (name: string): Either.Either<DeviceInfo, InvalidRequest | NotImplemented> =>
  Either.flatMap(loadDevices(), (table) => {
    const key = name in table ? name : Object.keys(table).find((k) => k.toLowerCase() === name.trim().toLowerCase())
    const d = key !== undefined ? table[key] : undefined
    if (key === undefined || d === undefined) {
      const names = Object.keys(table)
      return Either.left(
        new InvalidRequest({
          message: `unknown device ${JSON.stringify(name)}; closest presets: ${
            closestDevices(name, names).map((x) => JSON.stringify(x)).join(", ")
          } (${names.length} in all, e.g. "iPhone 15", "Pixel 7", "iPad Pro 11", "Desktop Chrome"; the names are ` +
            "the automation library's device presets, matched without regard to case)"
        })
      )
    }
    return Either.right({
      name: key,
      userAgent: d.userAgent,
      viewport: { width: d.viewport.width, height: d.viewport.height },
      deviceScaleFactor: d.deviceScaleFactor,
      isMobile: d.isMobile,
      hasTouch: d.hasTouch
    })
  })

// ---------------------------------------------------------------------------------------------------------
// Checking input

const invalid = (message: string) => Either.left(new InvalidRequest({ message }))

/** The canonical IANA name of a time zone the runtime knows. */
export const checkTimezone = (zone: string): Either.Either<string, InvalidRequest> => {
  const z = zone.trim()
  if (z !== "" && !/[\u0000-\u001f]/.test(z)) {
    try {
      return Either.right(new Intl.DateTimeFormat("en-US", { timeZone: z }).resolvedOptions().timeZone)
    } catch {
      // fall through
    }
  }
  return invalid(`set timezone: ${JSON.stringify(zone)} is not an IANA time zone; give one such as Europe/Berlin, America/New_York or UTC`)
}

/** The canonical form of a BCP 47 language tag. */
export const checkLocale = (locale: string): Either.Either<string, InvalidRequest> => {
  const l = locale.trim()
  if (l !== "" && l.length <= 64) {
    try {
      const canonical = Intl.getCanonicalLocales(l)[0]
      if (canonical !== undefined) return Either.right(canonical)
    } catch {
      // fall through
    }
  }
  return invalid(`set locale: ${JSON.stringify(locale)} is not a BCP 47 language tag; give one such as en-US, de-DE or fr`)
}

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
// Headers the browser owns: setting them would break requests or could not take effect.
const FORBIDDEN_HEADERS = new Set(["host", "content-length", "connection", "transfer-encoding", "upgrade", "keep-alive", "te", "trailer"])

export const checkHeaders = (headers: Record<string, string>): Either.Either<Record<string, string>, InvalidRequest> => {
  const out: Record<string, string> = {}
  const entries = Object.entries(headers)
  if (entries.length > 50) return invalid(`set headers: at most 50 headers (got ${entries.length})`)
  for (const [name, value] of entries) {
    if (!HEADER_NAME.test(name)) return invalid(`set headers: ${JSON.stringify(name)} is not a valid header name`)
    if (FORBIDDEN_HEADERS.has(name.toLowerCase())) {
      return invalid(`set headers: ${name} is set by the browser itself and cannot be overridden`)
    }
    if (typeof value !== "string" || /[\r\n\u0000]/.test(value) || value.length > 8_192) {
      return invalid(`set headers: the value of ${name} must be a single-line string of at most 8192 characters`)
    }
    out[name] = value
  }
  return Either.right(out)
}

const originOf = (url: string): string | undefined => {
  try {
    const u = new URL(url)
    return u.protocol === "http:" || u.protocol === "https:" ? u.origin : undefined
  } catch {
    return undefined
  }
}

const checkOrigin = (origin: string, what: string): Either.Either<string, InvalidRequest> => {
  const o = originOf(origin)
  return o !== undefined
    ? Either.right(o)
    : invalid(`${what}: ${JSON.stringify(origin)} is not an http(s) origin; give one such as https://example.com`)
}

export const checkGeolocation = (g: Geolocation): Either.Either<Geolocation, InvalidRequest> => {
  const num = (n: unknown, lo: number, hi: number) => typeof n === "number" && Number.isFinite(n) && n >= lo && n <= hi
  if (!num(g.latitude, -90, 90) || !num(g.longitude, -180, 180)) {
    return invalid(
      `set geolocation: latitude must be from -90 to 90 and longitude from -180 to 180 (got ${g.latitude}, ${g.longitude}), ` +
        "e.g. 52.52 13.405"
    )
  }
  if (g.accuracy !== undefined && !num(g.accuracy, 0, 1e7)) return invalid("set geolocation: accuracy is metres, 0 or more")
  return Either.right(g)
}

// ---------------------------------------------------------------------------------------------------------
// The service

/** What we have set on a tab's own session, so one setting does not undo another. */
interface TabState {
  session?: Promise<CDPSession>
  userAgent?: string
  acceptLanguage?: string
  scale: number
  mobile: boolean
  size?: { width: number; height: number }
}

const makeEmulation = () => {
  const tabs = new WeakMap<Page, TabState>()
  const stateOf = (page: Page): TabState => {
    let s = tabs.get(page)
    if (s === undefined) {
      s = { scale: 1, mobile: false }
      tabs.set(page, s)
    }
    return s
  }

  /** Sends on the tab's own session, made once and kept attached (a closed one is replaced once). */
  const send = (page: Page, what: string, method: string, params: Record<string, unknown> = {}) =>
    pageCall(what, async () => {
      const s = stateOf(page)
      for (let attempt = 0; ; attempt++) {
        s.session ??= page.context().newCDPSession(page)
        const promise = s.session
        try {
          const session = await promise
          return await (session.send as (m: string, p: Record<string, unknown>) => Promise<unknown>)(method, params)
        } catch (e) {
          if (attempt > 0 || !/closed|detached|Session/i.test(String(e))) throw e
          if (s.session === promise) delete s.session
        }
      }
    })

  const applyUserAgent = (page: Page, what: string) =>
    Effect.gen(function*() {
      const s = stateOf(page)
      const userAgent = s.userAgent ?? (yield* pageCall(what, () => page.evaluate("navigator.userAgent") as Promise<string>))
      yield* send(page, what, "Emulation.setUserAgentOverride", {
        userAgent,
        ...(s.acceptLanguage !== undefined ? { acceptLanguage: s.acceptLanguage } : {})
      })
    })

  const applyMetrics = (page: Page, what: string) =>
    Effect.gen(function*() {
      const s = stateOf(page)
      if (s.size === undefined) return
      yield* send(page, what, "Emulation.setDeviceMetricsOverride", {
        width: s.size.width,
        height: s.size.height,
        deviceScaleFactor: s.scale,
        mobile: s.mobile,
        screenWidth: s.size.width,
        screenHeight: s.size.height
      })
    })

  const offline = (page: Page, on: boolean) =>
    Effect.as(pageCall("set offline", () => page.context().setOffline(on)), { scope: "profile", value: on } as Applied<boolean>)

  const headers = (page: Page, raw: Record<string, string>) =>
    Effect.gen(function*() {
      const h = yield* checkHeaders(raw)
      yield* pageCall("set headers", () => page.context().setExtraHTTPHeaders(h))
      return { scope: "profile", value: h } as Applied<Record<string, string>>
    })

  const credentials = (page: Page, c: Credentials | null) =>
    Effect.gen(function*() {
      if (c === null) {
        yield* pageCall("set credentials", () => page.context().setHTTPCredentials(null))
        return { scope: "profile", value: null } as Applied<{ user: string; origin: string | undefined } | null>
      }
      if (c.user === "" || /[\u0000-\u001f:]/.test(c.user)) {
        return yield* new InvalidRequest({ message: "set credentials: give a user name without control characters or `:`, and a password" })
      }
      const origin = c.origin !== undefined ? yield* checkOrigin(c.origin, "set credentials") : undefined
      yield* pageCall("set credentials", () =>
        page.context().setHTTPCredentials({
          username: c.user,
          password: c.pass,
          ...(origin !== undefined ? { origin } : {})
        }))
      return { scope: "profile", value: { user: c.user, origin } } as Applied<{ user: string; origin: string | undefined } | null>
    })

  const geolocation = (page: Page, g: Geolocation | null) =>
    Effect.gen(function*() {
      const ctx = page.context()
      if (g === null) {
        yield* pageCall("set geolocation", () => ctx.setGeolocation(null))
        yield* pageCall("set geolocation", () => ctx.clearPermissions())
        return { scope: "profile", value: null } as Applied<Geolocation | null>
      }
      const ok = yield* checkGeolocation(g)
      const origin = ok.origin !== undefined ? yield* checkOrigin(ok.origin, "set geolocation") : originOf(page.url())
      yield* pageCall("set geolocation", () =>
        ctx.setGeolocation({
          latitude: ok.latitude,
          longitude: ok.longitude,
          ...(ok.accuracy !== undefined ? { accuracy: ok.accuracy } : {})
        }))
      yield* pageCall("set geolocation", () =>
        ctx.grantPermissions(["geolocation"], origin !== undefined ? { origin } : {}))
      const value: Geolocation = {
        latitude: ok.latitude,
        longitude: ok.longitude,
        ...(ok.accuracy !== undefined ? { accuracy: ok.accuracy } : {}),
        ...(origin !== undefined ? { origin } : {})
      }
      return { scope: "profile", value } as Applied<Geolocation | null>
    })

  const media = (page: Page, scheme: string) =>
    Effect.gen(function*() {
      if (scheme !== "dark" && scheme !== "light" && scheme !== "no-preference" && scheme !== "none") {
        return yield* new InvalidRequest({
          message: `set media: ${JSON.stringify(scheme)} is not a colour scheme; give dark, light, no-preference, or none (stop emulating)`
        })
      }
      yield* pageCall("set media", () => page.emulateMedia({ colorScheme: scheme === "none" ? null : scheme }))
      return { scope: "tab", value: scheme } as Applied<ColorScheme>
    })

  const timezone = (page: Page, zone: string) =>
    Effect.gen(function*() {
      const z = yield* checkTimezone(zone)
      // An override from this session is replaced by resetting it first (Chromium refuses a second one).
      yield* Effect.ignore(send(page, "set timezone", "Emulation.setTimezoneOverride", { timezoneId: "" }))
      yield* send(page, "set timezone", "Emulation.setTimezoneOverride", { timezoneId: z })
      return { scope: "tab", value: z } as Applied<string>
    })

  const locale = (page: Page, tag: string) =>
    Effect.gen(function*() {
      const l = yield* checkLocale(tag)
      yield* Effect.ignore(send(page, "set locale", "Emulation.setLocaleOverride", {}))
      yield* send(page, "set locale", "Emulation.setLocaleOverride", { locale: l })
      // navigator.language(s) and Accept-Language follow the user agent override's acceptLanguage.
      stateOf(page).acceptLanguage = l
      yield* applyUserAgent(page, "set locale")
      return { scope: "tab", value: l } as Applied<string>
    })

  const device = (page: Page, name: string) =>
    Effect.gen(function*() {
      const d = yield* findDevice(name)
      const s = stateOf(page)
      s.userAgent = d.userAgent
      s.scale = d.deviceScaleFactor
      s.mobile = d.isMobile
      s.size = { ...d.viewport }
      yield* applyUserAgent(page, "set device")
      yield* applyMetrics(page, "set device")
      yield* send(page, "set device", "Emulation.setTouchEmulationEnabled", {
        enabled: d.hasTouch,
        ...(d.hasTouch ? { maxTouchPoints: 5 } : {})
      })
      return { scope: "tab", value: d } as Applied<DeviceInfo>
    })

  const viewport = (page: Page, width: number, height: number) =>
    Effect.gen(function*() {
      const size = yield* Either.mapLeft(
        checkViewport(width, height),
        (e) => new InvalidRequest({ message: e.message.replace(/^resize:/, "set viewport:").replace("svc browser resize", "svc browser set viewport") })
      )
      stateOf(page).size = size
      yield* applyMetrics(page, "set viewport")
      return { scope: "tab", value: size } as Applied<{ width: number; height: number }>
    })

  return { offline, headers, credentials, geolocation, media, timezone, locale, device, viewport } as const
}

/** Network, location, locale and device emulation, per tab or per profile (see above). Needs nothing. */
export class Emulation extends Effect.Service<Emulation>()("svc/Emulation", {
  sync: makeEmulation
}) {}

