import { Effect } from "effect"
import type { ElementHandle, Locator, Page } from "playwright-core"
import { errorText, withTimeout } from "../pages/promises.js"
import { type GuardArgs, guardFound, releaseGuards, releaseGuardsNear } from "./refIdentity.js"

// Finding a ref's element together with its guard (refIdentity.ts has the guard itself), and letting the
// guards go after the action. Cost matters here: this runs before and after every action by ref, so the
// usual way is one page call to find, check and guard, and one to release.

/** How long a check of a ref may take before it counts as failed (a stale ref must fail fast). */
export const RESOLVE_MS = 2_000

/** A promise that gives up after ms (a stale ref must fail fast, never wait out an action timeout). */
export const bounded = <A>(what: () => Promise<A>, ms: number) =>
  Effect.tryPromise({ try: () => withTimeout(what(), ms, "the page's answer"), catch: (e) => e })

/**
 * Runs an expression in one of a page's worlds over svc's own CDP session (PlaywrightSessions.evaluateMain, or
 * evaluateUtility for the library's utility world); undefined: not possible now.
 */
export type MainWorld = (page: Page, expression: string) => Promise<unknown> | undefined

/** Where guards of the top document live: the page's main world, or the library's utility world (refChecks.ts). */
export interface GuardWorlds {
  readonly main: MainWorld
  readonly utility: MainWorld
}

/** releaseGuards as an expression for the page's main world (the guards live there, see guardFound). */
const releaseExpression = (keys: ReadonlyArray<string>) =>
  `${JSON.stringify(keys)}.filter((k) => globalThis[k] !== undefined && globalThis[k].release() === true)`

/** A guard installed by resolve and not yet released. */
export interface PendingGuard {
  readonly key: string
  readonly ref: string
  readonly page: Page
  /** The guarded element, for a guard inside an iframe; undefined for one in the top document. */
  readonly handle: ElementHandle | undefined
  /** Installed in the library's utility world by a check in one raw call (refChecks.ts), not the main world. */
  readonly utility?: boolean | undefined
}

/** What a guarded lookup found: the guard when it is in place, and how many elements matched, when known. */
export interface Guarded {
  readonly guard: PendingGuard | undefined
  readonly count: number | undefined
}

const NOT_FOUND: Guarded = { guard: undefined, count: undefined }

export const newGuardKey = () => `__svcRefGuard_${Math.random().toString(36).slice(2)}`

/** What playwright's $eval says when its selector matches nothing. */
const NO_MATCH = /Failed to find element matching selector/

/**
 * The selector text behind a locator, so one page call ($eval, $$eval) can query, check and guard. Playwright
 * keeps it on the locator without a public getter; undefined (and the slower way through element handles)
 * should a later version not keep it there.
 */
const selectorOf = (locator: Locator): string | undefined => {
  const s = (locator as unknown as { readonly _selector?: unknown })._selector
  return typeof s === "string" ? s : undefined
}

/**
 * Removes guards; the refs of those that stopped an event. The guards of the top document go in one page
 * call; a guard inside an iframe is reached through its element's handle.
 */
export const releaseAll = (
  guards: ReadonlyArray<PendingGuard>,
  worlds?: GuardWorlds
): Effect.Effect<Array<string>> => {
  if (guards.length === 0) return Effect.succeed([])
  const refOf = new Map(guards.map((g) => [g.key, g.ref]))
  const calls: Array<() => Promise<Array<string>>> = []
  const page = guards[0]!.page
  const main = guards.filter((g) => g.handle === undefined && g.utility !== true).map((g) => g.key)
  if (main.length > 0) {
    calls.push(() =>
      (worlds?.main(page, releaseExpression(main)) as Promise<Array<string>> | undefined) ?? page.evaluate(releaseGuards, main)
    )
  }
  const utility = guards.filter((g) => g.utility === true).map((g) => g.key)
  // A utility world that is gone took its guards with it (a new document).
  if (utility.length > 0 && worlds !== undefined) {
    calls.push(() => (worlds.utility(page, releaseExpression(utility)) as Promise<Array<string>> | undefined) ?? Promise.resolve([]))
  }
  for (const g of guards) {
    const handle = g.handle
    // The handle is let go without waiting for the browser to confirm it.
    if (handle !== undefined) {
      calls.push(() => handle.evaluate(releaseGuardsNear, [g.key]).finally(() => void handle.dispose().catch(() => undefined)))
    }
  }
  return Effect.map(
    Effect.forEach(calls, (c) =>
      bounded(c, RESOLVE_MS).pipe(
        Effect.map((keys): ReadonlyArray<string> => Array.isArray(keys) ? keys : []),
        Effect.orElseSucceed((): ReadonlyArray<string> => [])
      ), { concurrency: "unbounded" }),
    (lists) => lists.flat().map((k) => refOf.get(k) ?? k)
  )
}

