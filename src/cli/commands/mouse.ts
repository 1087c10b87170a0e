import { Args, Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { act, after, done, parsePoint, targetIdOption, timeoutOption, withTimeout } from "./act.js"
import { CliFailure, commonOptions, given } from "./shared.js"

// `svc browser mouse move|down|up|drag`: the pointer at points of the viewport (x,y in CSS pixels from its
// top left corner, the pixels a screenshot shows), for a canvas, a map, a slider, or a drag done step by step.

const point = (name: string, description: string) => Args.text({ name }).pipe(Args.withDescription(description))

const readPoint = (what: string, raw: string) => {
  const p = parsePoint(raw)
  return p !== undefined
    ? Effect.succeed(p)
    : Effect.fail(new CliFailure({ message: `${what}: expected x,y in CSS pixels, e.g. 120,48 (got ${JSON.stringify(raw)})` }))
}

const buttonOption = Options.choice("button", ["left", "right", "middle"]).pipe(
  Options.withDescription("the mouse button (default left)"),
  Options.optional
)

const shared = { ...commonOptions, timeout: timeoutOption, ...after, targetId: targetIdOption }

const move = Command.make(
  "move",
  { ...shared, at: point("x,y", "where to move the pointer, e.g. 120,48") },
  (args) =>
    Effect.flatMap(readPoint("mouse move", args.at), (p) =>
      act(args, { kind: "moveAt", ...p, ...withTimeout(args.timeout) }, done(`moved the mouse to ${p.x},${p.y}`)))
).pipe(Command.withDescription("move the pointer to x,y (buttons held stay held: a drag goes on)"))

const press = (change: "down" | "up") =>
  Command.make(
    change,
    { ...shared, button: buttonOption },
    (args) =>
      act(
        args,
        { kind: change === "down" ? "mouseDown" : "mouseUp", ...given("button", args.button), ...withTimeout(args.timeout) },
        done(`${change === "down" ? "pressed" : "released"} the ${Option.getOrElse(args.button, () => "left")} mouse button`)
      )
  ).pipe(
    Command.withDescription(
      change === "down" ? "press a mouse button where the pointer is (`mouse move` it first)" : "release a mouse button where the pointer is"
    )
  )

const drag = Command.make(
  "drag",
  { ...shared, from: point("from", "where to press, x,y"), to: point("to", "where to release, x,y") },
  (args) =>
    Effect.gen(function*() {
      const from = yield* readPoint("mouse drag", args.from)
      const to = yield* readPoint("mouse drag", args.to)
      return yield* act(
        args,
        { kind: "dragAt", startX: from.x, startY: from.y, endX: to.x, endY: to.y, ...withTimeout(args.timeout) },
        done(`dragged from ${from.x},${from.y} to ${to.x},${to.y}`)
      )
    })
).pipe(Command.withDescription("drag with the left button from one point to another"))

export const mouseCommand = Command.make("mouse").pipe(
  Command.withDescription("the pointer at points of the viewport: `mouse move x,y`, `mouse down`, `mouse up`, `mouse drag x,y x,y`"),
  Command.withSubcommands([move, press("down"), press("up"), drag])
)
