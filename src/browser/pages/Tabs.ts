import { Effect, Fiber, Option } from "effect"
import type { Page } from "playwright-core"
import type { Tab } from "../../domain/browser.js"
import { Conflict, NotFound } from "../../domain/errors.js"
import { BrowserManager } from "../launch/BrowserManager.js"
import { Cdp } from "../cdp/Cdp.js"
import type { CdpEndpoint } from "../cdp/endpoints.js"
import type { CdpTarget } from "../cdp/tabs.js"
import { normaliseTabUrl } from "../cdp/tabUrl.js"
import { PlaywrightSessions } from "./Playwright.js"
import type { ResolvedProfile } from "../launch/Profiles.js"
import { makeTabOrder } from "./tabOrder.js"
import { describeExit } from "../launch/ChromeLauncher.js"
import { redactSecrets } from "../../domain/redact.js"
import { becameDownload, errorText } from "./promises.js"
import { timed } from "../../platform/serverTiming.js"
import { blockedOnTheWay, NavigationPolicy } from "../policy/NavigationPolicy.js"

/** How long `open` waits for svc's session to count the new document before asking with a round trip. */
const COUNTED_MS = 100

/** How long the library's close may take before svc asks the browser itself (it sends its close only once). */
const LIBRARY_CLOSE_MS = 500

/** Whether the library closed the page within `ms`. */
const closedWithin = (page: Page, ms: number): Promise<boolean> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  return Promise.race([
    page.close().then(() => true, () => page.isClosed()),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(page.isClosed()), ms)))
  ]).finally(() => clearTimeout(timer))
}

/**
 * Tabs by targetId. A request without a targetId uses the tab this profile last opened or focused, and
 * fails clearly when there is none: never "whatever tab happens to be last". Tabs are listed in opening
 * order, each with an index that stays its own (tabOrder.ts).
 */
