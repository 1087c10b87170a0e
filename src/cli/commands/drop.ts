import { Args, Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { droppedWhat } from "../../client/dropped.js"
import { act, after, done, targetIdOption, timeoutOption, withTimeout } from "./act.js"
import { CliFailure, commonOptions } from "./shared.js"

// `svc browser drop <ref> [path...] [--data type=text]...`: files or data dropped onto an element as if
// dragged in from outside the page.

/** `text/plain=hello` → ["text/plain", "hello"] (the text may hold `=`). */
const dataEntry = (raw: string): readonly [string, string] | undefined => {
  const eq = raw.indexOf("=")
  return eq > 0 ? [raw.slice(0, eq).trim(), raw.slice(eq + 1)] as const : undefined
}

export const dropCommand = Command.make(
  "drop",
  {
    ...commonOptions,
    ref: Args.text({ name: "ref" }).pipe(Args.withDescription("the element to drop onto, a ref from `svc browser snapshot`")),
    paths: Args.text({ name: "path" }).pipe(Args.withDescription("files in the uploads root"), Args.repeated),
    data: Options.text("data").pipe(
      Options.withDescription("a MIME type and its text, e.g. text/plain=hello or text/uri-list=https://example.com (repeatable)"),
      Options.repeated
    ),
    timeout: timeoutOption,
    ...after,
    targetId: targetIdOption
  },
  (args) =>
    Effect.gen(function*() {
      const entries = args.data.map((d) => [d, dataEntry(d)] as const)
      const bad = entries.find(([, e]) => e === undefined)
      if (bad !== undefined) {
        return yield* new CliFailure({ message: `drop --data: expected type=text, e.g. text/plain=hello (got ${JSON.stringify(bad[0])})` })
      }
      const data = Object.fromEntries(entries.map(([, e]) => e!))
      return yield* act(
        args,
        {
          kind: "drop",
          ref: args.ref,
          ...(args.paths.length > 0 ? { paths: args.paths } : {}),
          ...(entries.length > 0 ? { data } : {}),
          ...withTimeout(args.timeout)
        },
        done(`dropped ${droppedWhat(args.paths, data)} onto ${args.ref}`)
      )
    })
).pipe(Command.withDescription("drop files (from the uploads root) or data onto <ref>, as if dragged in from outside the page"))
