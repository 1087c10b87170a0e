import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import { Cause, Effect, Exit, Fiber, TestClock } from "effect"
import {
  type Candidate,
  ChromeLocator,
  candidatePaths,
  classifyBrowser,
  type DefaultBrowserGuess,
  desktopEntryExec,
  type LocateDeps,
  locateBrowser,
  parseDesktopExec,
  parseLaunchServicesHandlers,
  parseRegValue,
  type ProbeResult,
  windowsCommandProgram
} from "../../../src/browser/launch/ChromeLocator.js"

const LINUX_ENV = { PATH: "/usr/local/bin:/usr/bin" }

/** Deps for a machine where exactly `present` are executables (others per `other`). */
const deps = (
  present: ReadonlyArray<string>,
  over: Partial<LocateDeps> = {},
  other: Record<string, ProbeResult> = {}
): LocateDeps & { probed: Array<string> } => {
  const probed: Array<string> = []
  return {
    platform: "linux",
    env: LINUX_ENV,
    homedir: "/home/ada",
    probe: (file) =>
      Effect.sync(() => {
        probed.push(file)
        return present.includes(file) ? "executable" : (other[file] ?? "missing")
      }),
    defaultBrowser: () => Effect.succeed(undefined),
    probed,
    ...over
  }
}

const guess = (id: string, ...paths: Array<string>) => (): Effect.Effect<DefaultBrowserGuess | undefined> =>
  Effect.succeed({ id, paths })

const failureMessage = <A>(exit: Exit.Exit<A, { readonly message: string }>): string => {
  if (Exit.isSuccess(exit)) throw new Error("expected locate to fail")
  const f = Cause.failureOption(exit.cause)
  if (f._tag === "None") throw new Error(Cause.pretty(exit.cause))
  return f.value.message
}

const firstIndexOfKind = (cs: ReadonlyArray<Candidate>, kind: Candidate["kind"]) => cs.findIndex((c) => c.kind === kind)

describe("candidatePaths", () => {
  it("Linux: Chrome, then Brave, Edge, Chromium, Canary; PATH entries before fixed install paths", () => {
    const cs = candidatePaths("linux", LINUX_ENV, "/home/ada")
    expect(cs[0]).toEqual({ kind: "chrome", path: "/usr/local/bin/google-chrome", command: "google-chrome" })
    expect(cs[1]?.path).toBe("/usr/bin/google-chrome")
    const order = (["chrome", "brave", "edge", "chromium", "canary"] as const).map((k) => firstIndexOfKind(cs, k))
    expect(order.every((i) => i >= 0)).toBe(true)
    expect([...order].sort((a, b) => a - b)).toEqual(order)
    const paths = cs.map((c) => c.path)
    for (const p of [
      "/usr/bin/google-chrome-stable",
      "/opt/google/chrome/chrome",
      "/usr/bin/brave-browser",
      "/usr/bin/microsoft-edge",
      "/usr/bin/chromium",
      "/usr/bin/chromium-browser",
      "/snap/bin/chromium"
    ]) {
      expect(paths).toContain(p)
    }
    expect(paths.indexOf("/usr/bin/google-chrome")).toBeLessThan(paths.indexOf("/opt/google/chrome/chrome"))
    expect(new Set(paths).size).toBe(paths.length)
  })

  it("Linux: searches the user's PATH, and the standard bin dirs even when PATH lacks them", () => {
    const cs = candidatePaths("linux", { PATH: "/home/ada/bin" }, "/home/ada")
    const paths = cs.map((c) => c.path)
    expect(paths[0]).toBe("/home/ada/bin/google-chrome")
    expect(paths).toContain("/usr/bin/chromium")
    expect(candidatePaths("linux", {}, "/home/ada").map((c) => c.path)).toContain("/usr/bin/google-chrome")
  })

  it("macOS: app bundles in /Applications, then ~/Applications, browser by browser", () => {
    const paths = candidatePaths("darwin", {}, "/Users/ada").map((c) => c.path)
    expect(paths.slice(0, 3)).toEqual([
      "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
      "/Users/ada/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
      "/Applications/Brave Browser.app/Contents/MacOS/Brave Browser"
    ])
    expect(paths).toContain("/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge")
    expect(paths).toContain("/Applications/Chromium.app/Contents/MacOS/Chromium")
    expect(paths.at(-1)).toBe("/Users/ada/Applications/Google Chrome Canary.app/Contents/MacOS/Google Chrome Canary")
  })

  it("Windows: Program Files, Program Files (x86), then LocalAppData, with env names in any case", () => {
    const env = {
      ProgramFiles: "D:\\Apps",
      "ProgramFiles(x86)": "D:\\Apps32",
      LocalAppData: "C:\\Users\\ada\\AppData\\Local"
    }
    const cs = candidatePaths("win32", env, "C:\\Users\\ada")
    expect(cs.slice(0, 3).map((c) => c.path)).toEqual([
      "D:\\Apps\\Google\\Chrome\\Application\\chrome.exe",
      "D:\\Apps32\\Google\\Chrome\\Application\\chrome.exe",
      "C:\\Users\\ada\\AppData\\Local\\Google\\Chrome\\Application\\chrome.exe"
    ])
    const paths = cs.map((c) => c.path)
    expect(paths).toContain("D:\\Apps\\Microsoft\\Edge\\Application\\msedge.exe")
    expect(paths).toContain("C:\\Users\\ada\\AppData\\Local\\BraveSoftware\\Brave-Browser\\Application\\brave.exe")
    expect(paths).toContain("C:\\Users\\ada\\AppData\\Local\\Google\\Chrome SxS\\Application\\chrome.exe")
    // Defaults when the environment says nothing.
    expect(candidatePaths("win32", {}, "C:\\Users\\ada")[0]?.path).toBe(
      "C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe"
    )
  })
})

