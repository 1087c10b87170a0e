import { Options } from "@effect/cli"
import { Console, Data, Effect, Either, Option } from "effect"
import { parseRaw, type RawConfig, readConfigText, writeConfigAtomic } from "../../config/file.js"
import { describeConfigError, parseConfigText } from "../../config/parse.js"
import { ProfileName } from "../../domain/browser.js"
import { type ControlClient, makeControlClient } from "../ControlClient.js"
import { describeCliError } from "../errors.js"

/** A command failed; `message` is the one line the user sees. */
export class CliFailure extends Data.TaggedError("CliFailure")<{ readonly message: string }> {}

/**
 * Read-modify-write of svc.json: every key the edit does not touch is kept, the whole result is validated
 * with the gateway's schema before anything is written, and the write is atomic (mode 0600).
 */
export const editConfigFile = (file: string, edit: (raw: RawConfig) => void) =>
  Effect.gen(function*() {
    const next = yield* Effect.try({
      try: () => {
        const raw = parseRaw(readConfigText(file))
        edit(raw)
        return raw
      },
      catch: (e) => new CliFailure({ message: `cannot read ${file}: ${(e as Error).message}` })
    })
    const text = JSON.stringify(next, null, 2) + "\n"
    const checked = parseConfigText(text, file)
    if (Either.isLeft(checked)) return yield* new CliFailure({ message: `not saved: ${describeConfigError(checked.left)}` })
    yield* Effect.try({
      try: () => writeConfigAtomic(file, text),
      catch: (e) => new CliFailure({ message: `cannot write ${file}: ${(e as Error).message}` })
    })
    return checked.right
  })

export const commonOptions = {
  profile: Options.text("browser-profile").pipe(
    Options.withSchema(ProfileName),
    Options.withDescription("the browser profile to use (default: browser.defaultProfile)"),
    Options.optional
  ),
  json: Options.boolean("json").pipe(Options.withDescription("print the API's JSON"))
}

export interface CommonArgs {
  readonly profile: Option.Option<string>
  readonly json: boolean
}

export const profileQuery = (args: CommonArgs): { profile?: string } =>
  Option.match(args.profile, { onNone: () => ({}), onSome: (profile) => ({ profile }) })

/** Call the control API once; any failure becomes the one line the user will see. */
export const withControl = <A, E>(
  args: CommonArgs,
  call: (client: ControlClient, query: { profile?: string }) => Effect.Effect<A, E>
) =>
  Effect.gen(function*() {
    const { client, connection } = yield* makeControlClient.pipe(
      Effect.mapError((e) => new CliFailure({ message: describeCliError(e) }))
    )
    return yield* call(client, profileQuery(args)).pipe(
      Effect.mapError((e) => new CliFailure({ message: describeCliError(e, connection) }))
    )
  })

/** Call the control API once and print the result: the API's JSON with --json, else a short rendering. */
export const callControl = <A, E>(
  args: CommonArgs,
  call: (client: ControlClient, query: { profile?: string }) => Effect.Effect<A, E>,
  human: (a: A) => string
) =>
  withControl(args, call).pipe(
    Effect.tap((result) => Console.log(args.json ? JSON.stringify(result, null, 2) : human(result)))
  )
