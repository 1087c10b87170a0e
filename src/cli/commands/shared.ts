import { Options } from "@effect/cli"
import { Console, Data, Effect, Option } from "effect"
import { editConfig } from "../../config/edit.js"
import type { RawConfig } from "../../config/file.js"
import { ProfileName } from "../../domain/browser.js"
import { type Connection, type ControlClient, makeControlClient, withNode } from "../../client/ControlClient.js"
import { NodeId } from "../../domain/nodes.js"
import { cliErrorTag, describeCliError } from "../errors.js"

/**
 * A command failed; `message` is the one line the user sees. `tag` and `status` say, for `--json`, what
 * failed underneath (e.g. NotFound, 404) when it was the gateway's answer.
 */
export class CliFailure extends Data.TaggedError("CliFailure")<{
  readonly message: string
  readonly tag?: string
  readonly status?: number
}> {}

/** A failure of a control API call as a CliFailure that keeps its tag and the HTTP status answered. */
const controlFailure = (error: unknown, connection?: Connection, answered?: number) => {
  const e = error as { _tag?: string; status?: number }
  const tag = cliErrorTag(error, connection)
  // A request refused by the shared schema never left: report the 400 the gateway would have answered.
  const status = e?._tag === "ParseError"
    ? 400
    : e?._tag === "RequestError" || e?._tag === "ConnectionError"
    ? undefined
    : answered
  return new CliFailure({
    message: describeCliError(error, connection),
    tag,
    ...(status !== undefined ? { status } : {})
  })
}

/** Edit svc.json through config/edit.ts (validated before it is written); a failure is its one line. */
export const editConfigFile = (file: string, edit: (raw: RawConfig) => void) =>
  editConfig(file, edit).pipe(Effect.mapError((e) => new CliFailure({ message: describeCliError(e) })))

export const commonOptions = {
  profile: Options.text("browser-profile").pipe(
    Options.withSchema(ProfileName),
    Options.withDescription("the browser profile to use (default: browser.defaultProfile)"),
    Options.optional
  ),
  json: Options.boolean("json").pipe(Options.withDescription("print the API's JSON")),
  node: Options.text("node").pipe(
    Options.withSchema(NodeId),
    Options.withDescription("run it on a node host's browser (its id, as `svc nodes list` shows it)"),
    Options.optional
  )
}

export interface CommonArgs {
  readonly profile: Option.Option<string>
  readonly json: boolean
  /** A node host's id: the call goes to that node's browser (`?node=<id>`). */
  readonly node?: Option.Option<string>
}

/** `{ [name]: value }` when the option was given, `{}` when not: to spread into a request. */
export const given = <K extends string, A>(name: K, option: Option.Option<A>): { [P in K]?: A } =>
  Option.match(option, { onNone: () => ({}), onSome: (value) => ({ [name]: value }) as { [P in K]?: A } })

export const profileQuery = (args: CommonArgs): { profile?: string } =>
  Option.match(args.profile, { onNone: () => ({}), onSome: (profile) => ({ profile }) })

/** Call the control API once; any failure becomes the one line the user will see. */
export const withControl = <A, E>(
  args: CommonArgs,
  call: (client: ControlClient, query: { profile?: string }) => Effect.Effect<A, E>
) =>
  Effect.gen(function*() {
    const { client, connection, lastStatus } = yield* makeControlClient.pipe(
      Effect.mapError((e) => controlFailure(e))
    )
    return yield* call(client, profileQuery(args)).pipe(
      withNode(Option.getOrUndefined(args.node ?? Option.none())),
      Effect.mapError((e) => controlFailure(e, connection, lastStatus()))
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