describe("locateBrowser", () => {
  it.effect("a configured executable wins over the default browser and the search", () =>
    Effect.gen(function* () {
      const d = deps(["/custom/chrome-dev", "/usr/bin/google-chrome"], {
        defaultBrowser: guess("google-chrome.desktop", "/usr/bin/google-chrome")
      })
      const found = yield* locateBrowser("/custom/chrome-dev", d)
      expect(found).toEqual({ path: "/custom/chrome-dev", kind: "chrome", source: "config" })
    })
  )

  it.effect("a configured path that is missing fails saying so, without falling back to another browser", () =>
    Effect.gen(function* () {
      const d = deps(["/usr/bin/chromium"])
      const message = failureMessage(yield* Effect.exit(locateBrowser("/opt/nope/chrome", d)))
      expect(message).toContain("browser.executablePath")
      expect(message).toContain('"/opt/nope/chrome"')
      expect(message).toContain("nothing is there")
      expect(d.probed).toEqual(["/opt/nope/chrome"])
    })
  )

  it.effect("a configured file that is not executable fails saying so", () =>
    Effect.gen(function* () {
      const d = deps([], {}, { "/home/ada/chrome.txt": "not-executable" })
      const message = failureMessage(yield* Effect.exit(locateBrowser("~/chrome.txt", d)))
      expect(message).toContain("not executable")
      expect(message).toContain("/home/ada/chrome.txt")
    })
  )

  it.effect("a configured macOS app bundle resolves to the executable inside it", () =>
    Effect.gen(function* () {
      const exe = "/Applications/Brave Browser.app/Contents/MacOS/Brave Browser"
      const found = yield* locateBrowser("/Applications/Brave Browser.app", deps([exe], { platform: "darwin" }))
      expect(found).toEqual({ path: exe, kind: "brave", source: "config" })
    })
  )

  it.effect("a Chromium-based default browser is preferred over the search order", () =>
    Effect.gen(function* () {
      const d = deps(["/usr/bin/brave-browser-stable", "/usr/bin/google-chrome"], {
        defaultBrowser: guess("brave-browser.desktop", "/usr/bin/brave-browser-stable")
      })
      expect(yield* locateBrowser(undefined, d)).toEqual({
        path: "/usr/bin/brave-browser-stable",
        kind: "brave",
        source: "default-browser"
      })
    })
  )

  it.effect("a default browser that is not Chromium-based (Firefox) is skipped", () =>
    Effect.gen(function* () {
      const d = deps(["/usr/bin/firefox", "/usr/bin/chromium"], {
        defaultBrowser: guess("firefox.desktop", "/usr/bin/firefox")
      })
      expect(yield* locateBrowser(undefined, d)).toEqual({ path: "/usr/bin/chromium", kind: "chromium", source: "search" })
    })
  )

  it.effect("a default browser started through a launcher (flatpak) is skipped: it would not take our flags", () =>
    Effect.gen(function* () {
      const d = deps(["/usr/bin/flatpak", "/usr/bin/chromium"], {
        defaultBrowser: guess("com.google.Chrome.desktop", "/usr/bin/flatpak")
      })
      expect((yield* locateBrowser(undefined, d)).source).toBe("search")
    })
  )

  it.effect("a default-browser probe that hangs is abandoned after 1.5 s and the search goes on", () =>
    Effect.gen(function* () {
      const d = deps(["/usr/bin/chromium"], { defaultBrowser: () => Effect.never })
      const fiber = yield* Effect.fork(locateBrowser(undefined, d))
      yield* TestClock.adjust("1499 millis")
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust("2 millis")
      const found = yield* Fiber.join(fiber)
      expect(found.source).toBe("search")
    })
  )

  it.effect("a default-browser probe that crashes does not stop the search", () =>
    Effect.gen(function* () {
      const d = deps(["/usr/bin/chromium"], { defaultBrowser: () => Effect.die(new Error("boom")) })
      expect((yield* locateBrowser(undefined, d)).path).toBe("/usr/bin/chromium")
    })
  )

  it.effect("the search takes the first executable in order (Chrome before Chromium)", () =>
    Effect.gen(function* () {
      const d = deps(["/usr/bin/chromium", "/opt/google/chrome/chrome"])
      expect(yield* locateBrowser(undefined, d)).toEqual({
        path: "/opt/google/chrome/chrome",
        kind: "chrome",
        source: "search"
      })
    })
  )

  it.effect("when nothing is found, the error lists what was searched, compactly, and how to fix it", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(locateBrowser(undefined, deps([])))
      expect(Exit.isFailure(exit) && Cause.failureOption(exit.cause).pipe((o) => o._tag === "Some" && o.value._tag)).toBe(
        "BrowserUnavailable"
      )
      const message = failureMessage(exit)
      expect(message).toContain("No Chromium-based browser found")
      expect(message).toContain("google-chrome, google-chrome-stable")
      expect(message).toContain("chromium-browser")
      expect(message).toContain("/opt/google/chrome/chrome")
      expect(message).toContain("in /usr/local/bin:/usr/bin:/snap/bin")
      expect(message).toContain("apt-get install chromium")
      expect(message).toContain("browser.executablePath")
      expect(message).toContain("cdpUrl")
      // Commands are named once, not once per PATH directory.
      expect(message).not.toContain("/usr/local/bin/google-chrome")
      expect(message.length).toBeLessThan(1200)
    })
  )

  it.effect("on macOS the not-found message lists the app bundles and does not suggest apt-get", () =>
    Effect.gen(function* () {
      const message = failureMessage(yield* Effect.exit(locateBrowser(undefined, deps([], { platform: "darwin" }))))
      expect(message).toContain("/Applications/Google Chrome.app/Contents/MacOS/Google Chrome")
      expect(message).not.toContain("apt-get")
      expect(message).toContain("browser.executablePath")
    })
  )
})

