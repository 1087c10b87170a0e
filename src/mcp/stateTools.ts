import { Effect, Schema } from "effect"
import { loadedStateLine, savedStateLine } from "../client/storageState.js"
import { NetworkPreset } from "../domain/browserState.js"
import { defineTool, field, optionalField } from "./tool.js"

// svc's own tools beyond Playwright MCP's set: the browser and its profiles, the viewport, cookies, web
// storage, emulation and downloads. Each is one call of the control API.

export const status = defineTool({
  name: "browser_status",
  title: "Browser status",
  description: "The profile's browser: running or not, its pid, CDP port, executable, headless, and whether the " +
    "automation library is there.",
  input: Schema.Struct({}),
  readOnly: true,
  run: (_, env) => env.client.browser.status({ urlParams: env.query }).pipe(Effect.map((s) => JSON.stringify(s, null, 2)))
})

export const profiles = defineTool({
  name: "browser_profiles",
  title: "Browser profiles",
  description: "The browser profiles: name, whether it is the default, running, CDP port.",
  input: Schema.Struct({}),
  readOnly: true,
  run: (_, env) =>
    env.client.browser.profiles({ urlParams: env.query }).pipe(
      Effect.map((r) =>
        r.profiles.map((p) =>
          `${p.name}${p.isDefault ? " (default)" : ""}: ${p.running ? "running" : "stopped"}, ${p.driver}${
            p.cdpPort !== null ? `, CDP port ${p.cdpPort}` : ""
          }`
        ).join("\n")
      )
    )
})

export const resize = defineTool({
  name: "browser_resize",
  title: "Resize the viewport",
  description: "Set the current tab's viewport size in CSS pixels.",
  input: Schema.Struct({
    width: field(Schema.Int, "CSS pixels, 100 to 10000"),
    height: field(Schema.Int, "CSS pixels, 100 to 10000")
  }),
  readOnly: false,
  idempotent: true,
  run: (input, env) =>
    env.client.act.act({ urlParams: env.query, payload: { kind: "resize", ...input } as never }).pipe(
      Effect.as(`Resized the viewport to ${input.width}×${input.height}`)
    )
})

export const cookies = defineTool({
  name: "browser_cookies",
  title: "Cookies",
  description: "The profile's cookies: get (the default) lists them (for the current tab's URL), set sets one " +
    "(name, value, url), clear removes them all.",
  input: Schema.Struct({
    action: optionalField(Schema.Literal("get", "set", "clear"), "get (the default), set or clear"),
    name: optionalField(Schema.String.pipe(Schema.minLength(1)), "set: the cookie's name"),
    value: optionalField(Schema.String, "set: its value"),
    url: optionalField(Schema.String.pipe(Schema.minLength(1)), "set: the URL it belongs to")
  }),
  readOnly: false,
  destructive: true,
  run: (input, env) => {
    switch (input.action ?? "get") {
      case "get":
        return env.client.state.cookies({ urlParams: env.query }).pipe(
          Effect.map((r) =>
            r.cookies.length === 0
              ? "No cookies."
              : r.cookies.map((c) => `${c.name}=${c.value} (${c.domain}${c.path})`).join("\n")
          )
        )
      case "set":
        return env.client.state.setCookie({
          urlParams: env.query,
          payload: { name: input.name ?? "", value: input.value ?? "", url: input.url ?? "" }
        }).pipe(Effect.map((r) => r.done))
      case "clear":
        return env.client.state.clearCookies({ urlParams: env.query, payload: {} }).pipe(Effect.map((r) => r.done))
    }
  }
})

const sentence = (line: string) => `${line.charAt(0).toUpperCase()}${line.slice(1)}`

export const storageState = defineTool({
  name: "browser_storage_state",
  title: "Save storage state",
  description: "Save the profile's cookies and each origin's local storage to a file (in svc's states root), to " +
    "sign in again later with browser_set_storage_state. The file holds sign-ins: it is owner-only.",
  input: Schema.Struct({
    filename: optionalField(
      Schema.String.pipe(Schema.minLength(1)),
      "the file's name in the states root (default storage-state-<time>.json); never over an existing file"
    )
  }),
  // It writes a new file, never one there: nothing in the browser changes.
  readOnly: true,
  run: (input, env) =>
    env.client.state.saveStorageState({ urlParams: env.query, payload: input.filename !== undefined ? { filename: input.filename } : {} })
      .pipe(Effect.map((r) => sentence(savedStateLine(r))))
})

export const setStorageState = defineTool({
  name: "browser_set_storage_state",
  title: "Restore storage state",
  description: "Replace the profile's cookies and local storage with a state saved by browser_storage_state (what " +
    "was there is cleared first).",
  input: Schema.Struct({
    filename: field(Schema.String.pipe(Schema.minLength(1)), "the saved file's name in the states root, or its full path there")
  }),
  readOnly: false,
  destructive: true,
  run: (input, env) =>
    env.client.state.loadStorageState({ urlParams: env.query, payload: { filename: input.filename } })
      .pipe(Effect.map((r) => sentence(loadedStateLine(r))))
})

