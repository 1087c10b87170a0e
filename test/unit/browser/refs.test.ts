import { it } from "@effect/vitest"
import { Deferred, Effect, Either, Fiber, Layer } from "effect"
import type { Page } from "playwright-core"
import { describe, expect } from "vitest"
import { PlaywrightSessions } from "../../../src/browser/pages/Playwright.js"
import { identitiesFromAi, roleCheckable, uniqueAiGroups } from "../../../src/browser/act/refIdentity.js"
import { FRESH_SNAPSHOT_HINT, parseRef, Refs, roleKey } from "../../../src/browser/act/Refs.js"
import { TabTurns } from "../../../src/browser/pages/TabTurns.js"
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
// A fake page: DOM nodes with a role and a name, playwright's aria refs pointing at them, a navigation
// counter, and locators that count what they would find.

interface FakeNode {
  role: string
  name: string
  connected: boolean
}

interface FakePage {
  readonly page: Page
  /** playwright's aria ref table of the latest AI snapshot: ref → node. */
  readonly aria: Map<string, FakeNode>
  readonly nodes: Array<FakeNode>
  navigations: number
  closed: boolean
  countHangs: boolean
  /** What the page-side change watch reports. */
  domChanged: boolean
  readonly selectors: Array<string>
  /** Adds a node (and its aria ref). */
  add: (role: string, name: string, aria?: string) => FakeNode
}

interface FakeLocator {
  readonly kind: "aria" | "and" | "role"
  readonly selector?: string
  readonly role?: string | undefined
  readonly name?: string | undefined
  readonly index?: number | undefined
  count: () => Promise<number>
  /** Handles of what it finds: the guard is installed on them (and reports nothing stopped). */
  elementHandles: () => Promise<Array<unknown>>
}

const handlesOf = (count: () => Promise<number>) => () =>
  count().then((n) =>
    Array.from({ length: n }, () => ({
      evaluate: (fn: { name: string }) => Promise.resolve(fn.name === "installGuard"),
      dispose: () => Promise.resolve()
    }))
  )

