import { it } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import type { Page } from "playwright-core"
import { describe, expect } from "vitest"
import { PlaywrightSessions } from "../../../src/browser/pages/Playwright.js"
import { FRESH_SNAPSHOT_HINT, parseRef, Refs, roleKey } from "../../../src/browser/act/Refs.js"
import { renderAiSnapshot } from "../../../src/browser/snapshot/AiSnapshot.js"
import { Conflict, InvalidRequest } from "../../../src/domain/errors.js"

// Ref parsing and the ref tables over a fake page: which refs resolve, and that every untrustworthy one
// fails fast with the fresh-snapshot message.

describe("parseRef", () => {
  it("accepts numeric, role and frame-qualified refs, and the wrappers agents copy", () => {
    expect(parseRef("12")).toEqual({ kind: "ai", key: "12" })
    expect(parseRef(" 012 ")).toEqual({ kind: "ai", key: "12" })
    expect(parseRef("[ref=12]")).toEqual({ kind: "ai", key: "12" })
    expect(parseRef("ref=f1e2")).toEqual({ kind: "ai", key: "f1e2" })
    expect(parseRef("@e3")).toEqual({ kind: "role", key: "e3" })
    expect(parseRef("E3")).toEqual({ kind: "role", key: "e3" })
    expect(parseRef("f12e345")).toEqual({ kind: "ai", key: "f12e345" })
  })

  it("refuses CSS selectors, XPath and text selectors, pointing at snapshot refs", () => {
    for (const s of ["#id", ".cls", "button", "div > a", "[data-x]", "text=Save", "xpath=//a", "//a", "a:nth-child(2)", "css=button"]) {
      const r = parseRef(s)
      expect(r, s).toBeInstanceOf(InvalidRequest)
      const message = (r as InvalidRequest).message
      expect(message, s).toContain("svc browser snapshot")
      expect(message, s).toContain("[ref=")
      expect(message, s).toMatch(/selector/)
    }
    expect(parseRef("")).toBeInstanceOf(InvalidRequest)
    expect(parseRef("12abc")).toBeInstanceOf(InvalidRequest)
    expect(parseRef("e")).toBeInstanceOf(InvalidRequest)
  })
})

// ---------------------------------------------------------------------------------------------------------
// A fake page: aria refs known to "playwright", role counts, a navigation counter.

interface FakePage {
  readonly page: Page
  readonly known: Set<string>
  readonly counts: Map<string, number>
  navigations: number
  closed: boolean
  normalizeHangs: boolean
  readonly selectors: Array<string>
}

const fakePage = (): FakePage => {
  const fake: FakePage = {
    known: new Set(),
    counts: new Map(),
    navigations: 0,
    closed: false,
    normalizeHangs: false,
    selectors: [],
    page: undefined as unknown as Page
  }
  const roleLocator = (role: string, options: { name?: string }, index?: number): unknown => ({
    kind: "role",
    role,
    name: options.name,
    index,
    count: async () => fake.counts.get(`${role}:${options.name ?? "*"}`) ?? 0,
    nth: (k: number) => roleLocator(role, options, k)
  })
  const page = {
    isClosed: () => fake.closed,
    url: () => "http://127.0.0.1/now",
    locator: (selector: string) => {
      fake.selectors.push(selector)
      const ref = selector.replace(/^aria-ref=/, "")
      return {
        kind: "aria",
        selector,
        normalize: () =>
          fake.normalizeHangs
            ? new Promise(() => undefined)
            : fake.known.has(ref)
            ? Promise.resolve({})
            : Promise.reject(new Error(`locator.normalize: No element matching ${selector}`))
      }
    },
    getByRole: (role: string, options: { name?: string } = {}) => roleLocator(role, options)
  }
  ;(fake as { page: Page }).page = page as unknown as Page
  return fake
}

const setup = () => {
  const pages = new Map<Page, FakePage>()
  const sessions = Layer.succeed(
    PlaywrightSessions,
    PlaywrightSessions.make({
      page: () => Effect.die("unused"),
      attach: () => Effect.void,
      disconnect: () => Effect.succeed(false),
      navigations: (page: Page) => Effect.sync(() => pages.get(page)?.navigations ?? 0),
      title: () => Effect.succeed(""),
      targetIdOf: () => Effect.succeed(undefined),
      lastTimings: () => Effect.succeed({ connectMs: undefined, lookupMs: undefined, connectedAt: undefined }),
      available: Effect.succeed(true),
      onPage: () => Effect.void,
      onContext: () => Effect.void
    })
  )
  const layer = Refs.DefaultWithoutDependencies.pipe(Layer.provide(sessions))
  const newPage = () => {
    const p = fakePage()
    pages.set(p.page, p)
    return p
  }
  return { layer, newPage }
}

