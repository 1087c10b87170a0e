import { Effect, Layer } from "effect"
import { prepareRefChecks } from "../act/refChecks.js"
import type { MainWorld } from "../act/refGuards.js"
import type { Page } from "playwright-core"
import { PlaywrightSessions } from "../pages/Playwright.js"
import { DEFAULT_LIMIT } from "./SnapshotOptions.js"
import { oneWalkAtATime, readBoundedOnly } from "./walkBound.js"
import type { TabTurns } from "../pages/TabTurns.js"

// The automation library sets up its in-page helpers the first time it is asked anything about a document
// (in each of its frames; a few milliseconds where the renderer has them compiled already, see
// pages/injectedCache.ts, 15-30 ms where it has not), and the first AI read of a document also works out each
// element's box and generated content. Done while a document loads, that work
// holds up its load: a navigation took 15-20 ms longer on a small form, and the snapshot asked at once
// after it 30 ms less; the sum was the same. So nothing is asked of a document while it loads. Once the
// agent has been quiet for a moment after svc took the tab somewhere (navigate, open, an action that moved
// to a new document), the first read is done ahead (readAheadAfterNavigation below), which an agent that
// reads the answer and thinks before its snapshot never waits for. Iframes that come later, once the page
// has loaded (a dialog's frame, a widget), are made ready as they come: no read ahead follows them.

/** Iframe documents made ready per document of the main frame: a page of rotating ad frames is not worth more. */
export const MAX_WARM_FRAMES = 8

/** Readies the iframe documents that come after their page has loaded (see above). */
export const warmUpPage = (page: Page): void => {
  let frames = 0
  // A page first seen with a document in it: its iframes from now on come late. Its next document resets this.
  let loaded = true
  page.on("framenavigated", (frame) => {
    if (frame === page.mainFrame()) {
      frames = 0
      loaded = false
    } else if (loaded && ++frames <= MAX_WARM_FRAMES) {
      void frame.locator(":root").count().catch(() => undefined)
    }
  })
  page.on("load", () => {
    loaded = true
  })
}

export const SnapshotWarmUp = Layer.scopedDiscard(
  Effect.gen(function*() {
    const sessions = yield* PlaywrightSessions
    yield* sessions.onPage((_profile, page) => warmUpPage(page))
  })
)

// The library's first AI read of a document costs about twice its later ones, whatever else was asked before
// (its helpers are set up, and each element's box and generated content are worked out the first time they
// are asked for: on a 70-element form about 60-70 ms, then 20). After svc took the tab to a new document, that
// first read is done as soon as the agent has gone quiet for a moment (it reads the answer and thinks), so
// the snapshot it asks for next costs what a later one does. Not when anything reaches the tab first: a
// client that asks at once gets the first read itself, never a second one queued in front of it. The read
// goes as far as a default snapshot's cap reaches (walkBound.ts), so on a 12,000-element page it holds the
// page's thread for about a quarter of a second, not a whole one; a page svc cannot read that way is read
// ahead only up to a few thousand elements.

/** How long the tab must be left alone after the answer that took it there before the first read is done. */
const QUIET_MS = 400
/** Above this many elements a page that cannot be read in part is left to the snapshot (see above). */
const MAX_ELEMENTS = 3_000
const READ_TIMEOUT_MS = 10_000
/** The document's element count; -1 while it is still being parsed (it may be any size by the read). */
const SIZE = "document.readyState === \"loading\" ? -1 : document.getElementsByTagName(\"*\").length"

/** After svc took the tab to a new document: the document's first AI read, once the tab has been left alone. */
export const readAheadAfterNavigation = (
  turns: TabTurns,
  evaluateUtility: MainWorld,
  tab: { readonly profile: string; readonly targetId: string },
  page: Page
): Effect.Effect<void> =>
  Effect.gen(function*() {
    // An opened tab answers once its document commits: its size is known (and its read bounded) once parsed.
    yield* Effect.promise(() => page.waitForLoadState("domcontentloaded", { timeout: READ_TIMEOUT_MS }).catch(() => undefined))
    if (!(yield* turns.idleFor(tab, QUIET_MS)) || page.isClosed()) return
    const size = yield* Effect.promise(() => evaluateUtility(page, SIZE)?.catch(() => undefined) ?? Promise.resolve(undefined))
    if (typeof size !== "number" || page.isClosed()) return
    // svc's ref checks, which an AI snapshot prepares in each document it reads, are put in place first.
    void prepareRefChecks(page, evaluateUtility)
    const read = () => page.ariaSnapshot({ mode: "ai", timeout: READ_TIMEOUT_MS })
    yield* Effect.promise(() =>
      (size < 0 || size > MAX_ELEMENTS ? readBoundedOnly(page, evaluateUtility, DEFAULT_LIMIT, read) : oneWalkAtATime(page, read))
        .catch(() => undefined)
    )
  })
