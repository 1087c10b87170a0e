import { Effect } from "effect"
import type { Page } from "playwright-core"
import type { LabelBox } from "./RenderedSnapshot.js"

// The labels screenshot: each visible ref's label drawn on its element, the viewport captured, the drawing
// removed again whatever happened.

const LABELS_ATTR = "data-svc-labels"

// Runs in the page (kept as source: this project compiles without the DOM library). Draws each box with
// its ref on a fixed overlay in a shadow root, away from the page's styles; answers how many it drew.
const DRAW_LABELS = `(({ attr, boxes }) => {
  document.querySelectorAll("[" + attr + "]").forEach((e) => e.remove())
  const host = document.createElement("div")
  host.setAttribute(attr, "")
  host.style.cssText = "position:fixed;inset:0;pointer-events:none;z-index:2147483647;"
  const root = host.attachShadow({ mode: "open" })
  const vw = window.innerWidth, vh = window.innerHeight
  let drawn = 0
  for (const b of boxes) {
    if (b.width <= 0 || b.height <= 0 || b.x + b.width < 0 || b.y + b.height < 0 || b.x > vw || b.y > vh) continue
    const frame = document.createElement("div")
    frame.style.cssText = "position:fixed;left:" + b.x + "px;top:" + b.y + "px;width:" + b.width + "px;height:" +
      b.height + "px;outline:2px solid rgba(255,59,48,.9);box-sizing:border-box;"
    const tag = document.createElement("div")
    tag.textContent = b.ref
    tag.style.cssText = "position:fixed;left:" + Math.max(0, b.x) + "px;top:" + Math.max(0, b.y - 14) + "px;" +
      "font:bold 11px/13px monospace;color:#fff;background:rgba(255,59,48,.95);padding:0 3px;border-radius:3px;"
    root.append(frame, tag)
    drawn++
  }
  document.documentElement.appendChild(host)
  return drawn
})`

const REMOVE_LABELS = `((attr) => document.querySelectorAll("[" + attr + "]").forEach((e) => e.remove()))`

/** Where an iframe's content starts in the viewport (its box plus border and padding); runs in the page. */
export const frameOrigin = new Function(
  "el",
  "const r = el.getBoundingClientRect(); const cs = getComputedStyle(el); " +
    "return { x: r.x + el.clientLeft + (parseFloat(cs.paddingLeft) || 0), " +
    "y: r.y + el.clientTop + (parseFloat(cs.paddingTop) || 0) }"
) as (el: unknown) => { x: number; y: number }

const drawLabels = (page: Page, boxes: ReadonlyArray<LabelBox>) =>
  page.evaluate(`${DRAW_LABELS}(${JSON.stringify({ attr: LABELS_ATTR, boxes })})`) as Promise<number>

const removeLabels = (page: Page) => page.evaluate(`${REMOVE_LABELS}(${JSON.stringify(LABELS_ATTR)})`)

/** A PNG of the viewport with the boxes drawn; the page is left as it was. Fails with the library's error. */
export const labelsScreenshot = (page: Page, boxes: ReadonlyArray<LabelBox>) =>
  Effect.acquireUseRelease(
    Effect.tryPromise({ try: () => drawLabels(page, boxes), catch: (e) => e }),
    () =>
      Effect.tryPromise({
        try: async () => {
          // Headless Chromium may not paint a background tab: bring it to front, as plain screenshots do.
          await page.bringToFront()
          return new Uint8Array(await page.screenshot({ type: "png", timeout: 15_000 }))
        },
        catch: (e) => e
      }),
    () => Effect.promise(() => removeLabels(page).catch(() => undefined))
  )
