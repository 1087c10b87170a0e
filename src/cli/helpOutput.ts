import { Console, Effect } from "effect"

// What @effect/cli prints itself (help, version, usage errors) goes through this console. @effect/cli 0.77
// renders every doc with @effect/printer-ansi's "pretty" style, colour codes included, whatever the output
// is, and puts its type boilerplate ("A user-defined piece of text.") above each option's own description.
// Here the codes are dropped unless stdout is a terminal and NO_COLOR is unset, the boilerplate always,
// and usage errors are held back so that runCli prints them as one line (or as JSON).

const ansi = /\u001b\[[0-9;]*[A-Za-z]/g

/** Paragraphs @effect/cli adds for an option's type that tell the reader nothing the usage line does not. */
const boilerplate = /^\s*(A user-defined piece of text\.|A true or false value\.)\s*$/

export const stripAnsi = (text: string): string => text.replace(ansi, "")

/** Drop the boilerplate paragraphs (and the blank line after each). */
export const dropBoilerplate = (text: string): string => {
  const lines = text.split("\n")
  const kept: Array<string> = []
  for (let i = 0; i < lines.length; i++) {
    if (boilerplate.test(stripAnsi(lines[i]!))) {
      if (lines[i + 1] !== undefined && stripAnsi(lines[i + 1]!).trim() === "") i++
      continue
    }
    kept.push(lines[i]!)
  }
  return kept.join("\n")
}

const OUTER = Symbol.for("svc/cli/outerConsole")

export interface HelpConsole {
  readonly console: Console.Console
  /** What @effect/cli printed as an error (usage errors), in order, without colour codes. */
  readonly errors: ReadonlyArray<string>
}

/**
 * A console for @effect/cli's own output, over `outer`. `plain` says (once, when first needed) whether
 * colour codes must go; it is only asked when a text holds one.
 */
export const makeHelpConsole = (outer: Console.Console, plain: Effect.Effect<boolean>): HelpConsole => {
  const errors: Array<string> = []
  let decided: boolean | undefined
  const render = (args: ReadonlyArray<unknown>) =>
    Effect.suspend(() => {
      const text = dropBoilerplate(args.map(String).join(" "))
      if (!text.includes("\u001b")) return Effect.succeed(text)
      if (decided !== undefined) return Effect.succeed(decided ? stripAnsi(text) : text)
      return Effect.map(plain, (p) => ((decided = p), p ? stripAnsi(text) : text))
    })
  const console: Console.Console = {
    ...outer,
    [OUTER]: outer,
    log: (...args) => Effect.flatMap(render(args), (text) => outer.log(text)),
    info: (...args) => Effect.flatMap(render(args), (text) => outer.info(text)),
    error: (...args) => Effect.sync(() => void errors.push(stripAnsi(args.map(String).join(" ")))),
    warn: (...args) => Effect.sync(() => void errors.push(stripAnsi(args.map(String).join(" "))))
  } as Console.Console
  return { console, errors }
}

/** Run a command's own handler with the console the CLI was given, not @effect/cli's. */
export const withOuterConsole = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Console.consoleWith((current) => {
    const outer = (current as unknown as { [OUTER]?: Console.Console })[OUTER]
    return outer === undefined ? effect : Effect.withConsole(effect, outer)
  })
