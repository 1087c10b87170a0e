import { EventEmitter } from "node:events"
import type { Page } from "playwright-core"
import { describe, expect, it } from "vitest"
import { MAX_WARM_FRAMES, warmUpPage } from "../../../src/browser/snapshot/warmUp.js"

// Which documents of a tab are made ready as they come: every one of the main frame, and per main-frame
// document the first MAX_WARM_FRAMES iframe documents (a page of rotating ad frames is not worth more).

const fakeTab = () => {
  const asked: Array<string> = []
  const frame = (name: string) => ({ name, locator: (selector: string) => ({ count: async () => (asked.push(`${name} ${selector}`), 1) }) })
  const main = frame("main")
  const page = Object.assign(new EventEmitter(), { mainFrame: () => main })
  warmUpPage(page as unknown as Page, () => undefined)
  return { asked, navigated: (f: ReturnType<typeof frame>) => page.emit("framenavigated", f), main, frame }
}

describe("warmUpPage", () => {
  it("readies each main-frame document and its first iframe documents, counting afresh per document", () => {
    const tab = fakeTab()
    tab.navigated(tab.main)
    for (let i = 0; i < MAX_WARM_FRAMES + 3; i++) tab.navigated(tab.frame(`f${i}`))
    expect(tab.asked).toEqual(["main :root", ...Array.from({ length: MAX_WARM_FRAMES }, (_, i) => `f${i} :root`)])
    // The next document of the main frame gets its own iframes readied.
    tab.asked.length = 0
    tab.navigated(tab.main)
    tab.navigated(tab.frame("g0"))
    expect(tab.asked).toEqual(["main :root", "g0 :root"])
  })
})
