import { Effect, Layer } from "effect"
import { PlaywrightSessions } from "../pages/Playwright.js"

// The first snapshot of a new document used to cost about twice what later ones do: the automation
// library sets up its in-page helpers the first time it is asked anything about that document. Here it is
// asked something trivial as soon as each new document of a tab's main frame is there, while the agent is still reading the
// answer to its navigation, so the snapshot that follows finds the helpers ready.

export const SnapshotWarmUp = Layer.scopedDiscard(
  Effect.gen(function*() {
    const sessions = yield* PlaywrightSessions
    yield* sessions.onPage((_profile, page) => {
      page.on("framenavigated", (frame) => {
        if (frame === page.mainFrame()) void page.locator(":root").count().catch(() => undefined)
      })
    })
  })
)