export const storage = defineTool({
  name: "browser_storage",
  title: "Web storage",
  description: "localStorage (the default) or sessionStorage of the current tab's origin: get (the default: all, or " +
    "one key), set a key, clear.",
  input: Schema.Struct({
    kind: optionalField(Schema.Literal("local", "session"), "local (the default) or session"),
    action: optionalField(Schema.Literal("get", "set", "clear"), "get (the default), set or clear"),
    key: optionalField(Schema.String.pipe(Schema.minLength(1)), "get: only this key; set: the key"),
    value: optionalField(Schema.String, "set: the value")
  }),
  readOnly: false,
  destructive: true,
  run: (input, env) => {
    const path = { kind: input.kind ?? "local" }
    switch (input.action ?? "get") {
      case "get":
        return env.client.state.storage({ path, urlParams: env.query }).pipe(
          Effect.map((r) => {
            const entries = Object.entries(r.entries).filter(([k]) => input.key === undefined || k === input.key)
            return entries.length === 0 ? "Empty." : entries.map(([k, v]) => `${k}=${v}`).join("\n")
          })
        )
      case "set":
        return env.client.state.setStorage({
          path,
          urlParams: env.query,
          payload: { key: input.key ?? "", value: input.value ?? "" }
        }).pipe(Effect.map((r) => r.done))
      case "clear":
        return env.client.state.clearStorage({ path, urlParams: env.query, payload: {} }).pipe(Effect.map((r) => r.done))
    }
  }
})

export const networkState = defineTool({
  name: "browser_network_state_set",
  title: "Set network state",
  description: "Take the profile's browser offline (every request fails) or back online, as Playwright MCP's tool does " +
    "(browser_emulate's offline does the same).",
  input: Schema.Struct({ state: field(Schema.Literal("online", "offline"), "offline to cut the network, online to restore it") }),
  readOnly: false,
  run: (input, env) =>
    env.client.state.offline({ urlParams: env.query, payload: { offline: input.state === "offline" } }).pipe(Effect.map((r) => r.done))
})

/** A media feature's value, or none (or null, as Playwright MCP says it) for the browser's own. */
const feature = <const L extends ReadonlyArray<string>>(...values: L) => Schema.NullOr(Schema.Literal(...values, "none"))
const orNone = <A extends string>(v: A | null | undefined): A | "none" | undefined => (v === null ? "none" : v)

export const emulateMedia = defineTool({
  name: "browser_emulate_media",
  title: "Emulate media features",
  description: "Emulate CSS media features for the tab: colour scheme, reduced motion, forced colours, contrast, and " +
    "the media type (print shows the page as printed). Those left out stay as they are; none (or null) gives one back " +
    "to the browser.",
  input: Schema.Struct({
    colorScheme: optionalField(feature("dark", "light", "no-preference"), "prefers-color-scheme"),
    reducedMotion: optionalField(feature("reduce", "no-preference"), "prefers-reduced-motion"),
    forcedColors: optionalField(feature("active"), "forced-colors"),
    contrast: optionalField(feature("more", "no-preference"), "prefers-contrast"),
    media: optionalField(feature("screen", "print"), "the CSS media type")
  }),
  readOnly: false,
  run: (input, env) => {
    const payload = {
      ...(input.colorScheme !== undefined ? { media: orNone(input.colorScheme) } : {}),
      ...(input.reducedMotion !== undefined ? { reducedMotion: orNone(input.reducedMotion) } : {}),
      ...(input.forcedColors !== undefined ? { forcedColors: orNone(input.forcedColors) } : {}),
      ...(input.contrast !== undefined ? { contrast: orNone(input.contrast) } : {}),
      ...(input.media !== undefined ? { type: orNone(input.media) } : {})
    }
    return env.client.state.media({ urlParams: env.query, payload }).pipe(Effect.map((r) => r.done))
  }
})

export const throttle = defineTool({
  name: "browser_throttle",
  title: "Throttle network and CPU",
  description: "Slow the tab's network and CPU, to see a page as it loads on a phone or a slow connection: a network " +
    "preset (slow-3g, fast-3g, slow-4g, fast-4g; none: full speed), or latencyMs, downloadKbps, uploadKbps by hand, " +
    "and cpu (how many times slower, 1 to 20; 1: its own speed). What is left out stays as it is.",
  input: Schema.Struct({
    network: optionalField(NetworkPreset, "a network preset, or none for the full speed"),
    latencyMs: optionalField(Schema.Number.pipe(Schema.between(0, 60_000)), "milliseconds added to each request"),
    downloadKbps: optionalField(Schema.Number.pipe(Schema.positive()), "download bandwidth in kbit/s"),
    uploadKbps: optionalField(Schema.Number.pipe(Schema.positive()), "upload bandwidth in kbit/s"),
    cpu: optionalField(Schema.Number.pipe(Schema.between(1, 20)), "how many times slower the CPU runs (1: its own speed)")
  }),
  readOnly: false,
  idempotent: true,
  run: (input, env) => env.client.state.throttle({ urlParams: env.query, payload: input }).pipe(Effect.map((r) => r.done))
})

