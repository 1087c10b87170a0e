import { Command, Options } from "@effect/cli"
import { OpenApi } from "@effect/platform"
import { Console, Effect, Option } from "effect"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { ControlApi } from "../../api/ControlApi.js"
import { CliFailure } from "./shared.js"

// `svc api spec`: the control API's OpenAPI document, generated here from the same definition the gateway
// serves at /openapi.json (so it needs no running gateway, and is the same document).

/** Why a file could not be written, in words about the file the user named (not the temp file). */
const whyNot = (e: NodeJS.ErrnoException, file: string) =>
  e.code === "ENOENT" || e.code === "ENOTDIR"
    ? `there is no directory ${path.dirname(file)}`
    : e.code === "EACCES" || e.code === "EPERM" || e.code === "EROFS"
    ? `not allowed to write in ${path.dirname(file)}`
    : e.code === "EISDIR"
    ? "it is a directory"
    : e.message

/** Write `text` to `file` whole or not at all: a temp file beside it, then a rename. */
const writeWhole = (file: string, text: string) =>
  Effect.try({
    try: () => {
      const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString("hex")}.tmp`
      try {
        fs.writeFileSync(tmp, text)
        fs.renameSync(tmp, file)
      } finally {
        fs.rmSync(tmp, { force: true })
      }
    },
    catch: (e) => new CliFailure({ message: `cannot write ${file}: ${whyNot(e as NodeJS.ErrnoException, file)}` })
  })

const spec = Command.make(
  "spec",
  {
    out: Options.text("out").pipe(
      Options.withPseudoName("file"),
      Options.withDescription("write the document to this file (replaced whole) instead of printing it"),
      Options.optional
    )
  },
  ({ out }) =>
    Effect.gen(function*() {
      const text = JSON.stringify(OpenApi.fromApi(ControlApi), null, 2)
      if (Option.isNone(out)) return yield* Console.log(text)
      const file = path.resolve(out.value)
      yield* writeWhole(file, `${text}\n`)
      yield* Console.log(`wrote the OpenAPI document to ${file}`)
    })
).pipe(Command.withDescription("print the control API's OpenAPI 3.1 document (the gateway serves it at GET /openapi.json)"))

export const apiCommand = Command.make("api").pipe(
  Command.withDescription("the control API itself"),
  Command.withSubcommands([spec])
)