/**
 * Finds and guards, in one page call, the one element `check` (the ref's own locator, which holds the role
 * and name) matches in the top document: the query, the check and the guard happen in the same page task,
 * so nothing can change in between. `only`: `check` may match several (the answer then says how many, and
 * nothing is guarded); otherwise it matches one node at most (an aria ref). Undefined when this way does
 * not apply (the element is in an iframe, or the locator does not say its selector). `fail` turns a page
 * that did not answer into the caller's error.
 */
export const guardInOneCall = <E>(
  page: Page,
  ref: string,
  check: Locator,
  mark: string | undefined,
  only: boolean,
  fail: (e: unknown) => E
): Effect.Effect<Guarded | undefined, E> =>
  Effect.gen(function*() {
    const selector = selectorOf(check)
    if (selector === undefined) return undefined
    const key = mark ?? newGuardKey()
    const arg: GuardArgs = { key, mark: mark !== undefined, topOnly: true }
    const n = yield* bounded(
      () =>
        only
          ? page.$$eval(selector, guardFound, arg)
          // An aria ref that matches nothing is an error for $eval: the element is gone. ($$eval would take
          // one round trip less, but playwright's $$eval does not resolve aria refs: it finds nothing.)
          : page.$eval(selector, guardFound, arg).catch((e: unknown) => NO_MATCH.test(errorText(e)) ? 0 : Promise.reject(e)),
      RESOLVE_MS
    ).pipe(Effect.mapError(fail))
    if (n < 0) return undefined
    return { guard: n === 1 ? { key, ref, page, handle: undefined } : undefined, count: only ? n : undefined }
  })

/**
 * The same through element handles, for an element inside an iframe: guards the one element `find` matches,
 * then checks with `check` that it is the element the snapshot showed (nothing stays installed when it is
 * not). Checking after the guard is in place leaves no moment where a relabel goes unnoticed.
 */
export const guardThroughHandle = <E>(
  page: Page,
  ref: string,
  find: Locator,
  check: Locator,
  mark: string | undefined,
  fail: (e: unknown) => E
): Effect.Effect<Guarded, E> =>
  Effect.gen(function*() {
    const handles = yield* bounded(() => find.elementHandles(), RESOLVE_MS).pipe(Effect.mapError(fail))
    if (handles.length !== 1) {
      for (const h of handles) void h.dispose().catch(() => undefined)
      return NOT_FOUND
    }
    const handle = handles[0]!
    const guard: PendingGuard = { key: mark ?? newGuardKey(), ref, page, handle }
    const undo = releaseAll([guard])
    const arg: GuardArgs = { key: guard.key, mark: mark !== undefined, topOnly: false }
    yield* bounded(() => handle.evaluate(guardFound, arg), RESOLVE_MS).pipe(Effect.tapError(() => undo), Effect.mapError(fail))
    const n = yield* bounded(() => check.count(), RESOLVE_MS).pipe(Effect.tapError(() => undo), Effect.mapError(fail))
    if (n !== 1) {
      yield* undo
      return NOT_FOUND
    }
    return { guard, count: undefined }
  })
