import { execFile } from "node:child_process"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import { BrowserUnavailable } from "../../domain/errors.js"

// Finds a Chromium-based browser to manage: the configured executable, else the system's default browser
// when it is Chromium-based, else the usual install locations. The search is pure data (candidatePaths)
// plus injectable probes, so every platform's order is testable on any machine.

export type BrowserKind = "chrome" | "canary" | "brave" | "edge" | "chromium" | "vivaldi" | "opera" | "custom"

export type LocateSource = "config" | "default-browser" | "search"

export interface LocatedBrowser {
  readonly path: string
  readonly kind: BrowserKind
  readonly source: LocateSource
}

export interface Candidate {
  readonly kind: BrowserKind
  readonly path: string
  /** Set when the path comes from looking a command name up on PATH. */
  readonly command?: string
}

/** What a default-browser probe found: an identifier (desktop file, bundle id, ProgId) and where it may live. */
export interface DefaultBrowserGuess {
  readonly id: string
  readonly paths: ReadonlyArray<string>
}

export type ProbeResult = "executable" | "missing" | "not-executable" | "not-a-file"

export interface LocateDeps {
  readonly platform: NodeJS.Platform
  readonly env: Readonly<Record<string, string | undefined>>
  readonly homedir: string
  readonly probe: (file: string) => Effect.Effect<ProbeResult>
  readonly defaultBrowser: () => Effect.Effect<DefaultBrowserGuess | undefined>
}

/** How long the default-browser step may take before it is skipped. */
export const DEFAULT_BROWSER_TIMEOUT_MS = 1500

// ---------------------------------------------------------------------------------------------------------
// Pure parts

const REJECTED = /firefox|safari|librewolf|waterfox|epiphany|konqueror|falkon|midori|seamonkey|palemoon|floorp|zen-browser|ladybird/

/** Which Chromium-based browser a name (binary, desktop id, bundle id, ProgId) denotes, if any. */
export const classifyBrowser = (name: string): Exclude<BrowserKind, "custom"> | undefined => {
  const s = name.toLowerCase()
  if (REJECTED.test(s)) return undefined
  if (/canary|chrome sxs|chrome-unstable|chromesshtm/.test(s)) return "canary"
  if (/brave/.test(s)) return "brave"
  if (/msedge|microsoft-edge|microsoft edge|edgemac|(^|[^a-z])edge([^a-z]|$)/.test(s)) return "edge"
  if (/vivaldi/.test(s)) return "vivaldi"
  if (/opera/.test(s)) return "opera"
  if (/chromium/.test(s)) return "chromium"
  if (/chrome/.test(s)) return "chrome"
  return undefined
}

const baseName = (p: string): string => p.split(/[\\/]/).filter((x) => x !== "").pop() ?? p

/** Environment lookup that is case-insensitive on Windows, as the real environment is there. */
const envGet = (
  env: Readonly<Record<string, string | undefined>>,
  key: string,
  platform: NodeJS.Platform
): string | undefined => {
  const direct = env[key]
  if (direct !== undefined && direct !== "") return direct
  if (platform !== "win32") return undefined
  const lower = key.toLowerCase()
  for (const [k, v] of Object.entries(env)) if (k.toLowerCase() === lower && v !== undefined && v !== "") return v
  return undefined
}

