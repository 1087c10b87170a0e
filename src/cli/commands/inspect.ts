import { Args, Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { TargetId } from "../../domain/browser.js"
import { requestDetailText } from "../../client/requestDetail.js"
import { callControl, CliFailure, commonOptions, given } from "./shared.js"

// Inspection, files and browser state: thin commands over the control API.

const targetIdOption = Options.text("target-id").pipe(
  Options.withSchema(TargetId),
  Options.withDescription("the tab (default: the tab this profile last opened or focused)"),
  Options.optional
)
export const tabOptions = { ...commonOptions, targetId: targetIdOption }
const withTarget = (t: Option.Option<string>) => given("targetId", t)
const lines = (xs: ReadonlyArray<string>, empty: string) => (xs.length === 0 ? empty : xs.join("\n"))

const consoleCmd = Command.make(
  "console",
  {
    ...tabOptions,
    level: Options.choice("level", ["debug", "log", "info", "warning", "error"]).pipe(
      Options.withDescription("only this level and above"),
      Options.optional
    )
  },
  (args) =>
    callControl(
      args,
      (c, q) => c.observe.console({ urlParams: { ...q, ...withTarget(args.targetId), ...given("level", args.level) } }),
      (r) =>
        lines(
          r.entries.map((e) =>
            `[${e.level}] ${e.text}${e.location !== null ? `  (${e.location.url}:${e.location.line + 1})` : ""}`
          ),
          "no console messages"
        )
    )
).pipe(Command.withDescription("console messages of the tab, captured since the gateway attached"))

const errors = Command.make(
  "errors",
  { ...tabOptions, clear: Options.boolean("clear").pipe(Options.withDescription("empty the list after reading it")) },
  (args) =>
    callControl(
      args,
      (c, q) => c.observe.errors({ urlParams: { ...q, ...withTarget(args.targetId), ...(args.clear ? { clear: true } : {}) } }),
      (r) =>
        lines(
          [
            ...r.entries.map((e) => `${e.name}: ${e.message}`),
            ...r.dialogs.map((d) => `unarmed ${d.type} "${d.message}" was ${d.answer} (${d.url})`)
          ],
          "no page errors"
        )
    )
).pipe(Command.withDescription("uncaught page errors (and dialogs nobody armed) of the tab"))

const requests = Command.make(
  "requests",
  {
    ...tabOptions,
    filter: Options.text("filter").pipe(
      Options.withDescription(
        "only requests whose URL or method contains this (any case), or whose URL matches it as a regular expression (api/.*user)"
      ),
      Options.optional
    ),
    noStatic: Options.boolean("no-static").pipe(
      Options.withDescription("leave out images, fonts, stylesheets, scripts and media that loaded fine")
    ),
    clear: Options.boolean("clear").pipe(Options.withDescription("empty the list after reading it"))
  },
  (args) =>
    callControl(
      args,
      (c, q) =>
        c.observe.requests({
          urlParams: {
            ...q,
            ...withTarget(args.targetId),
            ...given("filter", args.filter),
            ...(args.noStatic ? { static: false } : {}),
            ...(args.clear ? { clear: true } : {})
          }
        }),
      (r) =>
        lines(
          r.entries.map((e) =>
            `${e.method} ${e.status ?? (e.state === "failed" ? "failed" : "pending")} ${e.url}` +
            `${e.failure !== null ? ` (${e.failure})` : ""}${e.durationMs !== null ? ` ${Math.round(e.durationMs)} ms` : ""} #${e.seq}`
          ),
          "no requests"
        )
    )
).pipe(Command.withDescription("network requests of the tab, captured since the gateway attached"))

const request = Command.make(
  "request",
  {
    ...tabOptions,
    seq: Args.integer({ name: "seq" }).pipe(Args.withDescription("the request's number, as `svc browser requests` ends its line (#12)"))
  },
  (args) =>
    callControl(
      args,
      (c, q) => c.observe.request({ urlParams: { ...q, ...withTarget(args.targetId), seq: args.seq } }),
      requestDetailText
    )
).pipe(Command.withDescription("one request of the tab in full: its headers both ways and the data it posted"))

const responseBody = Command.make(
  "responsebody",
  {
    ...tabOptions,
    url: Args.text({ name: "url-glob" }).pipe(Args.withDescription("the response's URL; * and ** match"), Args.optional),
    seq: Options.integer("seq").pipe(
      Options.withDescription("instead of a URL: the request's #n in `svc browser requests`"),
      Options.optional
    ),
    maxChars: Options.integer("max-chars").pipe(Options.withDescription("cut the body at this many characters"), Options.optional),
    timeout: Options.integer("timeout").pipe(Options.withDescription("wait this long (ms) for a matching response"), Options.optional)
  },
  (args) =>
    callControl(
      args,
      (c, q) =>
        c.observe.responseBody({
          urlParams: q,
          payload: {
            ...given("url", args.url),
            ...given("seq", args.seq),
            ...withTarget(args.targetId),
            ...given("maxChars", args.maxChars),
            ...given("timeoutMs", args.timeout)
          }
        }),
      (r) => r.body
    )
).pipe(Command.withDescription("print the body of the latest response matching <url-glob>, or of request --seq <n>"))

const traceStart = Command.make(
  "start",
  {
    ...tabOptions,
    screenshots: Options.boolean("screenshots").pipe(Options.withDescription("record screenshots")),
    snapshots: Options.boolean("snapshots").pipe(Options.withDescription("record DOM snapshots"))
  },
  (args) =>
    callControl(
      args,
      (c, q) =>
        c.observe.traceStart({
          urlParams: q,
          payload: { ...withTarget(args.targetId), screenshots: args.screenshots, snapshots: args.snapshots }
        }),
      () => "tracing; stop with `svc browser trace stop`"
    )
).pipe(Command.withDescription("start recording a trace of the tab's browser context"))

const traceStop = Command.make("stop", tabOptions, (args) =>
  callControl(args, (c, q) => c.observe.traceStop({ urlParams: q, payload: withTarget(args.targetId) }), (r) => `TRACE:${r.path}`)).pipe(
    Command.withDescription("stop the trace and print TRACE:<path>")
  )

const trace = Command.make("trace").pipe(
  Command.withDescription("record a trace of the automation library"),
  Command.withSubcommands([traceStart, traceStop])
)

const dialog = Command.make(
  "dialog",
  {
    ...tabOptions,
    accept: Options.boolean("accept").pipe(Options.withDescription("accept the next dialog")),
    dismiss: Options.boolean("dismiss").pipe(Options.withDescription("dismiss the next dialog")),
    promptText: Options.text("prompt-text").pipe(Options.withDescription("the answer to a prompt"), Options.optional)
  },
  (args) =>
    Effect.gen(function*() {
      if (args.accept === args.dismiss) {
        return yield* new CliFailure({ message: "say --accept or --dismiss (one of them)" })
      }
      yield* callControl(
        args,
        (c, q) =>
          c.observe.dialog({
            urlParams: q,
            payload: { ...withTarget(args.targetId), accept: args.accept, ...given("promptText", args.promptText) }
          }),
        (r) => r.detail
      )
    })
).pipe(Command.withDescription("answer the dialog an action left open (an MCP client's action holds it), or arm the next alert, confirm or prompt (before the action that opens it)"))

const downloadName = Args.text({ name: "filename" }).pipe(
  Args.withDescription("the file name to save it as, inside the downloads root")
)

const download = Command.make(
  "download",
  {
    ...tabOptions,
    ref: Args.text({ name: "ref" }).pipe(Args.withDescription("the element to click (a ref from `svc browser snapshot`)")),
    filename: downloadName
  },
  (args) =>
    callControl(
      args,
      (c, q) => c.files.download({ urlParams: q, payload: { ref: args.ref, filename: args.filename, ...withTarget(args.targetId) } }),
      (r) => `MEDIA:${r.path}`
    )
).pipe(Command.withDescription("click <ref> and save the download as <filename> in the downloads root"))

const waitForDownload = Command.make(
  "waitfordownload",
  {
    ...tabOptions,
    filename: downloadName,
    timeout: Options.integer("timeout").pipe(Options.withDescription("give up after this many ms"), Options.optional)
  },
  (args) =>
    callControl(
      args,
      (c, q) =>
        c.files.waitDownload({
          urlParams: q,
          payload: { filename: args.filename, ...withTarget(args.targetId), ...given("timeoutMs", args.timeout) }
        }),
      (r) => `MEDIA:${r.path}`
    )
).pipe(Command.withDescription("wait for the next download and save it as <filename>"))

const upload = Command.make(
  "upload",
  {
    ...tabOptions,
    paths: Args.text({ name: "path" }).pipe(Args.atLeast(1), Args.withDescription("files inside the uploads root")),
    inputRef: Options.text("input-ref").pipe(Options.withDescription("set this file input directly"), Options.optional),
    element: Options.text("element").pipe(Options.withDescription("set the file input this CSS selector finds"), Options.optional)
  },
  (args) =>
    callControl(
      args,
      (c, q) =>
        c.files.fileChooser({
          urlParams: q,
          payload: { paths: args.paths, ...withTarget(args.targetId), ...given("inputRef", args.inputRef), ...given("element", args.element) }
        }),
      (r) => r.detail
    )
).pipe(Command.withDescription("give <path>... to the file chooser the last action opened, else arm the next one (or set a file input directly)"))

const cookiesSet = Command.make(
  "set",
  {
    ...tabOptions,
    name: Args.text({ name: "name" }).pipe(Args.withDescription("the cookie's name")),
    value: Args.text({ name: "value" }).pipe(Args.withDescription("the cookie's value")),
    url: Options.text("url").pipe(Options.withDescription("the URL the cookie belongs to (sets its domain and path)"))
  },
  (args) =>
    callControl(
      args,
      (c, q) =>
        c.state.setCookie({ urlParams: q, payload: { name: args.name, value: args.value, url: args.url, ...withTarget(args.targetId) } }),
      (r) => r.done
    )
).pipe(Command.withDescription("set a cookie for --url"))

const cookiesClear = Command.make("clear", tabOptions, (args) =>
  callControl(args, (c, q) => c.state.clearCookies({ urlParams: q, payload: withTarget(args.targetId) }), (r) => r.done)).pipe(
    Command.withDescription("delete every cookie of the profile's browser context")
  )

const cookies = Command.make("cookies", tabOptions, (args) =>
  callControl(
    args,
    (c, q) => c.state.cookies({ urlParams: { ...q, ...withTarget(args.targetId) } }),
    (r) => lines(r.cookies.map((k) => `${k.name}=${k.value}  ${k.domain}${k.path}`), "no cookies")
  )).pipe(
    Command.withDescription("list cookies; `cookies set <name> <value> --url <url>`, `cookies clear`"),
    Command.withSubcommands([cookiesSet, cookiesClear])
  )

const storage = Command.make(
  "storage",
  {
    ...tabOptions,
    kind: Args.choice([["local", "local"], ["session", "session"]] as const, { name: "local|session" }).pipe(
      Args.withDescription("localStorage or sessionStorage")
    ),
    action: Args.choice([["get", "get"], ["set", "set"], ["clear", "clear"]] as const, { name: "get|set|clear" }).pipe(
      Args.withDescription("what to do (default get)"),
      Args.optional
    ),
    key: Args.text({ name: "key" }).pipe(Args.withDescription("get: only this key; set: the key to set"), Args.optional),
    value: Args.text({ name: "value" }).pipe(Args.withDescription("set: the value"), Args.optional)
  },
  (args) =>
    Effect.gen(function*() {
      const action = Option.getOrElse(args.action, () => "get" as const)
      const path = { kind: args.kind }
      if (action === "get") {
        return yield* callControl(
          args,
          (c, q) => c.state.storage({ path, urlParams: { ...q, ...withTarget(args.targetId) } }),
          (r) => {
            const keys = Object.keys(r.entries)
            const only = Option.getOrUndefined(args.key)
            if (only !== undefined) return r.entries[only] ?? `(${only} is not set)`
            return lines(keys.map((k) => `${k}=${r.entries[k]}`), `${args.kind} storage is empty`)
          }
        )
      }
      if (action === "clear") {
        return yield* callControl(args, (c, q) => c.state.clearStorage({ path, urlParams: q, payload: withTarget(args.targetId) }), (r) => r.done)
      }
      if (Option.isNone(args.key) || Option.isNone(args.value)) {
        return yield* new CliFailure({ message: `usage: svc browser storage ${args.kind} set <key> <value>` })
      }
      const key = args.key.value
      const value = args.value.value
      return yield* callControl(
        args,
        (c, q) => c.state.setStorage({ path, urlParams: q, payload: { key, value, ...withTarget(args.targetId) } }),
        (r) => r.done
      )
    })
).pipe(Command.withDescription("local or session storage of the tab's origin: get [key], set <key> <value>, clear"))

// ---- `svc browser set ...` ----

const done = (r: { readonly done: string }) => r.done

const setOffline = Command.make(
  "offline",
  { ...tabOptions, state: Args.choice([["on", true], ["off", false]] as const, { name: "on|off" }).pipe(Args.withDescription("on: offline; off: online")) },
  (args) => callControl(args, (c, q) => c.state.offline({ urlParams: q, payload: { offline: args.state, ...withTarget(args.targetId) } }), done)
).pipe(Command.withDescription("take the browser context offline (on) or back online (off)"))

const setHeaders = Command.make(
  "headers",
  {
    ...tabOptions,
    // Not `--json`: that is every command's "print the API's JSON".
    headers: Options.text("headers-json").pipe(
      Options.withDescription('the extra headers as a JSON object of strings, e.g. {"X-Test":"1"}')
    )
  },
  (args) =>
    Effect.gen(function*() {
      let headers: unknown
      try {
        headers = JSON.parse(args.headers)
      } catch {
        headers = undefined
      }
      if (typeof headers !== "object" || headers === null || Array.isArray(headers) ||
        !Object.values(headers).every((v) => typeof v === "string")) {
        return yield* new CliFailure({ message: "--headers-json must be a JSON object of strings, e.g. {\"X-Test\":\"1\"}" })
      }
      yield* callControl(
        args,
        (c, q) => c.state.headers({ urlParams: q, payload: { headers: headers as Record<string, string>, ...withTarget(args.targetId) } }),
        done
      )
    })
).pipe(Command.withDescription("send extra HTTP headers with every request of the browser context"))

const setCredentials = Command.make(
  "credentials",
  {
    ...tabOptions,
    user: Args.text({ name: "user" }).pipe(Args.withDescription("the user name"), Args.optional),
    pass: Args.text({ name: "pass" }).pipe(Args.withDescription("the password"), Args.optional),
    origin: Options.text("origin").pipe(
      Options.withDescription("only this origin gets them (by default, any origin that asks)"),
      Options.optional
    ),
    clear: Options.boolean("clear").pipe(Options.withDescription("stop sending credentials"))
  },
  (args) =>
    Effect.gen(function*() {
      if (!args.clear && (Option.isNone(args.user) || Option.isNone(args.pass))) {
        return yield* new CliFailure({ message: "usage: svc browser set credentials <user> <pass>, or --clear" })
      }
      yield* callControl(
        args,
        (c, q) =>
          c.state.credentials({
            urlParams: q,
            payload: args.clear
              ? { clear: true, ...withTarget(args.targetId) }
              : {
                user: Option.getOrElse(args.user, () => ""),
                pass: Option.getOrElse(args.pass, () => ""),
                ...given("origin", args.origin),
                ...withTarget(args.targetId)
              }
          }),
        done
      )
    })
).pipe(Command.withDescription("answer HTTP authentication with <user> <pass> (or --clear)"))

const setGeolocation = Command.make(
  "geolocation",
  {
    ...tabOptions,
    latitude: Args.float({ name: "lat" }).pipe(Args.withDescription("latitude, -90 to 90"), Args.optional),
    longitude: Args.float({ name: "lon" }).pipe(Args.withDescription("longitude, -180 to 180"), Args.optional),
    origin: Options.text("origin").pipe(Options.withDescription("grant the permission to this origin (default: the tab's)"), Options.optional),
    clear: Options.boolean("clear").pipe(Options.withDescription("remove the emulated position"))
  },
  (args) =>
    Effect.gen(function*() {
      if (!args.clear && (Option.isNone(args.latitude) || Option.isNone(args.longitude))) {
        return yield* new CliFailure({ message: "usage: svc browser set geolocation <lat> <lon> [--origin <url>], or --clear" })
      }
      yield* callControl(
        args,
        (c, q) =>
          c.state.geolocation({
            urlParams: q,
            payload: args.clear
              ? { clear: true, ...withTarget(args.targetId) }
              : {
                ...given("latitude", args.latitude),
                ...given("longitude", args.longitude),
                ...given("origin", args.origin),
                ...withTarget(args.targetId)
              }
          }),
        done
      )
    })
).pipe(Command.withDescription("emulate the position <lat> <lon> (or --clear)"))

const setMedia = Command.make(
  "media",
  {
    ...tabOptions,
    media: Args.choice(
      [["dark", "dark"], ["light", "light"], ["no-preference", "no-preference"], ["none", "none"]] as const,
      { name: "dark|light|no-preference|none" }
    ).pipe(Args.withDescription("the colour scheme pages see"), Args.optional),
    reducedMotion: Options.choice("reduced-motion", ["reduce", "no-preference", "none"] as const).pipe(
      Options.withDescription("prefers-reduced-motion (none: the browser's own)"),
      Options.optional
    ),
    forcedColors: Options.choice("forced-colors", ["active", "none"] as const).pipe(
      Options.withDescription("forced-colors, as in a high-contrast mode (none: the browser's own)"),
      Options.optional
    ),
    contrast: Options.choice("contrast", ["more", "no-preference", "none"] as const).pipe(
      Options.withDescription("prefers-contrast (none: the browser's own)"),
      Options.optional
    ),
    type: Options.choice("type", ["screen", "print", "none"] as const).pipe(
      Options.withDescription("the media type: print shows the page as printed (none: screen again)"),
      Options.optional
    )
  },
  (args) =>
    callControl(
      args,
      (c, q) =>
        c.state.media({
          urlParams: q,
          payload: {
            ...given("media", args.media),
            ...given("reducedMotion", args.reducedMotion),
            ...given("forcedColors", args.forcedColors),
            ...given("contrast", args.contrast),
            ...given("type", args.type),
            ...withTarget(args.targetId)
          }
        }),
      done
    )
).pipe(Command.withDescription("emulate CSS media features: the colour scheme, --reduced-motion, --forced-colors, --contrast, --type print (none removes one)"))

const setThrottle = Command.make(
  "throttle",
  {
    ...tabOptions,
    network: Args.choice(
      [["slow-3g", "slow-3g"], ["fast-3g", "fast-3g"], ["slow-4g", "slow-4g"], ["fast-4g", "fast-4g"], ["none", "none"]] as const,
      { name: "slow-3g|fast-3g|slow-4g|fast-4g|none" }
    ).pipe(Args.withDescription("a network preset; none gives the full speed back (and the CPU's, unless --cpu is given)"), Args.optional),
    latency: Options.float("latency").pipe(Options.withDescription("milliseconds added to each request"), Options.optional),
    download: Options.float("download").pipe(Options.withDescription("download bandwidth in kbit/s"), Options.optional),
    upload: Options.float("upload").pipe(Options.withDescription("upload bandwidth in kbit/s"), Options.optional),
    cpu: Options.float("cpu").pipe(Options.withDescription("how many times slower the CPU runs, 1 to 20 (1: its own speed)"), Options.optional)
  },
  (args) =>
    callControl(
      args,
      (c, q) =>
        c.state.throttle({
          urlParams: q,
          payload: {
            ...given("network", args.network),
            ...given("latencyMs", args.latency),
            ...given("downloadKbps", args.download),
            ...given("uploadKbps", args.upload),
            ...given("cpu", Option.isNone(args.cpu) && Option.getOrUndefined(args.network) === "none" ? Option.some(1) : args.cpu),
            ...withTarget(args.targetId)
          }
        }),
      done
    )
).pipe(Command.withDescription("slow the tab's network (a preset, or --latency, --download, --upload) and --cpu; none: full speed again"))

const setTimezone = Command.make("timezone", { ...tabOptions, timezone: Args.text({ name: "zone" }).pipe(Args.withDescription("an IANA time zone id, or none")) }, (args) =>
  callControl(args, (c, q) => c.state.timezone({ urlParams: q, payload: { timezone: args.timezone, ...withTarget(args.targetId) } }), done)).pipe(
    Command.withDescription("emulate an IANA time zone, e.g. Europe/Paris (none removes the emulation)")
  )

const setLocale = Command.make("locale", { ...tabOptions, locale: Args.text({ name: "locale" }).pipe(Args.withDescription("a BCP 47 language tag, or none")) }, (args) =>
  callControl(args, (c, q) => c.state.locale({ urlParams: q, payload: { locale: args.locale, ...withTarget(args.targetId) } }), done)).pipe(
    Command.withDescription("emulate a locale, e.g. fr-FR (none removes the emulation)")
  )

const setDevice = Command.make("device", { ...tabOptions, name: Args.text({ name: "name" }).pipe(Args.withDescription("a device name of the automation library, or none")) }, (args) =>
  callControl(args, (c, q) => c.state.device({ urlParams: q, payload: { name: args.name, ...withTarget(args.targetId) } }), done)).pipe(
    Command.withDescription("emulate one of the library's devices, e.g. \"iPhone 15\" (none: the browser's own size, input and user agent)")
  )

const setViewport = Command.make(
  "viewport",
  {
    ...tabOptions,
    width: Args.integer({ name: "width" }).pipe(Args.withDescription("viewport width in CSS pixels")),
    height: Args.integer({ name: "height" }).pipe(Args.withDescription("viewport height in CSS pixels"))
  },
  (args) =>
    callControl(
      args,
      (c, q) => c.state.viewport({ urlParams: q, payload: { width: args.width, height: args.height, ...withTarget(args.targetId) } }),
      done
    )
).pipe(Command.withDescription("set the viewport to <width> <height> CSS pixels"))

const set = Command.make("set").pipe(
  Command.withDescription("emulation: offline, headers, credentials, geolocation, media, throttle, timezone, locale, device, viewport"),
  Command.withSubcommands([
    setOffline,
    setHeaders,
    setCredentials,
    setGeolocation,
    setMedia,
    setThrottle,
    setTimezone,
    setLocale,
    setDevice,
    setViewport
  ])
)

export const inspectCommands = [
  consoleCmd,
  errors,
  requests,
  request,
  responseBody,
  trace,
  dialog,
  download,
  waitForDownload,
  upload,
  cookies,
  storage,
  set
] as const
