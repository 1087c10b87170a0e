import { Effect, Layer, Logger, ManagedRuntime } from "effect"
import type { Page } from "playwright-core"
import { afterEach, describe, expect, it } from "vitest"
import { Emulation } from "../../../src/browser/inspect/Emulation.js"
import { scrub, secretsOf } from "../../../src/browser/inspect/emulationApply.js"
import { makeEmulationSettings } from "../../../src/browser/inspect/EmulationSettings.js"
import { type PageGate, PlaywrightSessions } from "../../../src/browser/pages/Playwright.js"

// Emulation's memory of settings, against fake library objects: what goes back on a new connection's
// contexts and pages, what is reported when it cannot, and what is forgotten.

type Call = readonly [string, unknown]

const fakeBrowser = (alive: () => ReadonlyArray<string>) => {
  const browser = {
    connected: true,
    isConnected: () => browser.connected,
    newBrowserCDPSession: async () => ({
      send: async () => ({ targetInfos: alive().map((targetId) => ({ targetId })) }),
      detach: async () => undefined
    })
  }
  return browser
}

type FakeBrowser = ReturnType<typeof fakeBrowser>

interface Held {
  readonly page: Page
  readonly session: unknown
}

const fakeContext = (browser: FakeBrowser, fail: (method: string) => string | undefined = () => undefined) => {
  const calls: Array<Call> = []
  const pages: Array<Held> = []
  const call = (method: string, arg: unknown) => {
    calls.push([method, arg])
    const error = fail(method)
    return error === undefined ? Promise.resolve() : Promise.reject(new Error(error))
  }
  const context = {
    calls,
    pages: () => pages.map((p) => p.page),
    add: (p: Held) => void pages.push(p),
    browser: () => browser,
    newCDPSession: async (page: Page) => pages.find((p) => p.page === page)!.session,
    setOffline: (on: boolean) => call("setOffline", on),
    setExtraHTTPHeaders: (h: unknown) => call("setExtraHTTPHeaders", h),
    setHTTPCredentials: (c: unknown) => call("setHTTPCredentials", c),
    setGeolocation: (g: unknown) => call("setGeolocation", g),
    grantPermissions: (p: unknown, o: unknown) => call("grantPermissions", [p, o]),
    clearPermissions: () => call("clearPermissions", undefined)
  }
  return context
}

interface FakeContext {
  readonly calls: Array<Call>
  readonly add: (p: Held) => void
}

const fakePage = (context: FakeContext & object, targetId: string, fail: (method: string) => string | undefined = () => undefined) => {
  const calls: Array<Call> = []
  const onClose: Array<() => void> = []
  let closed = false
  const page = {
    context: () => context,
    isClosed: () => closed,
    once: (event: string, f: () => void) => {
      if (event === "close") onClose.push(f)
    },
    url: () => "http://127.0.0.1:9/",
    emulateMedia: (o: unknown) => {
      calls.push(["emulateMedia", o])
      const error = fail("emulateMedia")
      return error === undefined ? Promise.resolve() : Promise.reject(new Error(error))
    },
    evaluate: async () => "Mozilla/5.0 (X11; Linux x86_64) Test"
  }
  const fake = {
    page: page as unknown as Page,
    calls,
    session: {
      send: (method: string, params: unknown) => {
        calls.push([method, params])
        const error = fail(method)
        if (error !== undefined) return Promise.reject(new Error(error))
        return Promise.resolve(method === "Target.getTargetInfo" ? { targetInfo: { targetId } } : {})
      },
      detach: async () => undefined
    },
    close: () => {
      closed = true
      for (const f of onClose) f()
    }
  }
  context.add(fake)
  return fake
}

type FakePage = ReturnType<typeof fakePage>