describe("recognising browsers", () => {
  it("classifies binaries, desktop ids, bundle ids and ProgIds; rejects Firefox and Safari", () => {
    const cases: Array<[string, string | undefined]> = [
      ["google-chrome-stable", "chrome"],
      ["google-chrome.desktop", "chrome"],
      ["com.google.chrome", "chrome"],
      ["ChromeHTML", "chrome"],
      ["chrome.exe", "chrome"],
      ["chromium", "chromium"],
      ["ChromiumHTM", "chromium"],
      ["brave-browser-stable", "brave"],
      ["BraveHTML", "brave"],
      ["msedge.exe", "edge"],
      ["MSEdgeHTM", "edge"],
      ["microsoft-edge.desktop", "edge"],
      ["com.microsoft.edgemac", "edge"],
      ["google-chrome-canary", "canary"],
      ["com.google.chrome.canary", "canary"],
      ["vivaldi-stable", "vivaldi"],
      ["opera", "opera"],
      ["firefox.desktop", undefined],
      ["org.mozilla.firefox", undefined],
      ["com.apple.safari", undefined],
      ["flatpak", undefined],
      ["knowledge-base", undefined]
    ]
    for (const [name, kind] of cases) expect([name, classifyBrowser(name)]).toEqual([name, kind])
  })

  it("reads the program of a desktop entry's Exec line", () => {
    const entry = [
      "[Desktop Entry]",
      "Name=Chromium",
      "Exec=/usr/bin/chromium %U",
      "[Desktop Action new-window]",
      "Exec=/usr/bin/chromium --new-window"
    ].join("\n")
    expect(desktopEntryExec(entry)).toBe("/usr/bin/chromium %U")
    expect(parseDesktopExec("/usr/bin/chromium %U")).toEqual(["/usr/bin/chromium"])
    expect(parseDesktopExec('"/opt/My Browser/chrome" --flag %u')).toEqual(["/opt/My Browser/chrome", "--flag"])
    expect(parseDesktopExec("env GDK_BACKEND=x11 BAMF=1 google-chrome %U")).toEqual(["google-chrome"])
  })

  it("reads the http handler from the LaunchServices preferences", () => {
    const text = `(
        {
        LSHandlerContentType = "public.html";
        LSHandlerRoleAll = "com.apple.safari";
    },
        {
        LSHandlerPreferredVersions =         {
            LSHandlerRoleAll = "-";
        };
        LSHandlerRoleAll = "com.brave.browser";
        LSHandlerURLScheme = http;
    },
        {
        LSHandlerRoleAll = "com.google.chrome";
        LSHandlerURLScheme = https;
    }
)`
    expect(parseLaunchServicesHandlers(text)).toBe("com.brave.browser")
    expect(parseLaunchServicesHandlers("()")).toBeUndefined()
  })

  it("reads the Windows ProgId and the program of its open command", () => {
    const choice =
      "\r\nHKEY_CURRENT_USER\\Software\\Microsoft\\Windows\\Shell\\Associations\\UrlAssociations\\http\\UserChoice\r\n    ProgId    REG_SZ    ChromeHTML\r\n\r\n"
    expect(parseRegValue(choice)).toBe("ChromeHTML")
    const command =
      '\r\nHKEY_CLASSES_ROOT\\ChromeHTML\\shell\\open\\command\r\n    (Default)    REG_SZ    "C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe" --single-argument %1\r\n'
    const line = parseRegValue(command)!
    expect(windowsCommandProgram(line)).toBe("C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe")
    expect(windowsCommandProgram("C:\\Apps\\msedge.exe --single-argument %1")).toBe("C:\\Apps\\msedge.exe")
  })
})

describe("ChromeLocator on this machine", () => {
  it.runIf(process.platform === "linux" && fs.existsSync("/usr/bin/chromium"))(
    "finds the installed Chromium",
    () =>
      Effect.gen(function* () {
        const locator = yield* ChromeLocator
        const found = yield* locator.locate(undefined)
        expect(["/usr/bin/chromium", "/usr/lib/chromium/chromium"]).toContain(found.path)
        expect(found.kind).toBe("chromium")
        const missing = yield* Effect.exit(locator.locate("/definitely/not/here"))
        expect(failureMessage(missing)).toContain("/definitely/not/here")
      }).pipe(Effect.provide(ChromeLocator.Default), Effect.runPromise)
  )
})
