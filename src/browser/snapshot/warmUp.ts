import { Effect, Layer } from "effect"
import { prepareRefChecks } from "../act/refChecks.js"
import { PlaywrightSessions } from "../pages/Playwright.js"

// The first snapshot of a new document used to cost about twice what later ones do: the automation
// library sets up its in-page helpers the first time it is asked anything about that document, the page's
// first layout waits for the first look that needs it, and svc's ref checks are prepared by the first AI
// snapshot. Here each new document of a tab's main frame is asked something trivial as soon as it is
// there, and once it is parsed its layout is done and the ref checks prepared, while the agent is still
// reading the answer to its navigation, so the snapshot that follows finds all of it ready.

/** Forces the document's style and layout (what a snapshot's first look would otherwise wait for). */
const LAYOUT = "void document.documentElement.getBoundingClientRect()"

export const SnapshotWarmUp = Layer.scopedDiscard(
  Effect.gen(function*() {
    const sessions = yield* PlaywrightSessions
    yield* sessions.onPage((_profile, page) => {
      page.on("framenavigated", (frame) => {
        if (frame === page.mainFrame()) void page.locator(":root").count().catch(() => undefined)
      })
      page.on("domcontentloaded", () => {
        prepareRefChecks(page, sessions.evaluateUtility)
        void sessions.evaluateUtility(page, LAYOUT)?.catch(() => undefined)
      })
    })
  })
)