const unique = <A>(items: ReadonlyArray<A>, key: (a: A) => string): Array<A> => {
  const seen = new Set<string>()
  return items.filter((a) => {
    const k = key(a)
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
}

const pathDirs = (platform: NodeJS.Platform, env: Readonly<Record<string, string | undefined>>): Array<string> => {
  const sep = platform === "win32" ? ";" : ":"
  const fromEnv = (envGet(env, "PATH", platform) ?? "").split(sep).filter((d) => d !== "" && path.isAbsolute(d))
  // A service started with a minimal PATH should still find packaged browsers.
  const fallback = platform === "win32" ? [] : ["/usr/local/bin", "/usr/bin", "/snap/bin"]
  return unique([...fromEnv, ...fallback], (d) => d)
}

interface LinuxBrowser {
  readonly kind: BrowserKind
  readonly commands: ReadonlyArray<string>
  readonly fixed: ReadonlyArray<string>
}

const LINUX: ReadonlyArray<LinuxBrowser> = [
  {
    kind: "chrome",
    commands: ["google-chrome", "google-chrome-stable", "google-chrome-beta"],
    fixed: ["/opt/google/chrome/chrome", "/opt/google/chrome-beta/chrome"]
  },
  {
    kind: "brave",
    commands: ["brave-browser", "brave-browser-stable", "brave"],
    fixed: ["/opt/brave.com/brave/brave", "/snap/bin/brave"]
  },
  {
    kind: "edge",
    commands: ["microsoft-edge", "microsoft-edge-stable"],
    fixed: ["/opt/microsoft/msedge/msedge"]
  },
  {
    kind: "chromium",
    commands: ["chromium", "chromium-browser"],
    fixed: ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/snap/bin/chromium", "/usr/lib/chromium/chromium"]
  },
  {
    kind: "canary",
    commands: ["google-chrome-canary", "google-chrome-unstable"],
    fixed: ["/opt/google/chrome-canary/chrome", "/opt/google/chrome-unstable/chrome"]
  }
]

const MAC_APPS: ReadonlyArray<readonly [BrowserKind, string]> = [
  ["chrome", "Google Chrome"],
  ["brave", "Brave Browser"],
  ["edge", "Microsoft Edge"],
  ["chromium", "Chromium"],
  ["canary", "Google Chrome Canary"]
]

const macAppBinary = (root: string, app: string): string => path.posix.join(root, `${app}.app`, "Contents", "MacOS", app)

const WINDOWS: ReadonlyArray<readonly [BrowserKind, string]> = [
  ["chrome", "Google\\Chrome\\Application\\chrome.exe"],
  ["brave", "BraveSoftware\\Brave-Browser\\Application\\brave.exe"],
  ["edge", "Microsoft\\Edge\\Application\\msedge.exe"],
  ["chromium", "Chromium\\Application\\chrome.exe"],
  ["canary", "Google\\Chrome SxS\\Application\\chrome.exe"]
]

/** Every place the search step looks, best first. Pure: depends only on its arguments. */
export const candidatePaths = (
  platform: NodeJS.Platform,
  env: Readonly<Record<string, string | undefined>>,
  homedir: string
): ReadonlyArray<Candidate> => {
  if (platform === "darwin") {
    const roots = ["/Applications", path.posix.join(homedir, "Applications")]
    return MAC_APPS.flatMap(([kind, app]) => roots.map((root) => ({ kind, path: macAppBinary(root, app) })))
  }
  if (platform === "win32") {
    const programFiles = envGet(env, "PROGRAMFILES", platform) ?? "C:\\Program Files"
    const programFilesX86 = envGet(env, "PROGRAMFILES(X86)", platform) ?? "C:\\Program Files (x86)"
    const localAppData = envGet(env, "LOCALAPPDATA", platform) ?? path.win32.join(homedir, "AppData", "Local")
    const roots = [programFiles, programFilesX86, localAppData]
    return unique(
      WINDOWS.flatMap(([kind, rel]) => roots.map((root) => ({ kind, path: path.win32.join(root, rel) }))),
      (c) => c.path.toLowerCase()
    )
  }
  const dirs = pathDirs(platform, env)
  const all: Array<Candidate> = LINUX.flatMap((b) => [
    ...b.commands.flatMap((command) => dirs.map((d) => ({ kind: b.kind, path: path.posix.join(d, command), command }))),
    ...b.fixed.map((p) => ({ kind: b.kind, path: p }))
  ])
  return unique(all, (c) => c.path)
}

/** A compact account of what the search step looked at, for error messages. */
export const describeSearch = (candidates: ReadonlyArray<Candidate>): string => {
  const commands = unique(
    candidates.flatMap((c) => (c.command === undefined ? [] : [c.command])),
    (c) => c
  )
  const dirs = unique(
    candidates.flatMap((c) => (c.command === undefined ? [] : [path.posix.dirname(c.path)])),
    (d) => d
  )
  const fixed = candidates.filter((c) => c.command === undefined).map((c) => c.path)
  const parts: Array<string> = []
  if (commands.length > 0) parts.push(`${commands.join(", ")} in ${dirs.join(":")}`)
  if (fixed.length > 0) parts.push(`paths: ${fixed.join(", ")}`)
  return parts.join("; ")
}

const fixHint = (platform: NodeJS.Platform): string => {
  const install =
    platform === "darwin"
      ? "Install Google Chrome, Brave, Edge or Chromium"
      : platform === "win32"
        ? "Install Google Chrome, Brave, Edge or Chromium"
        : "Install one (on Debian/Ubuntu: `apt-get install chromium`)"
  return (
    `${install}, or set browser.executablePath in svc.json to a Chromium-based browser's executable, ` +
    `or point a profile at a browser that is already running with browser.profiles.<name>.cdpUrl.`
  )
}

export const notFoundMessage = (platform: NodeJS.Platform, candidates: ReadonlyArray<Candidate>): string =>
  `No Chromium-based browser found (the default browser is not Chromium-based or could not be read). ` +
  `Searched ${describeSearch(candidates)}. ${fixHint(platform)}`

const expandConfigured = (configured: string, platform: NodeJS.Platform, homedir: string): string => {
  const p = platform === "win32" ? path.win32 : path.posix
  let out = configured
  if (out === "~" || out.startsWith("~/") || out.startsWith("~\\")) out = p.join(homedir, out.slice(1))
  out = p.resolve(out)
  // An app bundle is a directory; the executable lives inside it.
  if (platform === "darwin" && out.endsWith(".app")) {
    const app = p.basename(out, ".app")
    out = p.join(out, "Contents", "MacOS", app)
  }
  return out
}

const PROBE_WORDS: Record<Exclude<ProbeResult, "executable">, string> = {
  missing: "nothing is there",
  "not-executable": "that file is not executable",
  "not-a-file": "that is not a file"
}

// ---------------------------------------------------------------------------------------------------------
// The locate logic, with its effects injected

export const locateBrowser = (
  configured: string | undefined,
  deps: LocateDeps
): Effect.Effect<LocatedBrowser, BrowserUnavailable> =>
  Effect.gen(function* () {
    const wanted = configured?.trim()
    if (wanted !== undefined && wanted !== "") {
      const file = expandConfigured(wanted, deps.platform, deps.homedir)
      const probed = yield* deps.probe(file)
      if (probed === "executable") {
        return { path: file, kind: classifyBrowser(baseName(file)) ?? "custom", source: "config" } as const
      }
      return yield* new BrowserUnavailable({
        message:
          `browser.executablePath in svc.json is ${JSON.stringify(wanted)}, but ${PROBE_WORDS[probed]}` +
          (file !== wanted ? ` (resolved to ${file})` : "") +
          `. Point it at a Chromium-based browser's executable, or remove it to let svc find one.`
      })
    }

    const guess = yield* deps.defaultBrowser().pipe(
      Effect.timeout(DEFAULT_BROWSER_TIMEOUT_MS),
      Effect.catchAllCause(() => Effect.succeed(undefined))
    )
    if (guess !== undefined) {
      for (const file of guess.paths) {
        // The executable itself must look like a Chromium browser: a launcher (flatpak, env, a shell) would
        // not take our flags the way we pass them.
        const byExe = classifyBrowser(baseName(file))
        if (byExe === undefined) continue
        if ((yield* deps.probe(file)) === "executable") {
          return { path: file, kind: classifyBrowser(guess.id) ?? byExe, source: "default-browser" } as const
        }
      }
    }

    const candidates = candidatePaths(deps.platform, deps.env, deps.homedir)
    for (const c of candidates) {
      if ((yield* deps.probe(c.path)) === "executable") {
        return { path: c.path, kind: c.kind, source: "search" } as const
      }
    }
    return yield* new BrowserUnavailable({ message: notFoundMessage(deps.platform, candidates) })
  })

// ---------------------------------------------------------------------------------------------------------
// Real probes

export const probeExecutable = (file: string, platform: NodeJS.Platform = process.platform): Effect.Effect<ProbeResult> =>
  Effect.promise(async (): Promise<ProbeResult> => {
    try {
      const st = await fs.stat(file)
      if (!st.isFile()) return "not-a-file"
    } catch {
      return "missing"
    }
    if (platform === "win32") return "executable"
    try {
      await fs.access(file, fs.constants.X_OK)
      return "executable"
    } catch {
      return "not-executable"
    }
  })

/** Runs a short command; its stdout, or undefined on any failure. Interrupting kills it. */
const runQuiet = (file: string, args: ReadonlyArray<string>, timeoutMs: number): Effect.Effect<string | undefined> =>
  Effect.async<string | undefined>((resume) => {
    const child = execFile(
      file,
      [...args],
      { timeout: timeoutMs, windowsHide: true, encoding: "utf8", maxBuffer: 1024 * 1024 },
      (error, stdout) => resume(Effect.succeed(error === null ? stdout : undefined))
    )
    child.on("error", () => undefined)
    return Effect.sync(() => {
      child.kill("SIGKILL")
    })
  })

/** Splits a desktop-entry Exec value into its arguments (quotes and backslash escapes), dropping field codes. */
export const parseDesktopExec = (exec: string): Array<string> => {
  const out: Array<string> = []
  let cur = ""
  let inQuotes = false
  let has = false
  for (let i = 0; i < exec.length; i++) {
    const ch = exec[i]!
    if (inQuotes) {
      if (ch === "\\" && i + 1 < exec.length) {
        cur += exec[++i]
      } else if (ch === '"') {
        inQuotes = false
      } else {
        cur += ch
      }
    } else if (ch === '"') {
      inQuotes = true
      has = true
    } else if (ch === " " || ch === "\t") {
      if (has || cur !== "") out.push(cur)
      cur = ""
      has = false
    } else {
      cur += ch
    }
  }
  if (has || cur !== "") out.push(cur)
  const args = out.filter((a) => !/^%[a-zA-Z]$/.test(a))
  // `env VAR=value prog ...`
  if (args[0] !== undefined && baseName(args[0]) === "env") {
    let i = 1
    while (i < args.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(args[i]!)) i++
    return args.slice(i)
  }
  return args
}

/** The Exec= value of a .desktop file's [Desktop Entry] group. */
export const desktopEntryExec = (text: string): string | undefined => {
  let inEntry = false
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim()
    if (line.startsWith("[")) {
      inEntry = line === "[Desktop Entry]"
      continue
    }
    if (inEntry && line.startsWith("Exec=")) return line.slice("Exec=".length)
  }
  return undefined
}

const detectLinux = (env: Readonly<Record<string, string | undefined>>, homedir: string) =>
  Effect.gen(function* () {
    const out = yield* runQuiet("xdg-settings", ["get", "default-web-browser"], DEFAULT_BROWSER_TIMEOUT_MS)
    const id = out?.trim().split(/\s+/)[0]
    if (id === undefined || id === "" || !id.endsWith(".desktop")) return undefined
    const dataHome = env.XDG_DATA_HOME !== undefined && path.isAbsolute(env.XDG_DATA_HOME)
      ? env.XDG_DATA_HOME
      : path.join(homedir, ".local", "share")
    const dataDirs = (env.XDG_DATA_DIRS ?? "/usr/local/share:/usr/share").split(":").filter((d) => path.isAbsolute(d))
    const appDirs = unique([dataHome, ...dataDirs, "/usr/local/share", "/usr/share"], (d) => d).map((d) =>
      path.join(d, "applications")
    )
    for (const dir of appDirs) {
      const text = yield* Effect.promise(() => fs.readFile(path.join(dir, id), "utf8").catch(() => undefined))
      if (text === undefined) continue
      const exec = desktopEntryExec(text)
      const program = exec === undefined ? undefined : parseDesktopExec(exec)[0]
      if (program === undefined) return undefined
      const paths = path.isAbsolute(program) ? [program] : pathDirs("linux", env).map((d) => path.join(d, program))
      return { id, paths } satisfies DefaultBrowserGuess
    }
    return undefined
  })

const MAC_BUNDLES: Record<string, string> = {
  "com.google.chrome": "Google Chrome",
  "com.google.chrome.canary": "Google Chrome Canary",
  "com.google.chrome.beta": "Google Chrome Beta",
  "com.brave.browser": "Brave Browser",
  "com.microsoft.edgemac": "Microsoft Edge",
  "org.chromium.chromium": "Chromium",
  "com.vivaldi.vivaldi": "Vivaldi",
  "com.operasoftware.opera": "Opera"
}

/** The bundle id handling `http` in `defaults read` output of the LaunchServices preferences. */
export const parseLaunchServicesHandlers = (text: string): string | undefined => {
  // Handler dictionaries may nest one level (LSHandlerPreferredVersions).
  const blocks = text.match(/\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}/g) ?? []
  for (const block of blocks) {
    if (!/LSHandlerURLScheme\s*=\s*"?http"?\s*;/.test(block)) continue
    const role = block.replace(/LSHandlerPreferredVersions\s*=\s*\{[^{}]*\}\s*;/g, "").match(
      /LSHandlerRoleAll\s*=\s*"?([^";\s]+)"?\s*;/
    )
    if (role?.[1] !== undefined) return role[1].toLowerCase()
  }
  return undefined
}

