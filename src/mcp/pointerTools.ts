import { Effect, Schema } from "effect"
import { scrolledLine } from "../client/scrolled.js"
import { act, afterFields, postAct, Ref } from "./browserTools.js"
import { actionText, elementName } from "./results.js"
import { defineTool, field, optionalField } from "./tool.js"

// The mouse at points of the viewport, as Playwright MCP's coordinate tools name it: for what a snapshot has
// no ref for (a canvas, a map, a slider), and the wheel. x and y are CSS pixels from the viewport's top left
// corner, the pixels a viewport screenshot shows.

const Coordinate = Schema.Number.pipe(Schema.finite(), Schema.nonNegative())
const Button = Schema.Literal("left", "right", "middle")

export const clickAt = defineTool({
  name: "browser_mouse_click_xy",
  title: "Click at a point",
  description: "Click at a point of the viewport, in CSS pixels from its top left corner (as a viewport screenshot " +
    "shows it). For what a snapshot has no ref for (a canvas, a map); prefer browser_click with a ref otherwise.",
  input: Schema.Struct({
    x: field(Coordinate, "pixels from the viewport's left edge"),
    y: field(Coordinate, "pixels from the viewport's top edge"),
    button: optionalField(Button, "the mouse button (default left)"),
    clickCount: optionalField(Schema.Int.pipe(Schema.between(1, 2)), "2 for a double click"),
    element: optionalField(Schema.String, "what is there, in your words (shown in the answer)"),
    ...afterFields
  }),
  readOnly: false,
  destructive: true,
  run: (input, env) =>
    act(
      env,
      {
        kind: "clickAt",
        x: input.x,
        y: input.y,
        ...(input.clickCount === 2 ? { double: true } : {}),
        ...(input.button !== undefined ? { button: input.button } : {})
      },
      `${input.clickCount === 2 ? "Double-clicked" : "Clicked"} at (${input.x}, ${input.y})${
        input.element !== undefined ? ` (${input.element})` : ""
      }`,
      input.snapshot
    )
})

export const mouseWheel = defineTool({
  name: "browser_mouse_wheel",
  title: "Scroll",
  description: "Turn the mouse wheel over the page (or over the element `ref`, for a list or panel that scrolls on " +
    "its own): deltaY pixels down (negative: up), deltaX right. Says where the scrolled part is now and whether it moved " +
    "(at its end it does not; an endless list grows as it nears it).",
  input: Schema.Struct({
    deltaX: optionalField(Schema.Number.pipe(Schema.finite()), "pixels right (negative: left)"),
    deltaY: optionalField(Schema.Number.pipe(Schema.finite()), "pixels down (negative: up)"),
    ref: optionalField(Ref, "scroll over this element instead of the page's middle"),
    target: optionalField(Ref, "the same as ref"),
    element: optionalField(Schema.String, "what the element is, in your words"),
    ...afterFields
  }),
  readOnly: false,
  run: (input, env) => {
    const ref = input.ref ?? input.target
    const delta = { dx: input.deltaX ?? 0, dy: input.deltaY ?? 0 }
    return postAct(env, {
      kind: "scroll",
      ...delta,
      ...(ref !== undefined ? { ref } : {}),
      ...(input.snapshot === true ? { diff: true } : {})
    }).pipe(Effect.map((r) => {
      const line = scrolledLine(r.result, delta)
      return actionText(`${line.charAt(0).toUpperCase()}${line.slice(1)}${ref !== undefined ? ` (over ${elementName(ref, input.element)})` : ""}`, r)
    }))
  }
})

export const mouseMove = defineTool({
  name: "browser_mouse_move_xy",
  title: "Move the mouse",
  description: "Move the mouse pointer to a point of the viewport (hover menus, tooltips; with a button held down " +
    "by browser_mouse_down, a drag step by step).",
  input: Schema.Struct({
    x: field(Coordinate, "pixels from the viewport's left edge"),
    y: field(Coordinate, "pixels from the viewport's top edge"),
    ...afterFields
  }),
  readOnly: false,
  run: (input, env) => act(env, { kind: "moveAt", x: input.x, y: input.y }, `Moved the mouse to (${input.x}, ${input.y})`, input.snapshot)
})

const mouseButton = (change: "down" | "up") =>
  defineTool({
    name: `browser_mouse_${change}`,
    title: change === "down" ? "Press a mouse button" : "Release a mouse button",
    description: change === "down"
      ? "Press a mouse button where the pointer is (move it first with browser_mouse_move_xy); it stays pressed until browser_mouse_up."
      : "Release a mouse button where the pointer is (after browser_mouse_down).",
    input: Schema.Struct({
      button: optionalField(Button, "the mouse button (default left)"),
      ...afterFields
    }),
    readOnly: false,
    destructive: true,
    run: (input, env) =>
      act(
        env,
        { kind: change === "down" ? "mouseDown" : "mouseUp", ...(input.button !== undefined ? { button: input.button } : {}) },
        `${change === "down" ? "Pressed" : "Released"} the ${input.button ?? "left"} mouse button`,
        input.snapshot
      )
  })

export const mouseDown = mouseButton("down")
export const mouseUp = mouseButton("up")

export const mouseDrag = defineTool({
  name: "browser_mouse_drag_xy",
  title: "Drag the mouse",
  description: "Drag with the left mouse button from one point of the viewport to another (a slider, a map, a " +
    "canvas); for elements a snapshot shows, browser_drag with refs.",
  input: Schema.Struct({
    startX: field(Coordinate, "where to press: pixels from the left edge"),
    startY: field(Coordinate, "where to press: pixels from the top edge"),
    endX: field(Coordinate, "where to release: pixels from the left edge"),
    endY: field(Coordinate, "where to release: pixels from the top edge"),
    ...afterFields
  }),
  readOnly: false,
  destructive: true,
  run: (input, env) =>
    act(
      env,
      { kind: "dragAt", startX: input.startX, startY: input.startY, endX: input.endX, endY: input.endY },
      `Dragged from (${input.startX}, ${input.startY}) to (${input.endX}, ${input.endY})`,
      input.snapshot
    )
})
