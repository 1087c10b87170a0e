import { Effect, Option } from "effect"
import { BrowserManager } from "../launch/BrowserManager.js"
import { PlaywrightSessions } from "./Playwright.js"
import { Tabs } from "./Tabs.js"

/** The tab a request means (its targetId, else the profile's current tab) and its playwright page. */
export class TabPages extends Effect.Service<TabPages>()("svc/TabPages", {
  effect: Effect.gen(function*() {
    const tabs = yield* Tabs
    const browsers = yield* BrowserManager
    const sessions = yield* PlaywrightSessions
    /** `forNavigation`: as for Tabs.resolveTarget (a navigation takes a restarted browser's tab, or a new one). */
    const pageOf = (profileName: string | undefined, targetId: string | undefined, options: { readonly forNavigation?: boolean } = {}) =>
      Effect.gen(function*() {
        // A tab the automation library already has open is used as it is: no look at the browser's list.
        const { endpoint, profile } = yield* browsers.endpoint(profileName)
        const id = targetId ?? Option.getOrUndefined(yield* browsers.currentTab(profile.name))
        const known = id !== undefined ? sessions.knownPage(profile.name, id) : undefined
        if (id !== undefined && known !== undefined) {
          const page = yield* sessions.page(profile.name, endpoint, id)
          const target = { targetId: id, url: page.url(), title: "", type: "page" }
          return { profile, target, page, tab: { profile: profile.name, targetId: id } }
        }
        const { target } = yield* tabs.resolveTarget(profileName, targetId, options)
        const page = yield* sessions.page(profile.name, endpoint, target.targetId)
        return { profile, target, page, tab: { profile: profile.name, targetId: target.targetId } }
      })
    return { pageOf } as const
  })
}) {}