const detectMac = (homedir: string) =>
  Effect.gen(function* () {
    const out = yield* runQuiet(
      "defaults",
      ["read", path.join(homedir, "Library/Preferences/com.apple.LaunchServices/com.apple.launchservices.secure"), "LSHandlers"],
      DEFAULT_BROWSER_TIMEOUT_MS
    )
    const bundle = out === undefined ? undefined : parseLaunchServicesHandlers(out)
    const app = bundle === undefined ? undefined : MAC_BUNDLES[bundle]
    if (bundle === undefined || app === undefined) return undefined
    return {
      id: bundle,
      paths: [macAppBinary("/Applications", app), macAppBinary(path.join(homedir, "Applications"), app)]
    } satisfies DefaultBrowserGuess
  })

/** The data of a `reg query` value line: `    ProgId    REG_SZ    ChromeHTML`. */
export const parseRegValue = (text: string): string | undefined => {
  const m = text.match(/REG_(?:EXPAND_)?SZ[ \t]+([^\r\n]+)/)
  return m?.[1]?.trim()
}

/** The program of a Windows command line: the quoted first token, or everything up to `.exe`. */
export const windowsCommandProgram = (command: string): string | undefined => {
  const c = command.trim()
  if (c.startsWith('"')) {
    const end = c.indexOf('"', 1)
    return end > 1 ? c.slice(1, end) : undefined
  }
  const m = c.match(/^(.*?\.exe)\b/i)
  return m?.[1] ?? c.split(/\s+/)[0]
}

