import { Effect, Layer } from "effect"
import { prepareRefChecks } from "../act/refChecks.js"
import type { MainWorld } from "../act/refGuards.js"
import type { Page } from "playwright-core"
import { PlaywrightSessions } from "../pages/Playwright.js"
import { DEFAULT_LIMIT } from "./SnapshotOptions.js"
import { readBoundedOnly } from "./walkBound.js"
import type { TabTurns } from "../pages/TabTurns.js"

// The first snapshot of a new document used to cost about twice what later ones do: the automation
// library sets up its in-page helpers the first time it is asked anything about that document (in each of
// its frames: an iframe's cost as much as the page's own, 20-30 ms), the page's first layout waits for the
// first look that needs it, and svc's ref checks are prepared by the first AI snapshot. Here each new
// document of a tab's main frame, and of the first few of its iframes, is asked something trivial as soon
// as it is there, and once the page is parsed its layout is done and the ref checks prepared, while the
// agent is still reading the answer to its navigation, so the snapshot that follows (which reads every
// iframe too) finds all of it ready.

/** Forces the document's style and layout (what a snapshot's first look would otherwise wait for). */
const LAYOUT = "void document.documentElement.getBoundingClientRect()"
/** Iframe documents made ready per document of the main frame: a page of ad frames is not worth more. */
export const MAX_WARM_FRAMES = 8

/** Readies one tab's documents as they come (see above). */
export const warmUpPage = (
  page: Page,
  evaluateUtility: MainWorld
): void => {
  let frames = 0
  page.on("framenavigated", (frame) => {
    if (frame === page.mainFrame()) frames = 0
    else if (++frames > MAX_WARM_FRAMES) return
    void frame.locator(":root").count().catch(() => undefined)
  })
  page.on("domcontentloaded", () => {
    prepareRefChecks(page, evaluateUtility)
    void evaluateUtility(page, LAYOUT)?.catch(() => undefined)
  })
}

export const SnapshotWarmUp = Layer.scopedDiscard(
  Effect.gen(function*() {
    const sessions = yield* PlaywrightSessions
    yield* sessions.onPage((_profile, page) => warmUpPage(page, sessions.evaluateUtility))
  })
)

// The library's first AI read of a document costs about twice its later ones, whatever else was asked before
// (each element's box and generated content are worked out the first time they are asked for: on a
// 70-element form about 60-80 ms, then 20). After a navigation the agent asked for, that first read is done as
// soon as the agent has gone quiet for a moment (it reads the answer and thinks), so the snapshot it asks for
// next costs what a later one does. Not when anything reaches the tab first: a client that asks at once gets
// the first read itself, never a second one queued in front of it. The read goes as far as a default
// snapshot's cap reaches (walkBound.ts), so on a 12,000-element page it holds the page's thread for about a
// quarter of a second, not a whole one; a page svc cannot read that way is read ahead only up to a few
// thousand elements.

/** How long the tab must be left alone after the navigation's answer before the first read is done. */
const QUIET_MS = 400
/** Above this many elements a page that cannot be read in part is left to the snapshot (see above). */
const MAX_ELEMENTS = 3_000
const READ_TIMEOUT_MS = 10_000
const SIZE = "document.getElementsByTagName(\"*\").length"

/** After a navigation svc made: the document's first AI read, once the tab has been left alone. */
export const readAheadAfterNavigation = (
  turns: TabTurns,
  evaluateUtility: MainWorld,
  tab: { readonly profile: string; readonly targetId: string },
  page: Page
): Effect.Effect<void> =>
  Effect.gen(function*() {
    if (!(yield* turns.idleFor(tab, QUIET_MS)) || page.isClosed()) return
    const size = yield* Effect.promise(() => evaluateUtility(page, SIZE)?.catch(() => undefined) ?? Promise.resolve(undefined))
    if (typeof size !== "number" || page.isClosed()) return
    const read = () => page.ariaSnapshot({ mode: "ai", timeout: READ_TIMEOUT_MS })
    yield* Effect.promise(() =>
      (size > MAX_ELEMENTS ? readBoundedOnly(page, evaluateUtility, DEFAULT_LIMIT, read) : read()).catch(() => undefined)
    )
  })
