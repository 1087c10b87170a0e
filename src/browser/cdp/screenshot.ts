import { Duration, Effect, Schedule } from "effect"
import { timed } from "../../platform/serverTiming.js"
import { BrowserUnavailable } from "../../domain/errors.js"
import { redactSecrets } from "../../domain/redact.js"
import { targetError } from "./messages.js"
import { imageSize, type ImageType } from "./png.js"
import type { Connection, Params } from "./socket/connection.js"
import { attach } from "./socket/session.js"
import { requireTab } from "./tabs.js"

// A PNG (or JPEG) of a tab: its viewport, or its whole page up to a bound.

export interface Screenshot {
  readonly image: Uint8Array
  readonly type: ImageType
  readonly width: number
  readonly height: number
}

/** JPEG quality: text stays sharp, a long page's image is a third of its PNG or less. */
export const JPEG_QUALITY = 80

/** Full-page screenshots are clipped to this many CSS pixels in each direction. */
export const MAX_FULL_PAGE_PX = 16_384

/** Chromium's answer for a tab it has not painted yet (see screenshot). */
const unpainted = (e: { readonly message: string }) => /Unable to capture screenshot/i.test(e.message)
/** After bringing an unpainted tab to front: the wait before the next capture, and then between captures. */
const FIRST_PAINT_WAIT = Duration.millis(50)
const PAINT_RETRIES = Schedule.exponential(Duration.millis(100)).pipe(Schedule.intersect(Schedule.recurs(5)))

/** Whether the target is the browser's only tab (false when that cannot be told). */
const onlyTab = (conn: Connection, targetId: string) =>
  conn.send("Target.getTargets").pipe(
    Effect.map(({ targetInfos }) => {
      const pages = targetInfos.filter((t) => t.type === "page")
      return pages.length === 1 && pages[0]!.targetId === targetId
    }),
    Effect.orElseSucceed(() => false)
  )

export const screenshot = (
  conn: Connection,
  targetId: string,
  opts: {
    readonly fullPage?: boolean | undefined
    readonly type?: ImageType | undefined
    /**
     * The browser's target list is all of its tabs (not the relay's, which lists only the shared ones): a tab
     * that is the only one is in front already.
     */
    readonly allTabsListed?: boolean | undefined
  }
) =>
  Effect.gen(function*() {
    const ep = conn.endpoint
    yield* timed("require")(requireTab(conn, targetId))
    const alone = opts.allTabsListed === true && (yield* timed("tabs")(onlyTab(conn, targetId)))
    const sessionId = yield* timed("attach")(attach(conn, targetId))
    const failed = targetError(ep, targetId)
    // Headless Chromium (156, --headless=new) does not always paint a background tab, and then
    // captureScreenshot never answers (measured: 2 of 5 background captures hung): bring it to front. Not a
    // tab that is alone, which is in front already: bringing it there again costs a few ms in the managed
    // browser (about 4), and as much as the capture itself in one the library launches (27 ms against 17).
    if (!alone) yield* conn.send("Page.bringToFront", undefined, sessionId).pipe(Effect.mapError(failed))
    // The quicker PNG encoding: the same pixels in a file about a third larger, in half the time on a text page
    // (1280x720: 26 ms instead of 53), which is most of a screenshot's time.
    const type = opts.type ?? "png"
    let params: Params<"Page.captureScreenshot"> = type === "jpeg"
      ? { format: "jpeg", quality: JPEG_QUALITY, optimizeForSpeed: true }
      : { format: "png", optimizeForSpeed: true }
    if (opts.fullPage === true) {
      const metrics = yield* conn.send("Page.getLayoutMetrics", undefined, sessionId).pipe(Effect.mapError(failed))
      const width = Math.min(MAX_FULL_PAGE_PX, Math.ceil(metrics.cssContentSize.width))
      const height = Math.min(MAX_FULL_PAGE_PX, Math.ceil(metrics.cssContentSize.height))
      if (width > 0 && height > 0) {
        params = { ...params, captureBeyondViewport: true, clip: { x: 0, y: 0, width, height, scale: 1 } }
      }
    }
    const capture = conn.send("Page.captureScreenshot", params, sessionId)
    // A browser that has just started may not have painted its tab yet: Chromium answers "Unable to capture
    // screenshot" (measured: 1 of 5 captures right after the managed browser's start). Bringing the tab to
    // front makes it paint, which on a loaded machine can take longer than one short wait (a CI run failed
    // after 50 ms): tried again while it answers so, for about 3 s in all.
    const { data } = yield* capture.pipe(
      Effect.catchIf(
        unpainted,
        () =>
          conn.send("Page.bringToFront", undefined, sessionId).pipe(
            Effect.zipRight(capture.pipe(Effect.delay(FIRST_PAINT_WAIT), Effect.retry({ while: unpainted, schedule: PAINT_RETRIES })))
          )
      ),
      Effect.mapError(failed),
      timed("png")
    )
    const buf = Buffer.from(data, "base64")
    const image = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength)
    const size = imageSize(type, image)
    if (size === undefined) {
      return yield* new BrowserUnavailable({
        message: `the browser at ${redactSecrets(ep.url)} returned a screenshot that is not a ${type.toUpperCase()}`
      })
    }
    const result: Screenshot = { image, type, width: size.width, height: size.height }
    return result
  })