const detectWindows = Effect.gen(function* () {
  const choice = yield* runQuiet(
    "reg",
    ["query", "HKCU\\Software\\Microsoft\\Windows\\Shell\\Associations\\UrlAssociations\\http\\UserChoice", "/v", "ProgId"],
    DEFAULT_BROWSER_TIMEOUT_MS
  )
  const progId = choice === undefined ? undefined : parseRegValue(choice)
  if (progId === undefined) return undefined
  const command = yield* runQuiet(
    "reg",
    ["query", `HKCR\\${progId}\\shell\\open\\command`, "/ve"],
    DEFAULT_BROWSER_TIMEOUT_MS
  )
  const line = command === undefined ? undefined : parseRegValue(command)
  const program = line === undefined ? undefined : windowsCommandProgram(line)
  if (program === undefined) return undefined
  return { id: progId, paths: [program] } satisfies DefaultBrowserGuess
})

/** The real default-browser probe for this platform. Never fails; undefined when unknown. */
export const detectDefaultBrowser = (
  platform: NodeJS.Platform,
  env: Readonly<Record<string, string | undefined>>,
  homedir: string
): Effect.Effect<DefaultBrowserGuess | undefined> => {
  const probe =
    platform === "darwin" ? detectMac(homedir) : platform === "win32" ? detectWindows : detectLinux(env, homedir)
  return probe.pipe(Effect.catchAllCause(() => Effect.succeed(undefined)))
}

export class ChromeLocator extends Effect.Service<ChromeLocator>()("svc/ChromeLocator", {
  sync: () => {
    const platform = process.platform
    const env = { ...process.env }
    const homedir = os.homedir()
    const deps: LocateDeps = {
      platform,
      env,
      homedir,
      probe: (file) => probeExecutable(file, platform),
      defaultBrowser: () => detectDefaultBrowser(platform, env, homedir)
    }
    return {
      locate: (configured: string | undefined): Effect.Effect<LocatedBrowser, BrowserUnavailable> =>
        locateBrowser(configured, deps).pipe(Effect.withSpan("ChromeLocator.locate"))
    }
  }
}) {}
