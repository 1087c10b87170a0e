import { Either, ParseResult } from "effect"
import { decodeSvcConfig, type SvcConfig } from "./SvcConfig.js"

export class ConfigInvalid {
  readonly _tag = "ConfigInvalid"
  constructor(
    readonly file: string,
    /** One line per problem: `key.path: what was expected`. */
    readonly problems: ReadonlyArray<string>
  ) {}
}

const renderPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.length === 0 ? "(top level)" : path.map((k) => (typeof k === "number" ? `[${k}]` : String(k))).join(".").replace(/\.\[/g, "[")

const combine = (messages: ReadonlyArray<string>): string => {
  const expected = messages.map((m) => /^Expected (.*), actual (.*)$/s.exec(m))
  if (messages.length > 1 && expected.every((m) => m !== null)) {
    return `expected one of ${expected.map((m) => m![1]).join(", ")}; got ${expected[0]![2]}`
  }
  return [...new Set(messages)].join("; ")
}

/** Parse and validate the text of svc.json. An empty or missing file is an empty config. */
export const parseConfigText = (text: string, file: string): Either.Either<SvcConfig, ConfigInvalid> => {
  if (text.trim() === "") return Either.right({})
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (e) {
    return Either.left(new ConfigInvalid(file, [`not valid JSON: ${(e as Error).message}`]))
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return Either.left(new ConfigInvalid(file, ["(top level): expected a JSON object"]))
  }
  return decodeSvcConfig(raw).pipe(
    Either.mapLeft((error) => {
      // Group by key path so a union of literals reads as one line: `expected one of "a", "b"`.
      const byPath = new Map<string, Array<string>>()
      for (const i of ParseResult.ArrayFormatter.formatErrorSync(error)) {
        const key = renderPath(i.path)
        const message = i._tag === "Unexpected" ? "unknown key (remove it or check its spelling)" : i.message
        byPath.set(key, [...(byPath.get(key) ?? []), message])
      }
      return new ConfigInvalid(file, [...byPath].map(([key, messages]) => `${key}: ${combine(messages)}`))
    })
  )
}

export const describeConfigError = (e: ConfigInvalid): string =>
  `invalid config ${e.file}: ${e.problems.join("; ")}`
