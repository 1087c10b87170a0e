import { Effect, FiberRef } from "effect"
import type { BrowserContext, FrameLocator, Locator, Page } from "playwright-core"
import { BrowserUnavailable, Conflict, InvalidRequest } from "../../domain/errors.js"
import { FRESH_SNAPSHOT_HINT, NUMERIC, parseRef } from "./refParse.js"
import { PlaywrightSessions } from "../pages/Playwright.js"
import { TabTurns } from "../pages/TabTurns.js"
import { errorText, isTimeout } from "../pages/promises.js"
import { shownRole } from "../snapshot/PseudoControls.js"
import {
  bounded,
  type Guarded,
  type GuardWorlds,
  guardInOneCall,
  guardThroughHandle,
  newGuardKey,
  type PendingGuard,
  releaseAll,
  RESOLVE_MS
} from "./refGuards.js"
import { type ChangeWatch, stopWatching, watchChanges } from "./changeWatch.js"
import { alike, kindKey, kindOf, untouchedKinds } from "./refKinds.js"
import { deferPass, type DeferredPass } from "./deferredPass.js"
import { type CheckArgs, checkingLocator, checkInOneCall, markedSelector, REF_CHECKS_KEY, registerRefEngine } from "./refChecks.js"
import type { QuickAccess } from "./quickAccess.js"
import {
  GUARD_ATTRIBUTE,
  identitiesFromAi,
  roleCheckable,
  uniqueAiGroups
} from "./refIdentity.js"

// The ref tables of each tab and their fail-fast resolution.
//
// AI snapshot refs: playwright gives each element of a frame's document a ref that never changes while the
// element keeps its role and name (`e12`; `f3e12` once the main frame has navigated; `f1e2` inside
// iframes), and resolves it against the latest snapshot of that frame only. We show main-frame refs as
// numbers: the playwright number plus a per-tab base that moves past every number already issued
// whenever the main document changes, so a number is never reused for another element of the tab.
// Refs inside iframes are shown as playwright prints them (`f1e2`): distinguishable at a glance, and
// usable as they are.
//
// Role snapshot refs (`e<n>`) name a role, a name and an index among the elements with that role and
// name; a tab's registry gives the same target the same number in every role snapshot and never reuses a
// number for another target. Where the snapshot has look-alikes (same role and name), each ref also
// carries the aria ref of its element, taken from an AI snapshot of the same scope (identifyRoleRefs).
//
// Either kind acts only on the element the snapshot showed: that DOM node while it still has the role and
// name shown, or, once it is gone or relabelled, the one element with that role and name when it was the
// only one in the snapshot and still is (refIdentity.ts has the rules). Anything else fails at once.

/** A tab: its profile and CDP targetId. */
export interface TabRef {
  readonly profile: string
  readonly targetId: string
}

export interface AiRefEntry {
  /** The playwright aria ref (`e12`, `f3e12`, `f1e2`). */
  readonly aria: string
  readonly role: string
  readonly name: string
}

export interface RoleRefEntry {
  readonly role: string
  /** Undefined: the element has no name and is found by role alone. */
  readonly name: string | undefined
  /** Index among the elements getByRole(role, name) finds in the scope. */
  readonly nth: number
  /** How many elements getByRole(role, name) found when the snapshot was taken. */
  readonly count: number
  readonly frameSelector?: string | undefined
  readonly scopeSelector?: string | undefined
  /** The element's playwright aria ref, when the snapshot could tell (see identifyRoleRefs). */
  readonly aria?: string | undefined
}

export interface ResolvedRef {
  readonly locator: Locator
  /** `button "Save"` (`[nth=1]` for a repeated role ref): for messages and results. */
  readonly description: string
  readonly role: string
  readonly name: string
  /**
   * The check happens as the action looks for the element (refChecks.ts): an action that fails as
   * unchecked did nothing, and the ref is then resolved again without `inLookup`.
   */
  readonly inLookup?: boolean
  /** The element reached in one page call, to act on it without the library's waits where that is safe (see ActionTarget). */
  readonly quick?: QuickAccess | undefined
}

