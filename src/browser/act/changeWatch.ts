import { Effect } from "effect"
import type { Page } from "playwright-core"
import { bounded, RESOLVE_MS } from "./refGuards.js"
import { startWatch, stopWatch } from "./refIdentity.js"

// Noticing whether a document changed between two reads of it (a role snapshot and the AI read that gives
// its refs their elements' identities): a mutation observer in the page, started before the first read and
// asked after the second.

/** A watch for DOM changes while a role snapshot is taken (see watchChanges). */
export interface ChangeWatch {
  readonly page: Page
  readonly frameSelector: string | undefined
  readonly key: string | undefined
}

/** Before a role snapshot: start noticing DOM changes in the document it is taken of. */
export const watchChanges = (page: Page, frameSelector: string | undefined): Effect.Effect<ChangeWatch> => {
  const key = `__svcRefWatch_${Math.random().toString(36).slice(2)}`
  return bounded(
    () =>
      frameSelector === undefined
        ? page.evaluate(startWatch, key)
        : page.frameLocator(frameSelector).locator(":root").evaluate(startWatch, key, { timeout: RESOLVE_MS }),
    RESOLVE_MS
  ).pipe(
    Effect.map((k): ChangeWatch => ({ page, frameSelector, key: k })),
    Effect.orElseSucceed((): ChangeWatch => ({ page, frameSelector, key: undefined }))
  )
}

/** Stops a watch: true when the document changed (or the watch could not tell). */
export const stopWatching = (watch: ChangeWatch): Effect.Effect<boolean> => {
  const key = watch.key
  if (key === undefined) return Effect.succeed(true)
  return bounded(
    () =>
      watch.frameSelector === undefined
        ? watch.page.evaluate(stopWatch, key)
        : watch.page.frameLocator(watch.frameSelector).locator(":root").evaluate(stopWatch, key, { timeout: RESOLVE_MS }),
    RESOLVE_MS
  ).pipe(Effect.orElseSucceed(() => true))
}
