import { Effect } from "effect"
import type { Page } from "playwright-core"
import { InvalidRequest } from "../../domain/errors.js"
import { bounded, run, type Steps } from "./budgets.js"
import { viewportOf } from "./inPage.js"
import type { ActionError, ActionName } from "./messages.js"

// The mouse at points of the viewport, in CSS pixels from its top left corner (the pixels a viewport
// screenshot shows): for what a snapshot has no ref for (a canvas drawn on, a map or slider dragged, a menu
// that opens on hover), and for a drag done step by step (press, move, release). The pointer's position and
// pressed buttons are the tab's own, so a press in one call and a release in a later one make one gesture.

const POINTER_TIMEOUT_MS = 5_000
/** Moves in between, so that a page sees the pointer travel (Chromium starts a drag only once it has). */
const MOVE_STEPS = 5

export type MouseButton = "left" | "right" | "middle"

interface Point {
  readonly x: number
  readonly y: number
}

/** Fails unless the point is inside the viewport, saying how big it is. */
const insideViewport = (steps: Steps, page: Page, what: string, points: ReadonlyArray<Point>) =>
  Effect.gen(function*() {
    for (const p of points) {
      if (!Number.isFinite(p.x) || !Number.isFinite(p.y)) {
        return yield* new InvalidRequest({ message: `${what}: expected two numbers, x,y (got ${p.x},${p.y})` })
      }
    }
    const size = yield* steps.once((timeout) => bounded(page.evaluate(viewportOf), timeout, "page.evaluate"))
    const outside = points.find((p) => p.x < 0 || p.y < 0 || p.x >= size.width || p.y >= size.height)
    if (outside !== undefined) {
      return yield* new InvalidRequest({
        message: `${what} ${outside.x},${outside.y}: the point is outside the viewport, which is ${size.width}x${size.height} ` +
          `CSS pixels (x from 0 to ${size.width - 1}, y from 0 to ${size.height - 1}); scroll the element into ` +
          "view first, or act on it by its ref"
      })
    }
  })

const pointerRun = <A>(
  action: ActionName,
  timeoutMs: number | undefined,
  body: (steps: Steps) => Effect.Effect<A, ActionError>
) => run({ action, timeoutMs, defaultMs: POINTER_TIMEOUT_MS }, body)

/** A click (or double click) at a point. */
export const clickAt = (
  page: Page,
  x: number,
  y: number,
  options: {
    readonly double?: boolean | undefined
    readonly button?: MouseButton | undefined
    readonly timeoutMs?: number | undefined
  } = {}
) =>
  pointerRun("click", options.timeoutMs, (steps) =>
    Effect.gen(function*() {
      yield* insideViewport(steps, page, "click --at", [{ x, y }])
      const clickOptions = options.button !== undefined ? { button: options.button } : {}
      yield* steps.once((timeout) =>
        bounded(
          options.double === true ? page.mouse.dblclick(x, y, clickOptions) : page.mouse.click(x, y, clickOptions),
          timeout,
          "mouse.click"
        ))
    }))

/** The pointer moved to a point, through a few points in between; buttons held stay held (a drag goes on). */
export const moveTo = (page: Page, x: number, y: number, options: { readonly timeoutMs?: number | undefined } = {}) =>
  pointerRun("mouse", options.timeoutMs, (steps) =>
    Effect.gen(function*() {
      yield* insideViewport(steps, page, "mouse move", [{ x, y }])
      yield* steps.once((timeout) => bounded(page.mouse.move(x, y, { steps: MOVE_STEPS }), timeout, "mouse.move"))
    }))

/** A button pressed, or released, where the pointer is. */
export const mouseButton = (
  page: Page,
  change: "down" | "up",
  options: { readonly button?: MouseButton | undefined; readonly timeoutMs?: number | undefined } = {}
) =>
  pointerRun("mouse", options.timeoutMs, (steps) => {
    const button = options.button !== undefined ? { button: options.button } : {}
    return steps.once((timeout) =>
      bounded(change === "down" ? page.mouse.down(button) : page.mouse.up(button), timeout, `mouse.${change}`)
    )
  })

/** Press at one point, move to another with the left button held, release there. */
export const dragBetween = (page: Page, from: Point, to: Point, options: { readonly timeoutMs?: number | undefined } = {}) =>
  pointerRun("drag", options.timeoutMs, (steps) =>
    Effect.gen(function*() {
      yield* insideViewport(steps, page, "mouse drag", [from, to])
      yield* steps.once((timeout) =>
        bounded(
          (async () => {
            await page.mouse.move(from.x, from.y)
            await page.mouse.down()
            try {
              await page.mouse.move(to.x, to.y, { steps: MOVE_STEPS })
            } finally {
              // Never left pressed, whatever went wrong on the way.
              await page.mouse.up()
            }
          })(),
          timeout,
          "mouse.drag"
        ))
    }))
