import { Either } from "effect"
import { createRequire } from "node:module"
import * as path from "node:path"
import { InvalidRequest, NotImplemented } from "../../domain/errors.js"
import { AUTOMATION_UNAVAILABLE_MESSAGE } from "../pages/Playwright.js"

// What a user may ask to emulate, checked and put in canonical form before anything is sent to the browser:
// time zones, locales, headers, origins, positions, and the automation library's device presets.

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

/** A device, time zone or locale of "none": stop emulating it (the browser's own comes back). */
export const isNone = (value: string): boolean => value.trim().toLowerCase() === "none"

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

/**
 * The canonical form of a BCP 47 language tag whose language ICU has data for. A well-formed tag of no known
 * language ("xxxxx") is refused here: older browsers refused it, Chromium 150 takes it and formats dates and
 * numbers by no language's conventions (1970-01-01) while the page reads "xxxxx" as its locale.
 */
export const checkLocale = (locale: string): Either.Either<string, InvalidRequest> => {
  const l = locale.trim()
  if (l !== "" && l.length <= 64) {
    try {
      const canonical = Intl.getCanonicalLocales(l)[0]
      if (canonical !== undefined && Intl.DateTimeFormat.supportedLocalesOf(canonical).length === 0) {
        return invalid(`set locale: ${JSON.stringify(locale)} names no language the browser has data for; ` +
          "give one such as en-US, de-DE or fr")
      }
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

export const originOf = (url: string): string | undefined => {
  try {
    const u = new URL(url)
    return u.protocol === "http:" || u.protocol === "https:" ? u.origin : undefined
  } catch {
    return undefined
  }
}

export const checkOrigin = (origin: string, what: string): Either.Either<string, InvalidRequest> => {
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