export class Tabs extends Effect.Service<Tabs>()("svc/Tabs", {
  effect: Effect.gen(function*() {
    const browsers = yield* BrowserManager
    const cdp = yield* Cdp
    const sessions = yield* PlaywrightSessions
    const policy = yield* NavigationPolicy
    const order = makeTabOrder()

    const toTab = (t: CdpTarget, index: number, current: Option.Option<string>): Tab => ({
      index,
      targetId: t.targetId,
      title: t.title,
      url: t.url,
      type: t.type,
      current: Option.contains(current, t.targetId)
    })

    // Tabs closed whose page detached but which the browser still lists (a large document's, for some 100 ms):
    // left out of listings until the browser drops them.
    const closing = new Set<string>()
    const shown = (profile: string, targets: ReadonlyArray<CdpTarget>): ReadonlyArray<CdpTarget> => {
      if (closing.size === 0) return targets
      const listedNow = new Set(targets.map((t) => `${profile}\u0000${t.targetId}`))
      for (const key of closing) if (key.startsWith(`${profile}\u0000`) && !listedNow.has(key)) closing.delete(key)
      return targets.filter((t) => !closing.has(`${profile}\u0000${t.targetId}`))
    }

    /** The browser's tabs as listed for the profile: numbered, in their order, the current one marked. */
    const listed = (profile: string, all: ReadonlyArray<CdpTarget>) =>
      Effect.gen(function*() {
        const targets = shown(profile, all)
        const current = yield* browsers.currentTab(profile)
        const indices = order.sync(profile, targets.map((t) => t.targetId))
        const tabs = targets.map((t) => toTab(t, indices.get(t.targetId)!, current))
        return { profile, tabs: tabs.sort((a, b) => a.index - b.index) }
      })

    const list = (profileName: string | undefined) =>
      Effect.gen(function*() {
        const { profile, endpoint } = yield* browsers.endpoint(profileName)
        return yield* listed(profile.name, yield* cdp.listTabs(endpoint))
      })

    /** The new tab, numbered after every tab the browser had before it (`listed`: the browser's tabs, when asked already). */
    const opened = (profile: string, endpoint: CdpEndpoint, target: CdpTarget, listed?: Fiber.Fiber<ReadonlyArray<CdpTarget>>) =>
      Effect.gen(function*() {
        const targets = listed !== undefined
          ? yield* Fiber.join(listed)
          : yield* cdp.listTabs(endpoint).pipe(Effect.orElseSucceed(() => []))
        const others = targets.map((t) => t.targetId).filter((id) => id !== target.targetId)
        order.sync(profile, [...others, target.targetId])
        yield* browsers.setCurrentTab(profile, target.targetId)
        return toTab(target, order.indexOf(profile, target.targetId), Option.some(target.targetId))
      })

    /** `beforeLoad`: called with the library's page of the new tab before it is sent to the URL. */
    const open = (
      profileName: string | undefined,
      url: string,
      beforeLoad?: (tab: { readonly profile: string; readonly targetId: string }, page: Page) => Effect.Effect<void>
    ) =>
      Effect.gen(function*() {
        const { profile, endpoint } = yield* browsers.endpoint(profileName)
        // With the automation library, the tab is created blank, known to the library (so its console,
        // errors and requests are observed), and only then sent to the URL: nothing of its first
        // document is missed. Without it, Chromium opens the URL directly.
        const normalised = normaliseTabUrl(url)
        if (typeof normalised !== "string") return yield* normalised
        yield* policy.check(normalised)
        if (browsers.automation.available && normalised !== "about:blank") {
          // Opened over CDP, then found in the library. (The library's newPage is not used: a page it creates
          // while a re-made connection's context settings are still being applied can miss them.)
          const blank = yield* timed("create")(cdp.openTab(endpoint, "about:blank"))
          // The browser's tabs, for the new one's index: asked beside the navigation.
          const listed = yield* Effect.fork(cdp.listTabs(endpoint).pipe(Effect.orElseSucceed((): ReadonlyArray<CdpTarget> => [])))
          const mark = yield* policy.mark
          const observed = yield* Effect.either(
            Effect.gen(function*() {
              yield* sessions.attach(profile.name, endpoint)
              const page = yield* timed("page")(sessions.page(profile.name, endpoint, blank.targetId))
              if (beforeLoad !== undefined) yield* beforeLoad({ profile: profile.name, targetId: blank.targetId }, page)
              const before = yield* sessions.navigations(page)
              // Returns once the navigation commits; a page that fails to load still shows Chromium's error page.
              const failed = yield* timed("goto")(Effect.promise(() =>
                page.goto(normalised, { waitUntil: "commit", timeout: 15_000 }).then(() => undefined, (e: unknown) => errorText(e))
              ))
              // The library heard of the commit on its own session; svc's session of the page must count the new
              // document too, so that a snapshot taken next does. Its news usually comes at once; a round trip on
              // that session settles it otherwise (it waits for the page's main thread, busy with the new document).
              if (!(yield* timed("counted")(Effect.promise(() => sessions.counted(page, before, COUNTED_MS))))) {
                yield* Effect.promise(() => sessions.evaluateMain(page, "0")?.catch(() => undefined) ?? Promise.resolve())
              }
              return { tab: { ...blank, url: page.url() }, failed, refused: yield* policy.refusedSince(mark, page) }
            })
          )
          if (observed._tag === "Right" && observed.right.refused.length > 0) {
            // Redirected somewhere the policy refuses: no tab is left showing the refusal.
            yield* Effect.ignore(cdp.closeTab(endpoint, blank.targetId))
            return yield* blockedOnTheWay(`open ${redactSecrets(normalised)} (the tab was closed)`, observed.right.refused)
          }
          if (observed._tag === "Right") {
            const tab = yield* timed("list")(opened(profile.name, endpoint, observed.right.tab, listed))
            const failed = observed.right.failed
            // The URL answered with a file: the browser downloads it, and the tab stays blank.
            if (failed !== undefined && becameDownload(failed)) return { ...tab, download: true as const }
            if (failed !== undefined && /net::ERR_|Timeout/i.test(failed)) {
              // The tab is there (showing the browser's error page), but the page is not: say so, as navigate does.
              return yield* new Conflict({
                message: `opened tab [${tab.index}] ${tab.targetId}, but ${redactSecrets(normalised)} did not load: ` +
                  `${redactSecrets(failed.split("\n")[0]!)}; check the address, or run \`svc browser navigate <url> --target-id ` +
                  `${tab.targetId}\` once the site answers`
              })
            }
            return tab
          }
          // The library could not take the tab: open the URL the plain way instead.
          yield* Effect.ignore(cdp.closeTab(endpoint, blank.targetId))
        }
        return yield* opened(profile.name, endpoint, yield* cdp.openTab(endpoint, url))
      })

    const find = (endpoint: CdpEndpoint, profile: ResolvedProfile, targetId: string) =>
      Effect.flatMap(Effect.map(cdp.listTabs(endpoint), (all) => shown(profile.name, all)), (targets) => {
        const target = targets.find((t) => t.targetId === targetId)
        order.sync(profile.name, targets.map((t) => t.targetId))
        return target !== undefined
          ? Effect.succeed(target)
          : Effect.fail(
            new NotFound({
              message: `no tab ${targetId} in profile "${profile.name}"; \`svc browser tabs\` lists the open tabs`
            })
          )
      })

    const focus = (profileName: string | undefined, targetId: string) =>
      Effect.gen(function*() {
        const { profile, endpoint } = yield* browsers.endpoint(profileName)
        const target = yield* find(endpoint, profile, targetId)
        yield* cdp.activateTab(endpoint, targetId)
        yield* browsers.setCurrentTab(profile.name, targetId)
        return toTab(target, order.indexOf(profile.name, targetId), Option.some(targetId))
      })

    /**
     * Closes the tab and answers the tabs left, as `list` does (undefined when the browser could not list
     * them). `known`: the caller has just found the tab (an action's), which is not looked up first;
     * `withinMs`: how long it may take to go (cdp/tabs.ts closeTab). Listings leave it out from then on.
     */
    const closeLeaving = (
      profileName: string | undefined,
      targetId: string,
      options: { readonly known?: boolean; readonly withinMs?: number | undefined } = {}
    ) =>
      Effect.gen(function*() {
        const { profile, endpoint } = yield* browsers.endpoint(profileName)
        if (options.known !== true) yield* find(endpoint, profile, targetId)
        // Closed by the library where it has the page: it answers once the tab detached, which a large
        // document's does some 100 ms before the browser stops listing it (and svc's own close then waited
        // as long again). A close the browser dropped is asked again after half a second (cdp/tabs.ts).
        const page = sessions.knownPage(profile.name, targetId)
        const byLibrary = page !== undefined && (yield* Effect.promise(() => closedWithin(page, LIBRARY_CLOSE_MS)))
        const left = byLibrary
          ? Option.getOrUndefined(yield* Effect.option(cdp.listTabs(endpoint)))
          : yield* cdp.closeTab(endpoint, targetId, options.withinMs)
        // Still listed by the browser for a while after the library saw it go: `listed` (and every listing
        // after it, until the browser drops it) leaves it out.
        closing.add(`${profile.name}\u0000${targetId}`)
        const current = yield* browsers.currentTab(profile.name)
        if (Option.contains(current, targetId)) yield* browsers.setCurrentTab(profile.name, undefined)
        return left === undefined ? undefined : yield* listed(profile.name, left)
      })

    const close = (profileName: string | undefined, targetId: string) =>
      Effect.as(closeLeaving(profileName, targetId), { targetId, closed: true })

    /**
     * The tab a request means: its targetId, else the profile's current tab. `forNavigation`: a navigation
     * needs a tab, not a particular one, where no other tab could be meant by mistake: when the current tab
     * went with a browser svc started again, the new browser's first tab (svc's own); when the browser has no
     * tab at all, a new one. Either becomes current.
     */
    const resolveTarget = (
      profileName: string | undefined,
      targetId: string | undefined,
      options: { readonly forNavigation?: boolean } = {}
    ) =>
      Effect.gen(function*() {
        const { profile, endpoint } = yield* browsers.endpoint(profileName)
        if (targetId !== undefined) {
          return { profile, endpoint, target: yield* find(endpoint, profile, targetId) }
        }
        const current = yield* browsers.currentTab(profile.name)
        const targets = yield* cdp.listTabs(endpoint)
        const target = Option.flatMap(current, (id) => Option.fromNullable(targets.find((t) => t.targetId === id)))
        if (Option.isNone(target)) {
          const lost = yield* browsers.lostTab(profile.name)
          const pages = targets.filter((t) => t.type === "page")
          if (options.forNavigation === true && (Option.isSome(lost) || pages.length === 0)) {
            const tab = pages[0] ?? (yield* cdp.openTab(endpoint, "about:blank"))
            yield* browsers.setCurrentTab(profile.name, tab.targetId)
            if (Option.isSome(lost)) {
              yield* Effect.logInfo(
                `profile "${profile.name}": its browser ${describeExit(lost.value)} and was started again; using its tab ${tab.targetId}`
              )
            }
            return { profile, endpoint, target: tab }
          }
          if (Option.isSome(lost)) {
            return yield* new Conflict({
              message: `the browser of profile "${profile.name}" ${describeExit(lost.value)} and was started again: ` +
                "the tab you were using is gone with it. Open a tab (`svc browser open <url>`), navigate (`svc browser " +
                "navigate <url>`: in the new browser's tab), or pick one (`svc browser tabs`, then `svc browser focus <targetId>`)"
            })
          }
          return yield* new Conflict({
            message: (Option.isSome(current)
              ? `the current tab of profile "${profile.name}" was closed; `
              : `profile "${profile.name}" has no current tab; `) +
              "pass a targetId (`svc browser tabs` lists them), or open or focus a tab first"
          })
        }
        return { profile, endpoint, target: target.value }
      })

    /** The tab's stable index (numbering it now if the gateway has not listed it yet). */
    const indexOf = (profile: string, targetId: string) => Effect.sync(() => order.indexOf(profile, targetId))

    return { list, open, focus, close, closeLeaving, resolveTarget, indexOf } as const
  })
}) {}
