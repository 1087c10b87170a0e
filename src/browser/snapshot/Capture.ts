import { Effect } from "effect"
import { ConfigStore } from "../../config/ConfigStore.js"
import type { ScreenshotResult, SnapshotResult } from "../../domain/browser.js"
import { timed } from "../../platform/serverTiming.js"
import { Cdp } from "../cdp/Cdp.js"
import { Files } from "../inspect/Files.js"
import { PlaywrightSessions } from "../pages/Playwright.js"
import { TabTurns } from "../pages/TabTurns.js"
import { Tabs } from "../pages/Tabs.js"
import { imageExtension, type ImageType } from "../cdp/png.js"
import { MAX_SNAPSHOT_LIMIT } from "./AriaFormat.js"
import { orEmptyNotice } from "./EmptyNotice.js"
import { type Finder, findLines } from "./FindLines.js"
import { browserMediaDir, writeMediaFile } from "./mediaFiles.js"
import { FIND_LIMIT } from "./SnapshotOptions.js"

const DEFAULT_ARIA_LIMIT = 2000

/** Snapshots and screenshots of a tab over CDP: what keeps working without the automation library. */
export class Capture extends Effect.Service<Capture>()("svc/Capture", {
  effect: Effect.gen(function*() {
    const store = yield* ConfigStore
    const tabs = yield* Tabs
    const cdp = yield* Cdp
    const sessions = yield* PlaywrightSessions
    const turns = yield* TabTurns
    const files = yield* Files
    const screenshotDir = browserMediaDir(store.paths.mediaDir)

    /** The tab's ARIA snapshot: at most `limit` nodes; with `find`, what it finds in all of it (`limit` characters). */
    const ariaSnapshot = (request: {
      profile?: string | undefined
      targetId?: string | undefined
      limit?: number | undefined
      find?: Finder | undefined
    }) =>
      Effect.gen(function*() {
        const { endpoint, profile, target } = yield* tabs.resolveTarget(request.profile, request.targetId)
        const nodes = request.find !== undefined ? MAX_SNAPSHOT_LIMIT : request.limit ?? DEFAULT_ARIA_LIMIT
        const snap = yield* cdp.ariaSnapshot(endpoint, target.targetId, { limit: nodes }).pipe(
          turns.lookingIn({ profile: profile.name, targetId: target.targetId })
        )
        if (request.find !== undefined) {
          const found = findLines(snap.snapshot, request.find, request.limit ?? FIND_LIMIT)
          return {
            format: "aria",
            targetId: target.targetId,
            url: snap.url,
            title: snap.title,
            snapshot: found.text,
            truncated: found.shown < found.matches,
            found: { matches: found.matches, shown: found.shown }
          } satisfies SnapshotResult
        }
        return {
          format: "aria",
          targetId: target.targetId,
          url: snap.url,
          title: snap.title,
          snapshot: orEmptyNotice(snap.snapshot),
          nodes: snap.nodes,
          truncated: snap.truncated
        } satisfies SnapshotResult
      })

    /**
     * Capture a PNG and write it under `<state dir>/media/browser/`, owner-only, or as `filename` in the downloads
     * root (Files.destination); the path is returned.
     */
    const screenshot = (request: {
      profile?: string | undefined
      targetId?: string | undefined
      fullPage?: boolean | undefined
      filename?: string | undefined
      type?: ImageType | undefined
    }) =>
      Effect.gen(function*() {
        const type = request.type ?? "png"
        const put = yield* files.destination(
          request.filename,
          (image) => writeMediaFile(screenshotDir, "screenshot", imageExtension(type), image)
        )
        const { endpoint, profile, target } = yield* timed("tab")(tabs.resolveTarget(request.profile, request.targetId))
        const shot = yield* Effect.zipRight(
          // Emulation kept for the tab (device metrics, colour scheme) is back in force before it is captured.
          timed("ready")(sessions.ready(profile.name, endpoint, target.targetId)),
          timed("capture")(
            cdp.screenshot(endpoint, target.targetId, { fullPage: request.fullPage ?? false, type, allTabsListed: profile.driver !== "relay" })
          )
        ).pipe(turns.lookingIn({ profile: profile.name, targetId: target.targetId }))
        const file = yield* timed("write")(put(shot.image))
        return {
          path: file,
          targetId: target.targetId,
          type,
          bytes: shot.image.byteLength,
          width: shot.width,
          height: shot.height
        } satisfies ScreenshotResult
      })

    return { ariaSnapshot, screenshot } as const
  })
}) {}
