import { Effect, Option } from "effect"
import type { Tab } from "../../domain/browser.js"
import { Conflict, NotFound } from "../../domain/errors.js"
import { BrowserManager } from "../launch/BrowserManager.js"
import { Cdp } from "../cdp/Cdp.js"
import type { CdpEndpoint } from "../cdp/endpoints.js"
import type { CdpTarget } from "../cdp/tabs.js"
import { normaliseTabUrl } from "../cdp/tabUrl.js"
import { PlaywrightSessions } from "./Playwright.js"
import type { ResolvedProfile } from "../launch/Profiles.js"

/**
 * Tabs by targetId. A request without a targetId uses the tab this profile last opened or focused, and
 * fails clearly when there is none: never "whatever tab happens to be last".
 */
export class Tabs extends Effect.Service<Tabs>()("svc/Tabs", {
  effect: Effect.gen(function*() {
    const browsers = yield* BrowserManager
    const cdp = yield* Cdp
    const sessions = yield* PlaywrightSessions

    const toTab = (t: CdpTarget, current: Option.Option<string>): Tab => ({
      targetId: t.targetId,
      title: t.title,
      url: t.url,
      type: t.type,
      current: Option.contains(current, t.targetId)
    })

    const list = (profileName: string | undefined) =>
      Effect.gen(function*() {
        const { profile, endpoint } = yield* browsers.endpoint(profileName)
        const targets = yield* cdp.listTabs(endpoint)
        const current = yield* browsers.currentTab(profile.name)
        return { profile: profile.name, tabs: targets.map((t) => toTab(t, current)) }
      })

    const open = (profileName: string | undefined, url: string) =>
      Effect.gen(function*() {
        const { profile, endpoint } = yield* browsers.endpoint(profileName)
        // With the automation library, the tab is created blank, known to the library (so its console,
        // errors and requests are observed), and only then sent to the URL: nothing of its first
        // document is missed. Without it, Chromium opens the URL directly.
        const normalised = normaliseTabUrl(url)
        if (typeof normalised !== "string") return yield* normalised
        if (browsers.automation.available && normalised !== "about:blank") {
          const blank = yield* cdp.openTab(endpoint, "about:blank")
          const observed = yield* Effect.either(
            Effect.gen(function*() {
              yield* sessions.attach(profile.name, endpoint)
              const page = yield* sessions.page(profile.name, endpoint, blank.targetId)
              // Returns once the navigation commits; a page that fails to load still shows Chromium's error page.
              yield* Effect.promise(() => page.goto(normalised, { waitUntil: "commit", timeout: 15_000 }).catch(() => null))
              return { ...blank, url: page.url() }
            })
          )
          if (observed._tag === "Right") {
            yield* browsers.setCurrentTab(profile.name, observed.right.targetId)
            return toTab(observed.right, Option.some(observed.right.targetId))
          }
          // The library could not take the tab: open the URL the plain way instead.
          yield* Effect.ignore(cdp.closeTab(endpoint, blank.targetId))
        }
        const target = yield* cdp.openTab(endpoint, url)
        yield* browsers.setCurrentTab(profile.name, target.targetId)
        return toTab(target, Option.some(target.targetId))
      })

    const find = (endpoint: CdpEndpoint, profile: ResolvedProfile, targetId: string) =>
      Effect.flatMap(cdp.listTabs(endpoint), (targets) => {
        const target = targets.find((t) => t.targetId === targetId)
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
        return toTab(target, Option.some(targetId))
      })

    const close = (profileName: string | undefined, targetId: string) =>
      Effect.gen(function*() {
        const { profile, endpoint } = yield* browsers.endpoint(profileName)
        yield* find(endpoint, profile, targetId)
        yield* cdp.closeTab(endpoint, targetId)
        const current = yield* browsers.currentTab(profile.name)
        if (Option.contains(current, targetId)) yield* browsers.setCurrentTab(profile.name, undefined)
        return { targetId, closed: true }
      })

    /** The tab a request means: its targetId, else the profile's current tab. */
    const resolveTarget = (profileName: string | undefined, targetId: string | undefined) =>
      Effect.gen(function*() {
        const { profile, endpoint } = yield* browsers.endpoint(profileName)
        if (targetId !== undefined) {
          return { profile, endpoint, target: yield* find(endpoint, profile, targetId) }
        }
        const current = yield* browsers.currentTab(profile.name)
        const targets = yield* cdp.listTabs(endpoint)
        const target = Option.flatMap(current, (id) => Option.fromNullable(targets.find((t) => t.targetId === id)))
        if (Option.isNone(target)) {
          return yield* new Conflict({
            message: (Option.isSome(current)
              ? `the current tab of profile "${profile.name}" was closed; `
              : `profile "${profile.name}" has no current tab; `) +
              "pass a targetId (`svc browser tabs` lists them), or open or focus a tab first"
          })
        }
        return { profile, endpoint, target: target.value }
      })

    return { list, open, focus, close, resolveTarget } as const
  })
}) {}
