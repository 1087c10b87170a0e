import { Data, Effect, Either } from "effect"
import { parseRaw, type RawConfig, readConfigText } from "./file.js"
import { describeConfigError, parseConfigText } from "./parse.js"
import type { SvcConfig } from "./SvcConfig.js"
import { writeFileAtomicSync } from "../platform/atomicWrite.js"

// The one writer of svc.json: the gateway's write-backs (generated secrets, created profiles), `svc config
// set|unset` and `svc onboard`. An edit is a read-modify-write of the raw JSON, so keys this version does
// not know are kept; the whole result is validated with the schema before anything is written; the write
// lands atomically, owner-only (0600).

/** Why an edit was not saved, by stage; each caller words it its own way. */
export class ConfigEditError extends Data.TaggedError("ConfigEditError")<{
  /** read: the file could not be read or is not a JSON object (or the edit threw); invalid: the result is not a valid config; write: it could not be written. */
  readonly stage: "read" | "invalid" | "write"
  readonly file: string
  /** What went wrong (for `invalid`, the whole description of the invalid config). */
  readonly detail: string
}> {}

/** Apply `edit` to the raw svc.json in `file`, validate the result and write it; succeeds with the new config. */
export const editConfig = (file: string, edit: (raw: RawConfig) => void): Effect.Effect<SvcConfig, ConfigEditError> =>
  Effect.suspend(() => {
    const failure = (stage: ConfigEditError["stage"], detail: string) =>
      Effect.fail(new ConfigEditError({ stage, file, detail }))
    let text: string
    try {
      const raw = parseRaw(readConfigText(file))
      edit(raw)
      text = JSON.stringify(raw, null, 2) + "\n"
    } catch (e) {
      return failure("read", (e as Error).message)
    }
    const checked = parseConfigText(text, file)
    if (Either.isLeft(checked)) return failure("invalid", describeConfigError(checked.left))
    try {
      writeFileAtomicSync(file, text)
    } catch (e) {
      return failure("write", (e as Error).message)
    }
    return Effect.succeed(checked.right)
  })