/** What a fast check of a ref gives: the locator, whether the check is still to run in its lookup, and its quick access. */
interface QuickCheck {
  readonly locator: Locator
  readonly inLookup: boolean
  readonly quick: QuickAccess
}

export { FRESH_SNAPSHOT_HINT, type ParsedRef, parseRef } from "./refParse.js"

// ---------------------------------------------------------------------------------------------------------
// Tables

interface AiTable {
  readonly navigations: number
  readonly entries: ReadonlyMap<string, AiRefEntry>
  /** role\u0000name of the refs that were the only ones of their kind in the snapshot. */
  readonly unique: ReadonlySet<string>
  /**
   * Why the library's own ref map of the page may no longer be this snapshot's (a role snapshot replaced it):
   * its refs then act where svc's checks, their role and name, or a later AI read of the page still tell their
   * element, and a ref none of them tells is refused with this (see resolveAi).
   */
  readonly libraryMapGone?: string | undefined
}

interface RoleTable {
  readonly navigations: number
  entries: ReadonlyMap<string, RoleRefEntry>
  readonly frameSelector: string | undefined
  /** The identities being found after the snapshot's answer (see identifyRoleRefs); refs wait for them. */
  identifying?: DeferredPass | undefined
}

interface TabState {
  ai: AiTable | undefined
  role: RoleTable | undefined
  /** Main-frame numbering: which document the base belongs to, the base, the highest number issued. */
  docKey: string | undefined
  base: number
  maxIssued: number
  roleNumbers: Map<string, number>
  roleNext: number
  /** Guards installed by resolve and not yet released (see refIdentity.ts), with the request that holds them. */
  guards: Array<OwnedGuard>
}

/**
 * The request a guard belongs to (see `owned`): requests on one tab can overlap, and one request's guards
 * are never taken out from under it by another's.
 */
interface GuardOwner {
  done: boolean
}

interface OwnedGuard {
  readonly guard: PendingGuard
  readonly owner: GuardOwner
}

/** The request the current fiber (and the fibers it forks) works for; undefined outside `owned`. */
const CurrentOwner = FiberRef.unsafeMake<GuardOwner | undefined>(undefined)

const MAX_TABS = 256
/** How long a look-alike role ref waits for its snapshot's identities (an AI read of the page). */
const IDENTIFY_WAIT_MS = 30_000
/**
 * How long a role snapshot's identity pass waits for the tab to be quiet (no snapshot or screenshot asked for)
 * before it reads the page: a client that asks for something else at once is heard within it.
 */
const IDENTIFY_QUIET_MS = 50
const MAX_ROLE_KEYS = 20_000

/** The key of one role-ref target in a tab's registry. */
export const roleKey = (e: Omit<RoleRefEntry, "count">) =>
  `${e.role}\u0000${e.name ?? "\u0001"}\u0000${e.nth}\u0000${e.frameSelector ?? ""}\u0000${e.scopeSelector ?? ""}`

/** What an AI snapshot renderer reports back for the table. */
export interface AiRecord {
  readonly entries: Iterable<readonly [string, AiRefEntry]>
  /** The highest main-frame number shown. */
  readonly maxMain: number
}

export interface RoleRecord {
  readonly entries: Iterable<readonly [string, RoleRefEntry]>
}

/** `button "Save"`, `button "Save" [nth=1]`: what the ref stands for (messages add the ref itself). */
const describe = (role: string, name: string, nth?: number) =>
  `${shownRole(role)}${name !== "" ? ` ${JSON.stringify(name)}` : ""}${nth !== undefined ? ` [nth=${nth}]` : ""}`

