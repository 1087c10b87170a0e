import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { getPath, parseRaw, readConfigText, setPath } from "../../config/file.js"
import { locateConfigFile, locateStatePaths } from "../../config/locate.js"
import { runningGatewayPid } from "../../gateway/stateLock.js"
import { redactSecrets } from "../../domain/redact.js"
import { CliFailure, editConfigFile } from "./shared.js"

// `svc config get|set|unset`: edit svc.json directly (no gateway needed), validated with the same schema
// the gateway uses, so a bad value is refused before it is written. Secrets are never printed: neither the
// secret keys nor credentials and tokens inside URLs (svc.json itself keeps them).

/** Keys holding secrets: never printed (the gateway's credentials, each bridge account's password, the model API key). */
const isSecretKey = (key: string) =>
  /^(gateway\.auth\.(token|password)|channels\.msgbridge(\.accounts\.[^.]+)?\.password|agent\.apiKey)$/.test(key)

const redact = (key: string, value: unknown): unknown => {
  if (isSecretKey(key) && value !== undefined) return "(set; not shown)"
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, redact(key === "" ? k : `${key}.${k}`, v)])
    )
  }
  return value
}

const failWith = (message: string) => new CliFailure({ message })

const edit = (key: string, value: unknown) =>
  Effect.flatMap(locateConfigFile, (file) => Effect.as(editConfigFile(file, (raw) => setPath(raw, key, value)), file))

/** The gateway reads svc.json when it starts: a running one is named, so the change is not taken for applied. */
const restartHint = Effect.map(locateStatePaths, (paths) => {
  const pid = runningGatewayPid(paths.stateDir)
  return pid !== undefined ? `; the running gateway (pid ${pid}) uses it once restarted` : ""
})

const keyArg = Args.text({ name: "key" }).pipe(Args.withDescription("a dotted key path, e.g. browser.defaultProfile"))

const get = Command.make("get", { key: keyArg.pipe(Args.optional) }, ({ key }) =>
  Effect.gen(function*() {
    const file = yield* locateConfigFile
    const raw = yield* Effect.try({
      try: () => parseRaw(readConfigText(file)),
      catch: (e) => failWith(`cannot read ${file}: ${(e as Error).message}`)
    })
    const k = Option.getOrElse(key, () => "")
    const value = k === "" ? raw : getPath(raw, k)
    if (value === undefined) return yield* failWith(`${k} is not set in ${file}`)
    yield* Console.log(redactSecrets(JSON.stringify(redact(k, value), null, 2)))
  })).pipe(Command.withDescription("print svc.json, or one key of it (secrets are not shown)"))

const set = Command.make(
  "set",
  {
    key: keyArg,
    value: Args.text({ name: "value" }).pipe(Args.withDescription("JSON (true, 18800, \"x\") or a plain string")),
    string: Options.boolean("string").pipe(Options.withDescription("take the value as a string, never as JSON"))
  },
  ({ key, string, value }) =>
    Effect.gen(function*() {
      let parsed: unknown = value
      if (!string) {
        try {
          parsed = JSON.parse(value)
        } catch {
          parsed = value
        }
      }
      const file = yield* edit(key, parsed)
      yield* Console.log(`set ${key} in ${file}${isSecretKey(key) ? "" : ` to ${redactSecrets(JSON.stringify(parsed))}`}${yield* restartHint}`)
    })
).pipe(Command.withDescription("set one key of svc.json (validated before it is written)"))

const unset = Command.make("unset", { key: keyArg }, ({ key }) =>
  Effect.gen(function*() {
    const file = yield* edit(key, undefined)
    yield* Console.log(`removed ${key} from ${file}${yield* restartHint}`)
  })).pipe(Command.withDescription("remove one key from svc.json"))

export const configCommand = Command.make("config").pipe(
  Command.withDescription("read and edit svc.json (restart the gateway to apply changes)"),
  Command.withSubcommands([get, set, unset])
)
