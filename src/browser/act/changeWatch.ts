import { Effect } from "effect"
import type { Locator, Page } from "playwright-core"
import { bounded, RESOLVE_MS } from "./refGuards.js"
import { kindUntouched, startWatch, stopWatch, watchChanged } from "./refIdentity.js"

// Noticing whether a document changed between two reads of it (a role snapshot and the AI read that gives
// its refs their elements' identities), and where: a mutation observer in the page, started before the first
// read and asked after the second.

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

/** `read` of the watch in its document: true when the document changed (or the watch could not tell). */
const askWatch = (watch: ChangeWatch, read: (key: string) => boolean): Effect.Effect<boolean> => {
  const key = watch.key
  if (key === undefined) return Effect.succeed(true)
  return bounded(
    () =>
      watch.frameSelector === undefined
        ? watch.page.evaluate(read, key)
        : watch.page.frameLocator(watch.frameSelector).locator(":root").evaluate(read, key, { timeout: RESOLVE_MS }),
    RESOLVE_MS
  ).pipe(Effect.orElseSucceed(() => true))
}

/** Stops a watch: true when the document changed (or the watch could not tell). */
export const stopWatching = (watch: ChangeWatch): Effect.Effect<boolean> => askWatch(watch, stopWatch)

/** Whether the document changed so far, the watch going on (true when that cannot be told). */
export const changedSoFar = (watch: ChangeWatch): Effect.Effect<boolean> => askWatch(watch, watchChanged)

/**
 * While the watch runs: true when the elements of one kind (`kind`: a role and name, in the watched document)
 * are still the `count` the role snapshot showed and no change the watch saw touched them (kindUntouched).
 */
export const kindUnchanged = (watch: ChangeWatch, kind: Locator, count: number): Effect.Effect<boolean> => {
  const key = watch.key
  if (key === undefined) return Effect.succeed(false)
  return bounded(() => kind.evaluateAll(kindUntouched, { key, count }), RESOLVE_MS).pipe(Effect.orElseSucceed(() => false))
}
