import { Error as PlatformError, Terminal } from "@effect/platform"
import { Effect, Exit, Mailbox, Option } from "effect"
import { builtin } from "../builtin.js"

// The Terminal of the CLI's start-up snapshot: sizes and prompts on stdout, input (only @effect/cli's
// prompts and wizard read it) from stdin through node:readline, which is loaded when a prompt first asks.

const defaultShouldQuit = (input: Terminal.UserInput) =>
  input.key.ctrl && (input.key.name === "c" || input.key.name === "d")

type Readline = typeof import("node:readline")

/** stdin as a readline interface for the duration of a scope (raw mode while it is a TTY). */
const withReadline = Effect.acquireRelease(
  Effect.sync(() => {
    const readline = builtin<Readline>("node:readline")
    const rl = readline.createInterface({ input: process.stdin, escapeCodeTimeout: 50 })
    readline.emitKeypressEvents(process.stdin, rl)
    if (process.stdin.isTTY) process.stdin.setRawMode(true)
    return rl
  }),
  (rl) =>
    Effect.sync(() => {
      if (process.stdin.isTTY) process.stdin.setRawMode(false)
      rl.close()
    })
)

/** Output sizes and prompts on stdout; input from stdin. */
export const leanTerminal: Terminal.Terminal = Terminal.Terminal.of({
  columns: Effect.sync(() => process.stdout.columns ?? 0),
  rows: Effect.sync(() => process.stdout.rows ?? 0),
  isTTY: Effect.sync(() => Boolean(process.stdout.isTTY)),
  readInput: Effect.gen(function*() {
    yield* withReadline
    const mailbox = yield* Mailbox.make<Terminal.UserInput>()
    const onKeypress = (s: string | undefined, k: { name?: string; ctrl?: boolean; meta?: boolean; shift?: boolean }) => {
      const input: Terminal.UserInput = {
        input: Option.fromNullable(s),
        key: { name: k.name ?? "", ctrl: !!k.ctrl, meta: !!k.meta, shift: !!k.shift }
      }
      mailbox.unsafeOffer(input)
      if (defaultShouldQuit(input)) mailbox.unsafeDone(Exit.void)
    }
    process.stdin.on("keypress", onKeypress)
    yield* Effect.addFinalizer(() => Effect.sync(() => process.stdin.off("keypress", onKeypress)))
    return mailbox as Mailbox.ReadonlyMailbox<Terminal.UserInput>
  }),
  readLine: Effect.scoped(
    Effect.flatMap(withReadline, (rl) =>
      Effect.async<string, Terminal.QuitException>((resume) => {
        const onLine = (line: string) => resume(Effect.succeed(line))
        rl.once("line", onLine)
        return Effect.sync(() => rl.off("line", onLine))
      }))
  ),
  display: (text) =>
    Effect.uninterruptible(
      Effect.async<void, PlatformError.PlatformError>((resume) => {
        process.stdout.write(text, (err) =>
          resume(
            err
              ? Effect.fail(
                new PlatformError.BadArgument({
                  module: "Terminal",
                  method: "display",
                  cause: err,
                  description: "Failed to write prompt to stdout"
                })
              )
              : Effect.void
          ))
      })
    )
})
