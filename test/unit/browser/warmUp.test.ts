import { EventEmitter } from "node:events"
import type { Page } from "playwright-core"
import { describe, expect, it } from "vitest"
import { MAX_WARM_FRAMES, warmUpPage } from "../../../src/browser/snapshot/warmUp.js"

// Which documents of a tab are made ready as they come: nothing while a main-frame document loads (that
// would hold up its load; the first read is done ahead once the agent is quiet), and after its load the
// first MAX_WARM_FRAMES iframe documents that come (a page of rotating ad frames is not worth more).

const fakeTab = () => {
  const asked: Array<string> = []
  const frame = (name: string) => ({ name, locator: (selector: string) => ({ count: async () => (asked.push(`${name} ${selector}`), 1) }) })
  const main = frame("main")
  const page = Object.assign(new EventEmitter(), { mainFrame: () => main })
  warmUpPage(page as unknown as Page)
  return {
    asked,
    navigated: (f: ReturnType<typeof frame>) => page.emit("framenavigated", f),
    loaded: () => page.emit("load"),
    main,
    frame
  }
}

describe("warmUpPage", () => {
  it("asks nothing while a document loads, then readies the first iframes that come after its load", () => {
    const tab = fakeTab()
    tab.navigated(tab.main)
    tab.navigated(tab.frame("during"))
    expect(tab.asked).toEqual([])
    tab.loaded()
    for (let i = 0; i < MAX_WARM_FRAMES + 3; i++) tab.navigated(tab.frame(`f${i}`))
    expect(tab.asked).toEqual(Array.from({ length: MAX_WARM_FRAMES }, (_, i) => `f${i} :root`))
    // The next document of the main frame: its loading iframes are left alone, its late ones counted afresh.
    tab.asked.length = 0
    tab.navigated(tab.main)
    tab.navigated(tab.frame("g0"))
    expect(tab.asked).toEqual([])
    tab.loaded()
    tab.navigated(tab.frame("g1"))
    expect(tab.asked).toEqual(["g1 :root"])
  })

  it("takes the iframes of a page first seen with its document loaded as late ones", () => {
    const tab = fakeTab()
    tab.navigated(tab.frame("widget"))
    expect(tab.asked).toEqual(["widget :root"])
  })
})
