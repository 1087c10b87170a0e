import { Effect } from "effect"
import { PlaywrightSessions } from "./Playwright.js"
import { Tabs } from "./Tabs.js"

/** The tab a request means (its targetId, else the profile's current tab) and its playwright page. */
export class TabPages extends Effect.Service<TabPages>()("svc/TabPages", {
  effect: Effect.gen(function*() {
    const tabs = yield* Tabs
    const sessions = yield* PlaywrightSessions
    const pageOf = (profileName: string | undefined, targetId: string | undefined) =>
      Effect.gen(function*() {
        const { endpoint, profile, target } = yield* tabs.resolveTarget(profileName, targetId)
        const page = yield* sessions.page(profile.name, endpoint, target.targetId)
        return { profile, target, page, tab: { profile: profile.name, targetId: target.targetId } }
      })
    return { pageOf } as const
  })
}) {}
