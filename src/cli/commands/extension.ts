import { Command, Options } from "@effect/cli"
import { Console, Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { parseRaw, readConfigText } from "../../config/file.js"
import { locateConfigFile } from "../../config/locate.js"
import { relayToken } from "../../browser/relay/token.js"
import { CliFailure } from "./shared.js"

// `svc browser extension path|token`: what the user needs to set up the relay extension, without a gateway:
// the unpacked extension's directory in this installed package, and the relay token derived from the
// gateway secret in svc.json (the same derivation the relay checks).

const json = Options.boolean("json").pipe(Options.withDescription("print JSON"))

/** The package's `extension/` directory: next to dist/ and bin/, whichever of them this process started from. */
const extensionDir = (): string | undefined => {
  const script = process.argv[1]
  if (script === undefined) return undefined
  for (const root of [path.resolve(path.dirname(script), ".."), path.resolve(path.dirname(script), "../..")]) {
    const dir = path.join(root, "extension")
    if (fs.existsSync(path.join(dir, "manifest.json"))) return fs.realpathSync(dir)
  }
  return undefined
}

const pathCommand = Command.make("path", { json }, (args) =>
  Effect.gen(function*() {
    const dir = extensionDir()
    if (dir === undefined) {
      return yield* new CliFailure({ message: "the extension's directory is missing from this svc package (expected extension/ beside dist/)" })
    }
    yield* Console.log(args.json ? JSON.stringify({ path: dir }, null, 2) : dir)
  })
).pipe(Command.withDescription("print the directory of the unpacked relay extension (load it at chrome://extensions)"))

const tokenCommand = Command.make("token", { json }, (args) =>
  Effect.gen(function*() {
    const file = yield* locateConfigFile
    const raw = yield* Effect.try({
      try: () => parseRaw(readConfigText(file)),
      catch: (e) => new CliFailure({ message: `cannot read ${file}: ${(e as Error).message}` })
    })
    const auth = (raw.gateway as { auth?: { token?: unknown; password?: unknown } } | undefined)?.auth
    const secret = typeof auth?.token === "string" ? auth.token : typeof auth?.password === "string" ? auth.password : undefined
    if (secret === undefined) {
      return yield* new CliFailure({
        message: `no gateway token in ${file} yet: start the gateway once (\`svc gateway run\`), then ask again`
      })
    }
    const token = relayToken(secret)
    yield* Console.log(args.json ? JSON.stringify({ token }, null, 2) : token)
  })
).pipe(Command.withDescription("print the relay token to paste in the extension's settings (derived from the gateway token)"))

export const extensionCommand = Command.make("extension").pipe(
  Command.withDescription("the browser extension behind the relay profile: where it is, and its token"),
  Command.withSubcommands([pathCommand, tokenCommand])
)