const tab = { profile: "svc", targetId: "T1" }

const AI = (prefix: string, ids: ReadonlyArray<number>) =>
  ["- generic [ref=" + prefix + "e1]:", ...ids.map((i) => `  - button "B${i}" [ref=${prefix}e${i}]`)].join("\n")

const recordAi = (refs: Refs, fake: FakePage, raw: string) =>
  refs.recordAi(tab, fake.navigations, (baseFor) => {
    const r = renderAiSnapshot(raw, { limit: 80_000, baseFor })
    for (const [, e] of r.entries) fake.known.add(e.aria)
    return r
  })

const expectConflict = (e: Either.Either<unknown, unknown>) => {
  expect(Either.isLeft(e)).toBe(true)
  const err = (e as Either.Left<unknown, unknown>).left
  expect(err).toBeInstanceOf(Conflict)
  expect((err as Conflict).message).toContain(FRESH_SNAPSHOT_HINT)
  return (err as Conflict).message
}

describe("Refs over a fake page", () => {
  it.effect("resolves a numeric ref through its aria ref", () => {
    const { layer, newPage } = setup()
    return Effect.gen(function*() {
      const refs = yield* Refs
      const fake = newPage()
      const r = yield* recordAi(refs, fake, AI("", [2, 3]))
      expect(r.text).toContain('button "B2" [ref=2]')
      const resolved = yield* refs.resolve(tab, fake.page, "2")
      expect((resolved.locator as unknown as { selector: string }).selector).toBe("aria-ref=e2")
      expect(resolved.description).toBe('button "B2"')
    }).pipe(Effect.provide(layer))
  })

  it.effect("never reuses a number after the main document changed", () => {
    const { layer, newPage } = setup()
    return Effect.gen(function*() {
      const refs = yield* Refs
      const fake = newPage()
      const first = yield* recordAi(refs, fake, AI("", [2, 3]))
      expect(Object.keys(first.refs)).toEqual(["1", "2", "3"])
      // Same document, new element: same numbers for the old ones.
      const again = yield* recordAi(refs, fake, AI("", [2, 3, 4]))
      expect(Object.keys(again.refs)).toEqual(["1", "2", "3", "4"])
      // The page navigated: playwright restarts at e1 under a new prefix, we continue past 4.
      fake.navigations++
      const next = yield* recordAi(refs, fake, AI("f5", [2]))
      expect(Object.keys(next.refs)).toEqual(["5", "6"])
      const old = yield* Effect.either(refs.resolve(tab, fake.page, "2"))
      expect(expectConflict(old)).toContain("not in the latest snapshot")
      expect((yield* refs.resolve(tab, fake.page, "6")).name).toBe("B2")
    }).pipe(Effect.provide(layer))
  })

  it.effect("a ref after a cross-document navigation fails at once", () => {
    const { layer, newPage } = setup()
    return Effect.gen(function*() {
      const refs = yield* Refs
      const fake = newPage()
      yield* recordAi(refs, fake, AI("", [2]))
      fake.navigations++
      const t0 = performance.now()
      const e = yield* Effect.either(refs.resolve(tab, fake.page, "2"))
      expect(expectConflict(e)).toContain("navigated")
      expect(performance.now() - t0).toBeLessThan(100)
    }).pipe(Effect.provide(layer))
  })

  it.effect("a ref playwright no longer knows (re-rendered element) is stale", () => {
    const { layer, newPage } = setup()
    return Effect.gen(function*() {
      const refs = yield* Refs
      const fake = newPage()
      yield* recordAi(refs, fake, AI("", [2]))
      fake.known.delete("e2")
      expect(expectConflict(yield* Effect.either(refs.resolve(tab, fake.page, "2")))).toContain("no longer matches")
    }).pipe(Effect.provide(layer))
  })

  it.live("a check that does not answer gives up within about two seconds", () => {
    const { layer, newPage } = setup()
    return Effect.gen(function*() {
      const refs = yield* Refs
      const fake = newPage()
      yield* recordAi(refs, fake, AI("", [2]))
      fake.normalizeHangs = true
      const t0 = performance.now()
      expectConflict(yield* Effect.either(refs.resolve(tab, fake.page, "2")))
      expect(performance.now() - t0).toBeLessThan(2_500)
    }).pipe(Effect.provide(layer))
  })

  it.effect("refs of another tab, or before any snapshot, are unknown", () => {
    const { layer, newPage } = setup()
    return Effect.gen(function*() {
      const refs = yield* Refs
      const fake = newPage()
      expect(expectConflict(yield* Effect.either(refs.resolve(tab, fake.page, "1")))).toContain("no AI snapshot")
      yield* recordAi(refs, fake, AI("", [2]))
      expectConflict(yield* Effect.either(refs.resolve({ profile: "svc", targetId: "T2" }, fake.page, "2")))
      expectConflict(yield* Effect.either(refs.resolve(tab, fake.page, "e2")))
    }).pipe(Effect.provide(layer))
  })

  it.effect("a CSS selector is refused before anything else", () => {
    const { layer, newPage } = setup()
    return Effect.gen(function*() {
      const refs = yield* Refs
      const fake = newPage()
      const e = yield* Effect.either(refs.resolve(tab, fake.page, "#submit"))
      expect(Either.isLeft(e) && e.left).toBeInstanceOf(InvalidRequest)
      expect(fake.selectors).toEqual([])
    }).pipe(Effect.provide(layer))
  })

  const recordRole = (refs: Refs, fake: FakePage, targets: ReadonlyArray<{ role: string; name?: string; nth: number; count: number }>) =>
    refs.recordRole(tab, fake.navigations, undefined, (numberFor) => ({
      entries: targets.map((t) => {
        const entry = { role: t.role, name: t.name, nth: t.nth, count: t.count }
        return [`e${numberFor(roleKey(entry))}`, entry] as const
      })
    }))

  it.effect("role refs resolve by role, name and nth while the page still has what the snapshot saw", () => {
    const { layer, newPage } = setup()
    return Effect.gen(function*() {
      const refs = yield* Refs
      const fake = newPage()
      fake.counts.set("button:Save", 2)
      const r = yield* recordRole(refs, fake, [
        { role: "button", name: "Save", nth: 0, count: 2 },
        { role: "button", name: "Save", nth: 1, count: 2 }
      ])
      expect(r.entries.map(([k]) => k)).toEqual(["e1", "e2"])
      const second = yield* refs.resolve(tab, fake.page, "e2")
      expect(second.locator).toMatchObject({ role: "button", name: "Save", index: 1 })
      expect(second.description).toBe('button "Save" [nth=1]')
      // A third "Save" appeared: nth 1 may now be another element, so the ref is refused.
      fake.counts.set("button:Save", 3)
      expect(expectConflict(yield* Effect.either(refs.resolve(tab, fake.page, "e2")))).toContain("there are 3 now")
    }).pipe(Effect.provide(layer))
  })

  it.effect("a role snapshot retires the AI table (playwright keeps one snapshot per frame)", () => {
    const { layer, newPage } = setup()
    return Effect.gen(function*() {
      const refs = yield* Refs
      const fake = newPage()
      fake.counts.set("button:Save", 1)
      yield* recordAi(refs, fake, AI("", [2]))
      yield* recordRole(refs, fake, [{ role: "button", name: "Save", nth: 0, count: 1 }])
      expect(expectConflict(yield* Effect.either(refs.resolve(tab, fake.page, "2")))).toContain("role snapshot")
      expect((yield* refs.resolve(tab, fake.page, "e1")).role).toBe("button")
      // An AI snapshot leaves role refs usable (they do not depend on playwright's table).
      yield* recordAi(refs, fake, AI("", [2]))
      expect((yield* refs.resolve(tab, fake.page, "e1")).role).toBe("button")
      expect((yield* refs.resolve(tab, fake.page, "2")).role).toBe("button")
    }).pipe(Effect.provide(layer))
  })

  it.effect("role numbers are never reused for another target", () => {
    const { layer, newPage } = setup()
    return Effect.gen(function*() {
      const refs = yield* Refs
      const fake = newPage()
      yield* recordRole(refs, fake, [{ role: "button", name: "A", nth: 0, count: 1 }])
      const second = yield* recordRole(refs, fake, [{ role: "link", name: "B", nth: 0, count: 1 }])
      expect(second.entries[0]![0]).toBe("e2")
      expect(expectConflict(yield* Effect.either(refs.resolve(tab, fake.page, "e1")))).toContain("not in the latest role snapshot")
    }).pipe(Effect.provide(layer))
  })

  it.effect("a closed tab says so", () => {
    const { layer, newPage } = setup()
    return Effect.gen(function*() {
      const refs = yield* Refs
      const fake = newPage()
      yield* recordAi(refs, fake, AI("", [2]))
      fake.closed = true
      expect(expectConflict(yield* Effect.either(refs.resolve(tab, fake.page, "2")))).toContain("tab was closed")
    }).pipe(Effect.provide(layer))
  })
})
