import { Console, Effect } from "effect"

/** A Console that records what `log` and `error` print, for CLI tests. */
export const makeMockConsole = () => {
  const out: Array<string> = []
  const err: Array<string> = []
  const noop = () => Effect.void
  const console: Console.Console = {
    [Console.TypeId]: Console.TypeId,
    assert: noop,
    clear: Effect.void,
    count: noop,
    countReset: noop,
    debug: noop,
    dir: noop,
    dirxml: noop,
    error: (...args) => Effect.sync(() => void err.push(args.join(" "))),
    group: noop,
    groupEnd: Effect.void,
    info: (...args) => Effect.sync(() => void out.push(args.join(" "))),
    log: (...args) => Effect.sync(() => void out.push(args.join(" "))),
    table: noop,
    time: noop,
    timeEnd: noop,
    timeLog: noop,
    trace: noop,
    warn: (...args) => Effect.sync(() => void err.push(args.join(" "))),
    unsafe: globalThis.console
  }
  return { console, out, err }
}