const setup = () => {
  const hooks: {
    context?: (profile: string, context: unknown) => void
    gate?: PageGate
    release?: (profile: string) => void
  } = {}
  const sessions = Layer.succeed(
    PlaywrightSessions,
    PlaywrightSessions.make({
      preload: Effect.void,
      knownPage: () => undefined,
      evaluateMain: () => undefined,
      evaluateUtility: () => undefined,
      evaluateUtilityDirect: () => undefined,
      evaluateInFrameWorld: () => Promise.resolve(undefined),
      evaluateInLocalFrames: () => Promise.resolve([]),
      evaluateInLocalFramesDirect: () => Promise.resolve([]),
      sendMark: () => 0,
      barrier: () => Promise.resolve(),
      openedBy: () => undefined,
      browserSession: () => undefined,
      pageOfTarget: async () => undefined,
      pageSession: () => Promise.resolve(undefined),
      page: () => Effect.die("unused"),
      attach: () => Effect.void,
      disconnect: () => Effect.succeed(false),
      navigations: () => Effect.succeed(0),
      counted: () => Promise.resolve(false),
      title: () => Effect.succeed(""),
      pageTargets: () => Effect.succeed(undefined),
      targetIdOf: () => Effect.succeed(undefined),
      lastTimings: () => Effect.succeed({ connectMs: undefined, lookupMs: undefined, connectedAt: undefined }),
      available: Effect.succeed(true),
      onPage: () => Effect.void,
      onContext: (observer) => Effect.sync(() => void (hooks.context = observer as (profile: string, context: unknown) => void)),
      beforeHandOut: (gate) => Effect.sync(() => void (hooks.gate = gate)),
      ready: () => Effect.void,
      onRelease: (observer) => Effect.sync(() => void (hooks.release = observer))
    })
  )
  const logs: Array<string> = []
  const logger = Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => void logs.push(String(message))))
  const runtime = ManagedRuntime.make(Emulation.DefaultWithoutDependencies.pipe(Layer.provide(sessions), Layer.provide(logger)))
  const run = <A, E>(f: (e: Emulation) => Effect.Effect<A, E>) => runtime.runPromise(Effect.flatMap(Emulation, f))
  /** What page() does: the gate, then the page. */
  const handOut = async (targetId: string, p: FakePage, profile = "svc") => {
    await run(() => hooks.gate!(profile, targetId, p.page))
    return p.page
  }
  /** A new connection: its context is seen (and its pages with it). */
  const connect = (context: FakeContext, profile = "svc") => run(() => Effect.sync(() => hooks.context!(profile, context)))
  return { runtime, run, handOut, connect, hooks, logs }
}

let current: ReturnType<typeof setup> | undefined
afterEach(async () => {
  await current?.runtime.dispose()
  current = undefined
})

const methods = (calls: ReadonlyArray<Call>) => calls.map(([m]) => m).filter((m) => m !== "Target.getTargetInfo")