const Geolocation = Schema.Struct({
  latitude: field(Schema.Number.pipe(Schema.between(-90, 90)), "degrees north"),
  longitude: field(Schema.Number.pipe(Schema.between(-180, 180)), "degrees east"),
  accuracy: optionalField(Schema.Number.pipe(Schema.nonNegative()), "in metres")
})
const Credentials = Schema.Struct({
  user: field(Schema.String.pipe(Schema.minLength(1)), "the user name"),
  pass: field(Schema.String, "the password"),
  origin: optionalField(Schema.String, "only this origin gets them (any origin that asks, when left out)")
})
const SETTINGS = "offline, media, timezone, locale, device, headers, geolocation or credentials"

export const emulate = defineTool({
  name: "browser_emulate",
  title: "Emulation",
  description: "Change one emulation setting per call: offline, media (colour scheme), timezone, locale, device " +
    "(a Playwright device name), headers (sent with every request; {} removes them), geolocation (the position the " +
    "page is told, with its permission) or credentials (HTTP authentication). offline, headers, geolocation and " +
    "credentials apply to the whole profile, the rest to the tab; each stays until changed. \"none\" stops emulating " +
    "one: the browser's own comes back.",
  input: Schema.Struct({
    offline: optionalField(Schema.Boolean, "cut the network (true) or restore it"),
    media: optionalField(Schema.Literal("dark", "light", "no-preference", "none"), "prefers-color-scheme (none: stop emulating)"),
    timezone: optionalField(Schema.String.pipe(Schema.minLength(1)), "an IANA time zone, e.g. Europe/Paris (none: stop emulating)"),
    locale: optionalField(Schema.String.pipe(Schema.minLength(1)), "e.g. fr-FR (none: stop emulating)"),
    device: optionalField(Schema.String.pipe(Schema.minLength(1)), "e.g. iPhone 13 (none: stop emulating)"),
    headers: optionalField(Schema.Record({ key: Schema.String, value: Schema.String }), "extra request headers ({}: none)"),
    geolocation: optionalField(Schema.Union(Geolocation, Schema.Literal("none")), "a position (none: stop emulating)"),
    credentials: optionalField(Schema.Union(Credentials, Schema.Literal("none")), "HTTP credentials (none: clear them)")
  }),
  readOnly: false,
  idempotent: true,
  run: (input, env) => {
    const q = env.query
    const c = env.client.state
    const given = Object.keys(input).filter((k) => (input as Record<string, unknown>)[k] !== undefined)
    if (given.length !== 1) {
      return Effect.fail({ message: `invalid arguments for browser_emulate: give exactly one setting (${SETTINGS}), got ${given.length === 0 ? "none" : given.join(", ")}` })
    }
    const done = Effect.map((r: { readonly done: string }) => r.done)
    if (input.offline !== undefined) return c.offline({ urlParams: q, payload: { offline: input.offline } }).pipe(done)
    if (input.media !== undefined) return c.media({ urlParams: q, payload: { media: input.media } }).pipe(done)
    if (input.timezone !== undefined) return c.timezone({ urlParams: q, payload: { timezone: input.timezone } }).pipe(done)
    if (input.locale !== undefined) return c.locale({ urlParams: q, payload: { locale: input.locale } }).pipe(done)
    if (input.headers !== undefined) return c.headers({ urlParams: q, payload: { headers: input.headers } }).pipe(done)
    if (input.geolocation !== undefined) {
      const payload = input.geolocation === "none" ? { clear: true } : input.geolocation
      return c.geolocation({ urlParams: q, payload }).pipe(done)
    }
    if (input.credentials !== undefined) {
      const payload = input.credentials === "none" ? { clear: true } : input.credentials
      return c.credentials({ urlParams: q, payload }).pipe(done)
    }
    return c.device({ urlParams: q, payload: { name: input.device ?? "" } }).pipe(done)
  }
})

export const download = defineTool({
  name: "browser_download",
  title: "Download",
  description: "Click an element (ref) that starts a download and save the file in svc's downloads root as filename; " +
    "answers its path. Without ref, wait for a download the page starts.",
  input: Schema.Struct({
    filename: field(Schema.String.pipe(Schema.minLength(1)), "the file name to save it as"),
    ref: optionalField(Schema.String.pipe(Schema.minLength(1)), "the element that starts the download"),
    target: optionalField(Schema.String.pipe(Schema.minLength(1)), "the same as ref")
  }),
  readOnly: false,
  run: (input, env) => {
    const ref = input.ref ?? input.target
    const call = ref !== undefined
      ? env.client.files.download({ urlParams: env.query, payload: { ref, filename: input.filename } })
      : env.client.files.waitDownload({ urlParams: env.query, payload: { filename: input.filename } })
    return call.pipe(Effect.map((r) => `Downloaded ${r.suggestedFilename} to ${r.path} (${r.bytes} bytes)`))
  }
})