export class Refs extends Effect.Service<Refs>()("svc/Refs", {
  scoped: Effect.gen(function*() {
    const sessions = yield* PlaywrightSessions
    const turns = yield* TabTurns
    const worlds: GuardWorlds = { main: sessions.evaluateMain, utility: sessions.evaluateUtility }
    /** Browser contexts that have the check-in-lookup engine (refChecks.ts). */
    const engines = new WeakSet<BrowserContext>()
    yield* sessions.onContext((_profile, context) => {
      void registerRefEngine(context).then((ok) => ok && engines.add(context))
    })
    const tabs = new Map<string, TabState>()
    const keyOf = (tab: TabRef) => `${tab.profile}\u0000${tab.targetId}`

    const stateOf = (tab: TabRef, create: boolean): TabState | undefined => {
      const key = keyOf(tab)
      const existing = tabs.get(key)
      if (existing !== undefined) {
        // Most recently used last, so the oldest tab is the one forgotten when there are too many.
        tabs.delete(key)
        tabs.set(key, existing)
        return existing
      }
      if (!create) return undefined
      const state: TabState = {
        ai: undefined,
        role: undefined,
        docKey: undefined,
        base: 0,
        maxIssued: 0,
        roleNumbers: new Map(),
        roleNext: 1,
        guards: []
      }
      tabs.set(key, state)
      if (tabs.size > MAX_TABS) tabs.delete(tabs.keys().next().value!)
      return state
    }

    /**
     * Replace the tab's AI table. `render` runs synchronously inside the update and asks for the base of
     * the main frame's numbers once it knows the main frame's playwright prefix.
     */
    const recordAi = <A extends AiRecord>(
      tab: TabRef,
      navigations: number,
      render: (baseFor: (mainPrefix: string) => number) => A
    ) =>
      Effect.sync(() => {
        const state = stateOf(tab, true)!
        const baseFor = (mainPrefix: string) => {
          const docKey = `${navigations}\u0000${mainPrefix}`
          if (state.docKey !== docKey) {
            // A new document (or the first): start past every number this tab has issued.
            state.docKey = docKey
            state.base = state.maxIssued
          }
          return state.base
        }
        const result = render(baseFor)
        state.maxIssued = Math.max(state.maxIssued, result.maxMain)
        const entries = new Map(result.entries)
        state.ai = { navigations, entries, unique: uniqueAiGroups(entries) }
        return result
      })

    /**
     * Replace the tab's role table. `render` runs synchronously inside the update; `numberFor` gives a
     * target (see roleKey) its number in this tab. The AI table stays, but playwright keeps one snapshot per
     * frame, and the role snapshot just replaced the AI one: the AI refs then act where svc's own checks
     * (refChecks.ts) or their role and name tell their element, and fail fast elsewhere (see resolveAi).
     */
    const recordRole = <A extends RoleRecord>(
      tab: TabRef,
      navigations: number,
      frameSelector: string | undefined,
      render: (numberFor: (key: string) => number) => A
    ) =>
      Effect.sync(() => {
        const state = stateOf(tab, true)!
        if (state.roleNumbers.size > MAX_ROLE_KEYS) state.roleNumbers.clear() // numbers still never repeat
        const numberFor = (key: string) => {
          let n = state.roleNumbers.get(key)
          if (n === undefined) {
            n = state.roleNext++
            state.roleNumbers.set(key, n)
          }
          return n
        }
        const result = render(numberFor)
        state.role = { navigations, entries: new Map(result.entries), frameSelector }
        if (state.ai !== undefined && state.ai.libraryMapGone === undefined) {
          state.ai = {
            ...state.ai,
            libraryMapGone: "a role snapshot of this tab was taken after the AI snapshot that issued it, and its " +
              "element cannot be told from that snapshot any more (it changed since, or it is in an iframe or a shadow tree)"
          }
        }
        return result
      })

    const stale = (ref: string, why: string) =>
      new Conflict({ message: `ref ${ref} cannot be used: ${why}. To act safely, ${FRESH_SNAPSHOT_HINT}.` })

    /** A slow answer says nothing about the element: it is not reported as a changed page. */
    const busy = (ref: string) =>
      new BrowserUnavailable({
        message: `ref ${ref} could not be checked: the page did not answer within ${RESOLVE_MS} ms (it is busy: a ` +
          "long-running script or a very heavy page); nothing was done. Try again in a moment; if it stays busy, " +
          "`svc browser errors` and `svc browser console` may say why"
      })

    /** A page call of resolve failed: the tab closed, the page was too busy to answer, or the element is gone. */
    const pageGone = (page: Page, ref: string, e: unknown) =>
      page.isClosed()
        ? new Conflict({ message: `ref ${ref} cannot be used: the tab was closed. Open or pick a tab (\`svc browser tabs\`), then ${FRESH_SNAPSHOT_HINT}.` })
        : isTimeout(e)
        ? busy(ref)
        : stale(ref, `it no longer matches an element on the page (${errorText(e)}); the element was removed or re-rendered since the snapshot`)

    /**
     * That very node while it still has the role and name the snapshot showed. The check is part of the
     * locator, so the action checks it again when it finds the element: a node relabelled between resolve
     * and act is not acted on. (The role part of an `and` is evaluated in the aria ref's own frame.)
     */
    const identity = (page: Page, aria: string, role: string, name: string | undefined) => {
      const node = page.locator(`aria-ref=${aria}`)
      return roleCheckable(role) ? node.and(alike(page, role, name)) : node
    }

    const countOf = (page: Page, key: string, locator: Locator) =>
      bounded(() => locator.count(), RESOLVE_MS).pipe(Effect.mapError((e) => pageGone(page, key, e)))

    const changed = (what: string) =>
      `it no longer matches the element the snapshot showed (${what}): that element was removed, re-rendered ` +
      "or relabelled since"

    /** Takes out the guards of a tab that `which` picks. */
    const takeGuards = (state: TabState | undefined, which: (owner: GuardOwner) => boolean) => {
      if (state === undefined || state.guards.length === 0) return []
      const taken = state.guards.filter((g) => which(g.owner))
      state.guards = state.guards.filter((g) => !taken.includes(g))
      return taken.map((g) => g.guard)
    }

    /** The request this fiber works for: the one `owned` set, else one of its own (released by settle). */
    const ownerNow = Effect.map(FiberRef.get(CurrentOwner), (o): GuardOwner => o ?? { done: false })

    /** Keeps the guard of a lookup for settle; whether there is one. */
    const kept = (state: TabState) => (r: Guarded) =>
      Effect.map(ownerNow, (owner) => {
        if (r.guard !== undefined) state.guards.push({ guard: r.guard, owner })
        return { installed: r.guard !== undefined, count: r.count }
      })

    /** The node an aria ref names, while it still has its role and name (`same`, see identity): guarded. */
    const guardNode = (state: TabState, page: Page, ref: string, aria: string, same: Locator) => {
      const fail = (e: unknown) => pageGone(page, ref, e)
      return Effect.flatMap(guardInOneCall(page, ref, same, undefined, false, fail), (r) =>
        r !== undefined ? Effect.succeed(r) : guardThroughHandle(page, ref, page.locator(`aria-ref=${aria}`), same, undefined, fail))
        .pipe(Effect.flatMap(kept(state)))
    }

    /** The one element `all` finds, pinned (with `mark`) by `locator`: guarded; or how many there are. */
    const guardOnly = (state: TabState, page: Page, ref: string, all: Locator, locator: Locator, mark: string, top: boolean) => {
      const fail = (e: unknown) => pageGone(page, ref, e)
      return Effect.flatMap(top ? guardInOneCall(page, ref, all, mark, true, fail) : Effect.succeed(undefined), (r) =>
        r !== undefined ? Effect.succeed(r) : guardThroughHandle(page, ref, all, locator, mark, fail))
        .pipe(Effect.flatMap(kept(state)))
    }

    /** The one-call check (refChecks.ts): the marked element's locator, or undefined to check the usual way. */
    const checkQuickly = (state: TabState, page: Page, ref: string, entry: { readonly aria: string; readonly role: string; readonly name: string }) =>
      checkInOneCall(page, ref, entry, sessions.evaluateUtilityDirect, (e) => pageGone(page, ref, e)).pipe(
        Effect.flatMap((r) =>
          r === undefined || r.guard === undefined
            ? Effect.succeed(undefined)
            : Effect.as(kept(state)(r), { locator: page.locator(markedSelector(r.guard.key)), quick: quick(page, ref, undefined, r.guard.key) }))
      )

    /** A checked element for the quick ways (quickAccess.ts): `check` still to run, or done and marked under `guardKey`. */
    const quick = (page: Page, ref: string, check: CheckArgs | undefined, guardKey: string): QuickAccess => ({ page, check, guardKey,
      stateKey: REF_CHECKS_KEY, utility: sessions.evaluateUtilityDirect, inputSession: sessions.pageSession, busy: () => busy(ref) })

    /**
     * The fast checks of a top-document ref whose element has an aria ref: with `inLookup`, where the page's
     * context has the engine, as the action's own lookup (no page call now); else in one call. Undefined:
     * check the usual way.
     */
    const checkFast = (
      state: TabState,
      page: Page,
      ref: string,
      entry: { readonly aria: string; readonly role: string; readonly name: string },
      inLookup: boolean
    ) =>
      Effect.suspend((): Effect.Effect<QuickCheck | undefined, Conflict | BrowserUnavailable> => {
        if (inLookup && engines.has(page.context())) {
          const c = checkingLocator(page, ref, entry)
          return Effect.as(kept(state)(c.guard), {
            locator: c.locator,
            inLookup: true,
            quick: quick(page, ref, c.check, c.check.guardKey)
          })
        }
        return Effect.map(checkQuickly(state, page, ref, entry), (r) => r !== undefined ? { ...r, inLookup: false } : undefined)
      })

    /** A ref found again by role and name, pinned to the node that was checked. */
    const pinned = (within: Page | FrameLocator, locator: Locator, key: string) =>
      locator.and(within.locator(`[${GUARD_ATTRIBUTE}="${key}"]`))

    const resolveAi = (state: TabState | undefined, page: Page, key: string, navigations: number, inLookup: boolean) =>
      Effect.gen(function*() {
        // The e-ref of this page's role snapshot (interactive) that the agent may have meant, the "e" dropped.
        const twin = state?.role?.navigations === navigations && state.role.entries.has(`e${key}`)
          ? `; this page's latest snapshot issued e-refs: did you mean e${key}?`
          : ""
        if (state?.ai === undefined) {
          return yield* stale(key, "no AI snapshot of this tab has issued refs yet (or the gateway restarted since)" + twin)
        }
        if (state.ai.navigations !== navigations) {
          return yield* stale(key, `the page has navigated (now ${page.url()}) since the snapshot that issued it${twin}`)
        }
        const entry = state.ai.entries.get(key)
        if (entry === undefined) {
          return yield* stale(key, "it is not in the latest snapshot of this tab (it comes from an older snapshot, or was never issued)")
        }
        const description = describe(entry.role, entry.name)
        const found = (locator: Locator): ResolvedRef => ({ locator, description, role: entry.role, name: entry.name })
        // The element unchanged since the snapshot showed it: checked and guarded as the action looks for it,
        // or else in one call.
        const quick = NUMERIC.test(key) ? yield* checkFast(state, page, key, entry, inLookup) : undefined
        if (quick !== undefined) return { ...found(quick.locator), inLookup: quick.inLookup, quick: quick.quick }
        // A main-frame element that was the one of its role and name in the snapshot, and still is, is the
        // element the snapshot showed or the one that replaced it: either will do, and finding it by role and
        // name takes one page round trip less than through its aria ref (which then settles the rest).
        const unique = NUMERIC.test(key) && entry.name !== "" && roleCheckable(entry.role) &&
          state.ai.unique.has(`${entry.role}\u0000${entry.name}`)
        if (unique) {
          const others = alike(page, entry.role, entry.name)
          const mark = newGuardKey()
          const locator = pinned(page, others, mark)
          if ((yield* guardOnly(state, page, key, others, locator, mark, true)).installed) return found(locator)
        }
        // That very node, while it still has its role and name. An unknown aria ref matches nothing at once,
        // where an action would wait out its timeout. (The library finds it in its latest snapshot of the
        // frame: after a role snapshot, only where a later AI read of the page, such as the role snapshot's
        // identity pass, renewed it.)
        const same = identity(page, entry.aria, entry.role, entry.name)
        if ((yield* guardNode(state, page, key, entry.aria, same)).installed) return found(same)
        return yield* stale(key, state.ai.libraryMapGone !== undefined ? state.ai.libraryMapGone + twin : changed(description))
      })

    const resolveRole = (state: TabState | undefined, page: Page, key: string, navigations: number, inLookup: boolean) =>
      Effect.gen(function*() {
        if (state?.role === undefined) {
          return yield* stale(key, "no role snapshot of this tab has issued e-refs yet (or the gateway restarted since)")
        }
        if (state.role.navigations !== navigations) {
          return yield* stale(key, `the page has navigated (now ${page.url()}) since the snapshot that issued it`)
        }
        const pending = state.role.identifying
        if (pending !== undefined) {
          pending.now()
          // A look-alike can only be told by its identity: it waits for the whole read (its own bound).
          const lookAlike = (state.role.entries.get(key)?.count ?? 0) > 1
          yield* Effect.ignore(bounded(() => pending.done, lookAlike ? IDENTIFY_WAIT_MS : RESOLVE_MS))
        }
        const entry = state.role.entries.get(key)
        if (entry === undefined) {
          return yield* stale(key, "it is not in the latest role snapshot of this tab (it comes from an older snapshot, or was never issued)")
        }
        const what = describe(entry.role, entry.name ?? "", entry.count > 1 ? entry.nth : undefined)
        const found = (locator: Locator): ResolvedRef => ({ locator, description: what, role: entry.role, name: entry.name ?? "" })
        if (entry.aria !== undefined && entry.frameSelector === undefined) {
          const quick = yield* checkFast(state, page, key, { aria: entry.aria, role: entry.role, name: entry.name ?? "" }, inLookup)
          if (quick !== undefined) return { ...found(quick.locator), inLookup: quick.inLookup, quick: quick.quick }
        }
        if (entry.aria !== undefined) {
          const same = identity(page, entry.aria, entry.role, entry.name)
          if ((yield* guardNode(state, page, key, entry.aria, same)).installed) return found(same)
        }
        const { within, all } = kindOf(page, entry)
        // The only one of its kind, then and now: it is the element the snapshot showed (or its replacement).
        let count: number | undefined = undefined
        if (entry.count === 1) {
          const mark = newGuardKey()
          const locator = pinned(within, all, mark)
          const r = yield* guardOnly(state, page, key, all, locator, mark, entry.frameSelector === undefined)
          if (r.installed) return found(locator)
          count = r.count
        }
        count ??= yield* countOf(page, key, all)
        if (count !== entry.count) {
          return yield* stale(
            key,
            `the page changed since the snapshot: it showed ${entry.count} element(s) like ` +
              `${describe(entry.role, entry.name ?? "")}` +
              `${entry.frameSelector !== undefined ? ` in frame ${JSON.stringify(entry.frameSelector)}` : ""}, there are ${count} now`
          )
        }
        if (entry.count === 1) return yield* stale(key, changed(what))
        // Among look-alikes only the node itself will do: its position (nth) alone does not say which row
        // it is once the rows may have been rebuilt or reordered.
        return yield* stale(
          key,
          entry.aria !== undefined
            ? `${changed(what)}, and ${count} elements look like it, so which one it was cannot be told`
            : `${count} elements look like it (${what}) and the snapshot could not pin down which one it was ` +
              "(the page was changing while it was taken)"
        )
      })

    /**
     * The element a ref means in this tab, checked against the tab's latest snapshot: InvalidRequest for
     * something that is not a ref (a CSS selector), Conflict in a few ms for a ref that cannot be trusted.
     * `inLookup`: the caller's action may do the check as it looks for the element (see ResolvedRef).
     */
    const resolve = (
      tab: TabRef,
      page: Page,
      ref: string,
      options?: { readonly inLookup?: boolean }
    ): Effect.Effect<ResolvedRef, InvalidRequest | Conflict | BrowserUnavailable> =>
      Effect.gen(function*() {
        const parsed = parseRef(ref)
        if (parsed instanceof InvalidRequest) return yield* parsed
        if (page.isClosed()) return yield* pageGone(page, parsed.key, undefined)
        const navigations = yield* sessions.navigations(page)
        const state = stateOf(tab, false)
        // Guards of requests that ended without letting them go (outside `owned`): those of requests still
        // under way, this one's other refs (fill, drag) among them, stay until they settle.
        const leftover = takeGuards(state, (owner) => owner.done)
        if (leftover.length > 0) yield* releaseAll(leftover, worlds)
        return parsed.kind === "ai"
          ? yield* resolveAi(state, page, parsed.key, navigations, options?.inLookup === true)
          : yield* resolveRole(state, page, parsed.key, navigations, options?.inLookup === true)
      }).pipe(Effect.withSpan("Refs.resolve", { attributes: { ref } }))

    /**
     * After an action on resolved refs: removes their guards, and fails when a guard stopped an event because
     * its element changed between the check and the action (the page saw nothing of it).
     */
    const settle = (tab: TabRef, options?: { readonly later?: boolean }) =>
      Effect.gen(function*() {
        // The request's own guards (outside `owned`: every guard of the tab).
        const mine = yield* FiberRef.get(CurrentOwner)
        const taken = takeGuards(stateOf(tab, false), (owner) => mine === undefined || owner === mine)
        // later: the page waits in a dialog; its guards go once it answers again, not waited for here.
        if (options?.later === true) return yield* Effect.asVoid(Effect.forkDaemon(releaseAll(taken, worlds)))
        const stopped = yield* releaseAll(taken, worlds)
        if (stopped.length > 0) {
          return yield* stale(
            stopped[0]!,
            "its element changed (was relabelled or replaced) while the action was under way, so the action was " +
              "stopped before the page saw it, or did not reach the element"
          )
        }
      }).pipe(Effect.withSpan("Refs.settle"))

    /**
     * Runs one request that resolves refs: the guards it installs are its own (settle, in it or in a fiber
     * it forks, lets go of those only, never of another request's on the same tab), and what it still holds
     * when it ends, by failure or interruption, is let go then.
     */
    const owned = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.suspend(() => {
        const owner: GuardOwner = { done: false }
        return Effect.locally(effect, CurrentOwner, owner).pipe(
          Effect.ensuring(Effect.suspend(() => {
            owner.done = true
            const left = [...tabs.values()].flatMap((state) => takeGuards(state, (o) => o === owner))
            return left.length > 0 ? Effect.asVoid(releaseAll(left, worlds)) : Effect.void
          }))
        )
      })

    /**
     * After a role snapshot (watched since before it was taken): give its refs the aria ref of their element,
     * from an AI snapshot of the same scope (`takeAi`), read after the answer (only to the refs alone of their
     * kind when the document changed while both were taken). Refs among look-alikes need it (without it they
     * fail once their element is not the only one of its kind); the others only gain speed from it (their
     * check then takes no page call of its own), so with `allRefs` false and no look-alikes the page is not
     * read again.
     */
    const identifyRoleRefs = (
      tab: TabRef,
      watch: ChangeWatch,
      takeAi: () => Promise<string>,
      options: { readonly allRefs: boolean }
    ) =>
      Effect.gen(function*() {
        const table = stateOf(tab, false)?.role
        const entries = table === undefined ? [] : [...table.entries]
        const lookAlikes = entries.some(([, e]) => e.count > 1)
        if (table === undefined || entries.length === 0 || watch.key === undefined || (!lookAlikes && !options.allRefs)) {
          // Nothing to identify: the watch is stopped without waiting for the page to confirm it.
          yield* Effect.forkDaemon(stopWatching(watch))
          return
        }
        const identify = Effect.gen(function*() {
          // Another snapshot of the tab came first: this one's refs are gone already.
          if (stateOf(tab, false)?.role !== table) return yield* Effect.asVoid(stopWatching(watch))
          const aiText = yield* Effect.orElseSucceed(Effect.tryPromise(takeAi), () => undefined)
          // Where the page changed while both were read (a clock, a live region, a click), look-alikes may have
          // moved: the kinds no change touched keep their order (kindUntouched), checked while the watch runs.
          const settled = aiText === undefined ? new Set<string>() : yield* untouchedKinds(watch, entries.map(([, e]) => e))
          const changedMeanwhile = yield* stopWatching(watch)
          if (aiText === undefined) return
          // After a change, the refs alone of their role and name get their element all the same (the one that
          // would stand in for it anyway: see refIdentity.ts), and look-alikes only where their kind was untouched.
          const ids = identitiesFromAi(
            aiText,
            changedMeanwhile ? entries.filter(([, e]) => e.count === 1 || settled.has(kindKey(e))) : entries
          )
          if (ids.size === 0 || stateOf(tab, false)?.role !== table) return
          table.entries = new Map(
            [...table.entries].map(([k, e]) => {
              const aria = ids.get(k)
              return [k, aria !== undefined ? { ...e, aria } : e] as const
            })
          )
        })
        // After the answer: refs of this snapshot wait for it (a look-alike's until it is done), so that whether
        // a ref acts on its own node does not depend on how soon it is used, and the answer does not wait for
        // a second read of the page (as long as the first: about 500 ms on a 10,000-element page). It lets the
        // looks at the tab asked for meanwhile go first (a screenshot right after the snapshot would otherwise
        // wait for the read), and begins at once when an action comes or a ref of this snapshot is used.
        const pass = deferPass(turns.afterLooks(tab, IDENTIFY_QUIET_MS), identify, Effect.asVoid(stopWatching(watch)), () => {
          if (table.identifying === pass) table.identifying = undefined
        })
        table.identifying = pass
      }).pipe(Effect.withSpan("Refs.identifyRoleRefs"))

    /**
     * The tab is about to leave its document (navigate, back, forward, reload): a role snapshot's identity
     * pass that has not begun is dropped, since the refs it would serve go with the document, and the read
     * would only hold up the navigation.
     */
    const leaving = (tab: TabRef) => Effect.sync(() => stateOf(tab, false)?.role?.identifying?.drop())

    /** Forget a tab's tables (the tab closed). */
    const forget = (tab: TabRef) => Effect.sync(() => void tabs.delete(keyOf(tab)))

    /** Forget every tab of a profile (its browser stopped). */
    const forgetProfile = (profile: string) =>
      Effect.sync(() => {
        for (const key of [...tabs.keys()]) if (key.startsWith(`${profile}\u0000`)) tabs.delete(key)
      })

    return { resolve, settle, owned, recordAi, recordRole, watchChanges, identifyRoleRefs, leaving, forget, forgetProfile } as const
  }),
  dependencies: [PlaywrightSessions.Default, TabTurns.Default]
}) {}