describe("Emulation across a re-made connection", () => {
  it("puts the tab's and the profile's settings back on the new context and page", async () => {
    const t = (current = setup())
    const b1 = fakeBrowser(() => ["T1"])
    const c1 = fakeContext(b1)
    const p1 = fakePage(c1, "T1")
    await t.connect(c1)
    const page = await t.handOut("T1", p1)
    await t.run((e) => e.timezone(page, "Asia/Tokyo"))
    await t.run((e) => e.locale(page, "fr-FR"))
    await t.run((e) => e.media(page, { media: "dark" }))
    await t.run((e) => e.headers(page, { "X-A": "1" }))
    await t.run((e) => e.offline(page, true))

    // The connection drops and is made again: new context, new page object for the same tab.
    b1.connected = false
    const c2 = fakeContext(fakeBrowser(() => ["T1"]))
    const p2 = fakePage(c2, "T1")
    await t.connect(c2)
    await t.handOut("T1", p2)
    expect(methods(c2.calls)).toEqual(["setOffline", "setExtraHTTPHeaders"])
    expect(c2.calls).toContainEqual(["setExtraHTTPHeaders", { "X-A": "1" }])
    expect(p2.calls).toEqual(expect.arrayContaining([
      ["emulateMedia", { colorScheme: "dark", reducedMotion: null, forcedColors: null, contrast: null, media: null }],
      ["Emulation.setTimezoneOverride", { timezoneId: "Asia/Tokyo" }],
      ["Emulation.setLocaleOverride", { locale: "fr-FR" }],
      ["Emulation.setUserAgentOverride", { userAgent: "Mozilla/5.0 (X11; Linux x86_64) Test", acceptLanguage: "fr-FR" }]
    ]))
    // Once: the next request on the same page object does not send them again.
    const sent = p2.calls.length
    await t.handOut("T1", p2)
    expect(p2.calls.length).toBe(sent)
  })

  it("a setting that cannot be put back is logged without secrets and named by the next emulation call, once", async () => {
    const t = (current = setup())
    const b1 = fakeBrowser(() => ["T1"])
    const c1 = fakeContext(b1)
    const p1 = fakePage(c1, "T1")
    const page = await t.handOut("T1", p1)
    await t.run((e) => e.timezone(page, "Asia/Tokyo"))
    await t.run((e) => e.media(page, { media: "light" }))
    await t.run((e) => e.headers(page, { "X-Token": "hunter2-secret" }))
    await t.run((e) => e.credentials(page, { user: "ada", pass: "lovelace-pw" }))

    b1.connected = false
    const c2 = fakeContext(fakeBrowser(() => ["T1"]), (m: string) =>
      m === "setExtraHTTPHeaders" ? "bad header value hunter2-secret" : m === "setHTTPCredentials" ? "refused lovelace-pw" : undefined)
    const p2 = fakePage(c2, "T1", (m) => (m === "Emulation.setTimezoneOverride" ? "Target crashed" : undefined))
    await t.connect(c2)
    const page2 = await t.handOut("T1", p2)

    const done = await t.run((e) => e.media(page2, { media: "dark" }))
    expect(done.notes).toHaveLength(3)
    expect(done.notes.join("\n")).toMatch(/the time zone of tab T1 could not be applied again .*Target crashed.*set it again/)
    expect(done.notes.join("\n")).toMatch(/the extra headers of profile "svc"/)
    expect(done.notes.join("\n")).toMatch(/the HTTP credentials of profile "svc"/)
    for (const text of [...done.notes, ...t.logs]) {
      expect(text).not.toContain("hunter2-secret")
      expect(text).not.toContain("lovelace-pw")
    }
    expect(t.logs.filter((l) => l.startsWith("emulation:"))).toHaveLength(3)
    // Reported once.
    expect((await t.run((e) => e.media(page2, { media: "light" }))).notes).toEqual([])

    // What was lost is no longer claimed: the next connection does not try it again; the rest comes back.
    const c3 = fakeContext(fakeBrowser(() => ["T1"]))
    const p3 = fakePage(c3, "T1")
    await t.connect(c3)
    await t.handOut("T1", p3)
    expect(methods(c3.calls)).toEqual([])
    expect(methods(p3.calls)).toEqual(["emulateMedia"])
  })

  it("a connection that drops again while settings go back loses none of them", async () => {
    const t = (current = setup())
    const b1 = fakeBrowser(() => ["T1"])
    const p1 = fakePage(fakeContext(b1), "T1")
    const page = await t.handOut("T1", p1)
    await t.run((e) => e.headers(page, { "X-A": "1" }))
    await t.run((e) => e.timezone(page, "Asia/Tokyo"))

    b1.connected = false
    const b2 = fakeBrowser(() => ["T1"])
    const c2 = fakeContext(b2, () => {
      b2.connected = false
      return "Target page, context or browser has been closed"
    })
    const p2 = fakePage(c2, "T1", (m) => {
      if (m === "Target.getTargetInfo") return undefined
      p2.close()
      return "Target page, context or browser has been closed"
    })
    await t.connect(c2)
    await t.handOut("T1", p2)
    expect((await t.run((e) => e.media(page, { media: "dark" }))).notes).toEqual([])

    const c3 = fakeContext(fakeBrowser(() => ["T1"]))
    const p3 = fakePage(c3, "T1")
    await t.connect(c3)
    await t.handOut("T1", p3)
    expect(c3.calls).toEqual([["setExtraHTTPHeaders", { "X-A": "1" }]])
    expect(p3.calls).toContainEqual(["Emulation.setTimezoneOverride", { timezoneId: "Asia/Tokyo" }])
  })

  it("forgets a closed tab, but not the tabs of a connection that dropped", async () => {
    const t = (current = setup())
    const b1 = fakeBrowser(() => ["T1", "T2"])
    const c1 = fakeContext(b1)
    const p1 = fakePage(c1, "T1")
    const q1 = fakePage(c1, "T2")
    const a = await t.handOut("T1", p1)
    const b = await t.handOut("T2", q1)
    await t.run((e) => e.timezone(a, "Asia/Tokyo"))
    await t.run((e) => e.timezone(b, "Europe/Berlin"))

    // T1 is closed while connected: forgotten after the grace.
    p1.close()
    await new Promise((r) => setTimeout(r, 800))
    // The connection drops: every page closes, nothing is forgotten.
    b1.connected = false
    q1.close()
    await new Promise((r) => setTimeout(r, 800))

    const c2 = fakeContext(fakeBrowser(() => ["T1", "T2"]))
    const p2 = fakePage(c2, "T1")
    const q2 = fakePage(c2, "T2")
    await t.handOut("T1", p2)
    await t.handOut("T2", q2)
    expect(p2.calls).toEqual([])
    expect(q2.calls).toContainEqual(["Emulation.setTimezoneOverride", { timezoneId: "Europe/Berlin" }])
  })

  it("forgets tabs the browser no longer has when a connection is made, and everything when the profile is let go", async () => {
    const t = (current = setup())
    const b1 = fakeBrowser(() => ["T1", "T2"])
    const c1 = fakeContext(b1)
    const p1 = fakePage(c1, "T1")
    const q1 = fakePage(c1, "T2")
    await t.handOut("T1", p1)
    await t.handOut("T2", q1)
    await t.run((e) => e.timezone(p1.page, "Asia/Tokyo"))
    await t.run((e) => e.timezone(q1.page, "Europe/Berlin"))
    await t.run((e) => e.offline(q1.page, true))

    // T2 was closed while the gateway was not connected.
    b1.connected = false
    const c2 = fakeContext(fakeBrowser(() => ["T1"]))
    await t.connect(c2)
    await new Promise((r) => setTimeout(r, 100))
    const q2 = fakePage(c2, "T2")
    await t.handOut("T2", q2)
    expect(q2.calls).toEqual([])

    t.hooks.release!("svc")
    const c3 = fakeContext(fakeBrowser(() => ["T1"]))
    const p3 = fakePage(c3, "T1")
    await t.connect(c3)
    await t.handOut("T1", p3)
    expect(c3.calls).toEqual([])
    expect(p3.calls).toEqual([])
  })
})