const fakePage = (): FakePage => {
  const fake: FakePage = {
    aria: new Map(),
    nodes: [],
    navigations: 0,
    closed: false,
    countHangs: false,
    domChanged: false,
    selectors: [],
    page: undefined as unknown as Page,
    add: (role, name, aria) => {
      const node = { role, name, connected: true }
      fake.nodes.push(node)
      if (aria !== undefined) fake.aria.set(aria, node)
      return node
    }
  }
  const hang = <A>(a: () => A): Promise<A> => fake.countHangs ? new Promise(() => undefined) : Promise.resolve(a())
  const matches = (n: FakeNode, role: string, name: string | undefined) =>
    n.connected && n.role === role && (name === undefined || n.name === name)
  const roleLocator = (role: string, options: { name?: string }, index?: number): FakeLocator & Record<string, unknown> => ({
    kind: "role",
    role,
    name: options.name,
    index,
    count: () => hang(() => fake.nodes.filter((n) => matches(n, role, options.name)).length),
    elementHandles: handlesOf(() => hang(() => fake.nodes.filter((n) => matches(n, role, options.name)).length)),
    nth: (k: number) => roleLocator(role, options, k),
    // Pinned to the node that was checked: the fake keeps finding what it found.
    and: () => roleLocator(role, options, index)
  })
  const page = {
    isClosed: () => fake.closed,
    url: () => "http://127.0.0.1/now",
    evaluate: (fn: { name: string }, key: string) =>
      Promise.resolve(fn.name === "startWatch" ? key : fake.domChanged),
    locator: (selector: string) => {
      fake.selectors.push(selector)
      const ref = selector.replace(/^aria-ref=/, "")
      const node = () => fake.aria.get(ref)
      const count = () => hang(() => (node()?.connected === true ? 1 : 0))
      return {
        kind: "aria",
        selector,
        count,
        elementHandles: handlesOf(count),
        and: (other: FakeLocator): FakeLocator => {
          const both = () =>
            hang(() => {
              const n = node()
              return n !== undefined && matches(n, other.role!, other.name) ? 1 : 0
            })
          return { kind: "and", selector, role: other.role, name: other.name, count: both, elementHandles: handlesOf(both) }
        }
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
      navigations: (page: Page) => Effect.sync(() => pages.get(page)?.navigations ?? 0),
      counted: () => Promise.resolve(false),
      title: () => Effect.succeed(""),
      pageTargets: () => Effect.succeed(undefined),
      targetIdOf: () => Effect.succeed(undefined),
      lastTimings: () => Effect.succeed({ connectMs: undefined, lookupMs: undefined, connectedAt: undefined }),
      available: Effect.succeed(true),
      onPage: () => Effect.void,
      onContext: () => Effect.void,
      beforeHandOut: () => Effect.void,
      ready: () => Effect.void,
      onRelease: () => Effect.void
    })
  )
  const layer = Refs.DefaultWithoutDependencies.pipe(Layer.provide(sessions), Layer.provideMerge(TabTurns.Default))
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

/** An AI snapshot of the fake page: every ref it shows gets a node, unless it has one. */
const recordAi = (refs: Refs, fake: FakePage, raw: string) =>
  refs.recordAi(tab, fake.navigations, (baseFor) => {
    const r = renderAiSnapshot(raw, { limit: 80_000, baseFor })
    for (const [, e] of r.entries) if (!fake.aria.has(e.aria)) fake.add(e.role, e.name, e.aria)
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
  it.effect("resolves a numeric ref by its role and name while it is the only one, else through its aria ref", () => {
    const { layer, newPage } = setup()
    return Effect.gen(function*() {
      const refs = yield* Refs
      const fake = newPage()
      const r = yield* recordAi(refs, fake, AI("", [2, 3]))
      expect(r.text).toContain('button "B2" [ref=2]')
      // The only button named "B2", in the snapshot and now: found by role and name (pinned to that node).
      const resolved = yield* refs.resolve(tab, fake.page, "2")
      expect(resolved.locator).toMatchObject({ kind: "role", role: "button", name: "B2" })
      expect(resolved.description).toBe('button "B2"')
      // A look-alike appeared: that node, and only while it is still a button named "B2".
      fake.add("button", "B2")
      const again = yield* refs.resolve(tab, fake.page, "2")
      expect(again.locator).toMatchObject({ kind: "and", selector: "aria-ref=e2", role: "button", name: "B2" })
      expect(again.description).toBe('button "B2"')
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
      yield* recordAi(refs, fake, AI("", [2, 3]))
      fake.aria.get("e2")!.connected = false
      fake.add("button", "B2") // its replacement: the only "B2", as in the snapshot
      fake.add("button", "B2") // and a second one: which is which cannot be told
      expect(expectConflict(yield* Effect.either(refs.resolve(tab, fake.page, "2")))).toContain("no longer matches")
    }).pipe(Effect.provide(layer))
  })

  it.live("a check that does not answer gives up within about two seconds, saying the page is busy (not that it changed)", () => {
    const { layer, newPage } = setup()
    return Effect.gen(function*() {
      const refs = yield* Refs
      const fake = newPage()
      yield* recordAi(refs, fake, AI("", [2]))
      fake.countHangs = true
      const t0 = performance.now()
      const r = yield* Effect.either(refs.resolve(tab, fake.page, "2"))
      expect(performance.now() - t0).toBeLessThan(2_500)
      expect(Either.isLeft(r) && r.left._tag).toBe("BrowserUnavailable")
      expect(Either.isLeft(r) && r.left.message).toMatch(/did not answer within 2000 ms \(it is busy/)
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

  const SAVE2 = [
    { role: "button", name: "Save", nth: 0, count: 2 },
    { role: "button", name: "Save", nth: 1, count: 2 }
  ]

  /** A page with two "Save" buttons (aria refs e5 and e6), watched for changes from now on. */
  const twoSaves = (newPage: ReturnType<typeof setup>["newPage"]) =>
    Effect.gen(function*() {
      const refs = yield* Refs
      const fake = newPage()
      fake.add("button", "Save", "e5")
      fake.add("button", "Save", "e6")
      return { refs, fake, watch: yield* refs.watchChanges(fake.page, undefined) }
    })

  it.effect("role refs among look-alikes act on their own node, found through an AI snapshot of the same scope", () => {
    const { layer, newPage } = setup()
    return Effect.gen(function*() {
      const { refs, fake, watch } = yield* twoSaves(newPage)
      const r = yield* recordRole(refs, fake, SAVE2)
      yield* refs.identifyRoleRefs(tab, watch, async () => '- generic [ref=e1]:\n  - button "Save" [ref=e5]\n  - button "Save" [ref=e6]', { allRefs: false })
      expect(r.entries.map(([k]) => k)).toEqual(["e1", "e2"])
      const second = yield* refs.resolve(tab, fake.page, "e2")
      expect(second.locator).toMatchObject({ kind: "and", selector: "aria-ref=e6", role: "button", name: "Save" })
      expect(second.description).toBe('button "Save" [nth=1]')
      // Its node was replaced: the page still shows two "Save", and nth alone cannot say which was the second.
      fake.aria.get("e6")!.connected = false
      fake.add("button", "Save")
      expect(expectConflict(yield* Effect.either(refs.resolve(tab, fake.page, "e2")))).toContain("cannot be told")
      // The first one's node is untouched: its ref keeps working.
      expect((yield* refs.resolve(tab, fake.page, "e1")).locator).toMatchObject({ selector: "aria-ref=e5" })
      // A node reused with another label is not acted on either.
      fake.aria.get("e5")!.name = "Cancel"
      expectConflict(yield* Effect.either(refs.resolve(tab, fake.page, "e1")))
      // Another "Save" appeared: the count says so.
      fake.add("button", "Save")
      fake.add("button", "Save")
      expect(expectConflict(yield* Effect.either(refs.resolve(tab, fake.page, "e2")))).toContain("there are 3 now")
    }).pipe(Effect.provide(layer))
  })

  it.live("look-alikes are told apart after the answer: identifyRoleRefs does not wait, their refs do", () => {
    const { layer, newPage } = setup()
    return Effect.gen(function*() {
      const { refs, fake, watch } = yield* twoSaves(newPage)
      yield* recordRole(refs, fake, SAVE2)
      // A slow page: its AI read takes longer than the usual bound on a ref's wait (2 s).
      const slowRead = () =>
        new Promise<string>((resolve) => setTimeout(() => resolve('- button "Save" [ref=e5]\n- button "Save" [ref=e6]'), 2_500))
      const t0 = Date.now()
      yield* refs.identifyRoleRefs(tab, watch, slowRead, { allRefs: false })
      expect(Date.now() - t0).toBeLessThan(1_000)
      const second = yield* refs.resolve(tab, fake.page, "e2")
      expect(Date.now() - t0).toBeGreaterThanOrEqual(2_400)
      expect(second.locator).toMatchObject({ kind: "and", selector: "aria-ref=e6" })
    }).pipe(Effect.provide(layer))
  }, 20_000)

  it.live("the identity read lets looks at the tab go first; using a ref of the snapshot starts it at once; leaving the page drops it", () => {
    const { layer, newPage } = setup()
    return Effect.gen(function*() {
      const turns = yield* TabTurns
      const { refs, fake, watch } = yield* twoSaves(newPage)
      let reads = 0
      const read = async () => {
        reads++
        return '- button "Save" [ref=e5]\n- button "Save" [ref=e6]'
      }
      // A screenshot asked for right after the snapshot: the read waits until it is done.
      yield* recordRole(refs, fake, SAVE2)
      const screenshot = yield* Deferred.make<void>()
      const look = yield* Effect.fork(turns.lookingIn(tab)(Deferred.await(screenshot)))
      yield* refs.identifyRoleRefs(tab, watch, read, { allRefs: false })
      yield* Effect.sleep("300 millis")
      expect(reads).toBe(0)
      yield* Deferred.succeed(screenshot, undefined)
      yield* Fiber.join(look)
      for (let i = 0; i < 100 && reads === 0; i++) yield* Effect.sleep("50 millis")
      expect(reads).toBe(1)
      // A look that takes long: a look-alike's ref does not wait for it, it starts the read.
      yield* recordRole(refs, fake, SAVE2)
      const long = yield* Deferred.make<void>()
      const longLook = yield* Effect.fork(turns.lookingIn(tab)(Deferred.await(long)))
      yield* refs.identifyRoleRefs(tab, yield* refs.watchChanges(fake.page, undefined), read, { allRefs: false })
      const t0 = Date.now()
      const second = yield* refs.resolve(tab, fake.page, "e2")
      expect(Date.now() - t0).toBeLessThan(1_000)
      expect(reads).toBe(2)
      expect(second.locator).toMatchObject({ kind: "and", selector: "aria-ref=e6" })
      yield* Deferred.succeed(long, undefined)
      yield* Fiber.join(longLook)
      // The tab navigates before the read began: it is dropped (the refs go with the document).
      yield* recordRole(refs, fake, SAVE2)
      yield* refs.identifyRoleRefs(tab, yield* refs.watchChanges(fake.page, undefined), read, { allRefs: false })
      yield* refs.leaving(tab)
      yield* Effect.sleep("300 millis")
      expect(reads).toBe(2)
    }).pipe(Effect.provide(layer))
  }, 20_000)

  it.effect("the page changed while the snapshot was taken: look-alikes get no identity and are refused, a unique element resolves", () => {
    const { layer, newPage } = setup()
    return Effect.gen(function*() {
      const refs = yield* Refs
      const fake = newPage()
      fake.add("button", "Save", "e5")
      fake.add("button", "Save", "e6")
      fake.add("link", "Home", "e7")
      const watch = yield* refs.watchChanges(fake.page, undefined)
      yield* recordRole(refs, fake, [...SAVE2, { role: "link", name: "Home", nth: 0, count: 1 }])
      fake.domChanged = true
      yield* refs.identifyRoleRefs(tab, watch, async () => '- button "Save" [ref=e5]\n- button "Save" [ref=e6]\n- link "Home" [ref=e7]', { allRefs: false })
      expect(expectConflict(yield* Effect.either(refs.resolve(tab, fake.page, "e1")))).toContain("could not pin down")
      // The only "Home" link, then and now: it has its element's identity all the same (the one that would
      // stand in for it), and is found by role and name once that element is re-rendered.
      expect((yield* refs.resolve(tab, fake.page, "e3")).locator).toMatchObject({ kind: "and", selector: "aria-ref=e7" })
      fake.nodes[2]!.connected = false
      fake.add("link", "Home")
      expect((yield* refs.resolve(tab, fake.page, "e3")).locator).toMatchObject({ kind: "role", role: "link", name: "Home" })
    }).pipe(Effect.provide(layer))
  })

  it.effect("an AI ref whose node was relabelled finds its label again only where it is unique", () => {
    const { layer, newPage } = setup()
    return Effect.gen(function*() {
      const refs = yield* Refs
      const fake = newPage()
      yield* recordAi(refs, fake, ['- list [ref=e1]:', '  - button "Open Bravo" [ref=e2]', '  - button "Open Charlie" [ref=e3]',
        '  - button "Remove" [ref=e4]', '  - button "Remove" [ref=e5]'].join("\n"))
      // The list reused its nodes with rotated labels.
      fake.aria.get("e2")!.name = "Open Charlie"
      fake.aria.get("e3")!.name = "Open Bravo"
      const bravo = yield* refs.resolve(tab, fake.page, "2")
      expect(bravo.locator).toMatchObject({ kind: "role", role: "button", name: "Open Bravo" })
      // No element is labelled "Open Bravo" any more: refused.
      fake.aria.get("e3")!.name = "Open Delta"
      expect(expectConflict(yield* Effect.either(refs.resolve(tab, fake.page, "2")))).toContain("no longer matches")
      // Look-alikes rebuilt from scratch: the same count, but which one was which cannot be told.
      fake.aria.get("e4")!.connected = false
      fake.add("button", "Remove")
      expectConflict(yield* Effect.either(refs.resolve(tab, fake.page, "4")))
      expect((yield* refs.resolve(tab, fake.page, "5")).locator).toMatchObject({ kind: "and", selector: "aria-ref=e5" })
    }).pipe(Effect.provide(layer))
  })

  it.effect("a ref inside an iframe is never looked for again by role and name", () => {
    const { layer, newPage } = setup()
    return Effect.gen(function*() {
      const refs = yield* Refs
      const fake = newPage()
      yield* recordAi(refs, fake, ['- generic [ref=e1]:', '  - iframe [ref=e2]:', '    - button "Pay" [ref=f1e2]'].join("\n"))
      expect((yield* refs.resolve(tab, fake.page, "f1e2")).locator).toMatchObject({ kind: "and", selector: "aria-ref=f1e2" })
      fake.aria.get("f1e2")!.connected = false
      fake.add("button", "Pay")
      expectConflict(yield* Effect.either(refs.resolve(tab, fake.page, "f1e2")))
    }).pipe(Effect.provide(layer))
  })

  it.effect("after a role snapshot, an AI ref acts where its element is still told apart, and is refused saying why where not", () => {
    const { layer, newPage } = setup()
    return Effect.gen(function*() {
      const refs = yield* Refs
      const fake = newPage()
      yield* recordAi(refs, fake, AI("", [2, 3]))
      yield* recordRole(refs, fake, [{ role: "button", name: "B2", nth: 0, count: 1 }])
      // Playwright keeps one snapshot per frame: the role snapshot replaced the AI one its aria refs are found in.
      const table = new Map(fake.aria)
      fake.aria.clear()
      // The only element of its role and name, then and now.
      expect((yield* refs.resolve(tab, fake.page, "2")).name).toBe("B2")
      // A look-alike came: only the aria ref could tell which one it was.
      fake.add("button", "B3")
      expect(expectConflict(yield* Effect.either(refs.resolve(tab, fake.page, "3")))).toContain("role snapshot")
      expect((yield* refs.resolve(tab, fake.page, "e1")).role).toBe("button")
      // A later AI read of the page (the role snapshot's identity pass) renews playwright's table: the aria ref
      // tells the element again.
      for (const [aria, node] of table) fake.aria.set(aria, node)
      expect((yield* refs.resolve(tab, fake.page, "3")).name).toBe("B3")
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

describe("identity rules", () => {
  it("the nth node of a kind in the AI snapshot is the role ref's node only when both count the same", () => {
    const ai = [
      "- generic [ref=e1]:",
      '  - listitem [ref=e2]:',
      "    - text: Alpha",
      '    - button "Remove" [ref=e3]',
      '  - button "Remove" [ref=e4]',
      "  - textbox [ref=e5]",
      '  - textbox "Name" [ref=e6]',
      '  - button "Off screen"',
      '  - button "Twice"',
      '  - button "Twice" [ref=e9]'
    ].join("\n")
    const ids = identitiesFromAi(ai, [
      ["a", { role: "button", name: "Remove", nth: 1, count: 2 }],
      // Unnamed: counted by role alone, as getByRole(role) counts them.
      ["b", { role: "textbox", name: undefined, nth: 1, count: 2 }],
      // The role snapshot saw one "Remove" fewer than the AI snapshot: no guess.
      ["c", { role: "button", name: "Remove", nth: 0, count: 1 }],
      // No ref in the AI snapshot (not visible, or covered): no identity.
      ["d", { role: "button", name: "Off screen", nth: 0, count: 1 }],
      ["e", { role: "button", name: "Twice", nth: 1, count: 2 }]
    ])
    expect(Object.fromEntries(ids)).toEqual({ a: "e4", b: "e6", e: "e9" })
  })

  it("only refs alone of their role and name may be found again by them", () => {
    expect([...uniqueAiGroups([
      ["1", { role: "button", name: "Remove" }],
      ["2", { role: "button", name: "Remove" }],
      ["3", { role: "button", name: "Open Bravo" }]
    ])]).toEqual(["button\u0000Open Bravo"])
    expect(roleCheckable("button")).toBe(true)
    expect(roleCheckable("generic")).toBe(false)
  })
})