describe("EmulationSettings", () => {
  it("keeps at most maxTabs tabs, dropping the least recently set", () => {
    const s = makeEmulationSettings(2)
    s.setTab({ profile: "a", targetId: "1" }, { timezone: "UTC" })
    s.setTab({ profile: "a", targetId: "2" }, { timezone: "UTC" })
    s.setTab({ profile: "a", targetId: "1" }, { locale: "de" })
    s.setTab({ profile: "a", targetId: "3" }, { timezone: "UTC" })
    expect(s.tab({ profile: "a", targetId: "2" })).toBeUndefined()
    expect(s.tab({ profile: "a", targetId: "1" })).toEqual({ locale: "de" })
    expect(s.size().tabs).toBe(2)
  })

  it("drops a tab or a profile whose settings are all cleared", () => {
    const s = makeEmulationSettings()
    s.setTab({ profile: "a", targetId: "1" }, { media: undefined })
    s.setProfile("a", { offline: undefined, headers: undefined })
    expect(s.size()).toEqual({ profiles: 0, tabs: 0 })
  })

  it("hands each note out once and keeps a bounded number", () => {
    const s = makeEmulationSettings()
    for (let i = 0; i < 30; i++) s.note("a", `n${i}`)
    const notes = s.takeNotes("a")
    expect(notes).toHaveLength(20)
    expect(notes[19]).toBe("n29")
    expect(s.takeNotes("a")).toEqual([])
  })

  it("scrubs header values and credentials out of a reason", () => {
    const secrets = secretsOf({ headers: { "X-T": "tok123" }, credentials: { user: "ada", pass: "pw-9" } })
    expect(scrub("header tok123 refused for ada with pw-9", secrets)).toBe("header *** refused for *** with ***")
  })
})
