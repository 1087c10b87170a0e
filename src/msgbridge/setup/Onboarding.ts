import { Data, Effect, Either, Option } from "effect"
import { type ConfigEditError, editConfig } from "../../config/edit.js"
import { getPath, parseRaw, type RawConfig, readConfigText, setPath } from "../../config/file.js"
import { parseConfigText } from "../../config/parse.js"
import { DmPolicy as DmPolicySchema, type SvcConfig } from "../../config/SvcConfig.js"
import { makeBridgeClient } from "../bridge/BridgeClient.js"
import { normaliseServerUrl } from "../bridge/url.js"
import { DEFAULT_WEBHOOK_PATH } from "../channel/Accounts.js"

// Setting up the msgbridge channel (channels.msgbridge): the answers it needs, each checked as the config
// schema checks it; the current answers, which are the defaults of a re-run; settling them without
// questions; writing them through the one config writer (every other key of svc.json kept, the whole file
// validated again); what to do next; and the bridge ping. Asking the questions is the CLI's (`svc onboard`).

export type DmPolicy = typeof DmPolicySchema.Type
export const DM_POLICIES: ReadonlyArray<DmPolicy> = DmPolicySchema.literals

/** What onboarding writes under channels.msgbridge (besides enabled: true). */
export interface Answers {
  readonly serverUrl: string
  readonly password: string
  readonly webhookPath: string
  readonly dmPolicy: DmPolicy
  readonly allowFrom: ReadonlyArray<string>
}

/** The answers given up front (already checked), each one settling its question. */
export interface Given {
  readonly serverUrl: Option.Option<string>
  readonly password: Option.Option<string>
  readonly webhookPath: Option.Option<string>
  readonly dmPolicy: Option.Option<DmPolicy>
  readonly allowFrom: Option.Option<ReadonlyArray<string>>
}

// ---------------------------------------------------------------------------------------------- checks

/** The config schema's verdict on one channels.msgbridge key, without the key path. */
const schemaProblem = (key: keyof Answers, value: unknown): string | undefined => {
  const parsed = parseConfigText(JSON.stringify({ channels: { msgbridge: { [key]: value } } }), "svc.json")
  return Either.isLeft(parsed)
    ? parsed.left.problems.map((p) => p.replace(/^channels\.msgbridge\.[^:]*: /, "")).join("; ")
    : undefined
}

const checked = (value: string, problem: string | undefined) =>
  problem === undefined ? Either.right(value) : Either.left(problem)

/**
 * The bridge server's URL, normalised as the bridge client uses it (http:// added, no trailing slash).
 * Problems never echo the input: a pasted URL may carry the password.
 */
export const checkServerUrl = (input: string): Either.Either<string, string> => {
  if (input.trim() === "") return Either.left("the bridge server URL is required, e.g. http://mac.local:1234")
  const url = normaliseServerUrl(input)
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return Either.left("not a URL; expected something like http://mac.local:1234")
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return Either.left("the bridge server URL must start with http:// or https://")
  }
  if (parsed.search !== "" || parsed.hash !== "" || parsed.username !== "" || parsed.password !== "") {
    return Either.left("the bridge server URL takes no user, ?query or #fragment (the password is asked separately)")
  }
  return checked(url, schemaProblem("serverUrl", url))
}

export const checkPassword = (input: string): Either.Either<string, string> =>
  input === ""
    ? Either.left("the bridge server password is required (the one set in the bridge server's settings)")
    : checked(input, schemaProblem("password", input))

export const checkWebhookPath = (input: string): Either.Either<string, string> => {
  const path = input.trim()
  return checked(path, schemaProblem("webhookPath", path))
}

/** A comma-separated allow list; `-` alone clears it. */
export const parseAllowFrom = (input: string): ReadonlyArray<string> =>
  input.trim() === "-" ? [] : [...new Set(input.split(",").map((s) => s.trim()).filter((s) => s !== ""))]

export const checkAllowFrom = (dmPolicy: DmPolicy, allowFrom: ReadonlyArray<string>): string | undefined =>
  dmPolicy === "allowlist" && allowFrom.length === 0
    ? "dmPolicy allowlist needs at least one sender in the allow list, or nobody reaches the agent"
    : undefined

// ---------------------------------------------------------------------------------------------- the answers

/** svc.json could not be read, or is not a JSON object. */
export class AnswersReadError extends Data.TaggedError("AnswersReadError")<{
  readonly file: string
  readonly detail: string
}> {}

/** The current channels.msgbridge values that still pass their checks: the defaults of a re-run. */
const currentAnswers = (raw: RawConfig): Partial<Answers> => {
  const at = (key: string) => getPath(raw, `channels.msgbridge.${key}`)
  const str = (key: string, check: (s: string) => Either.Either<string, string>) => {
    const v = at(key)
    return typeof v === "string" ? Either.getRight(check(v)).pipe(Option.getOrUndefined) : undefined
  }
  const dmPolicy = at("dmPolicy")
  const allowFrom = at("allowFrom")
  const current = {
    serverUrl: str("serverUrl", checkServerUrl),
    password: str("password", checkPassword),
    webhookPath: str("webhookPath", checkWebhookPath),
    dmPolicy: DM_POLICIES.find((p) => p === dmPolicy),
    allowFrom: Array.isArray(allowFrom) && allowFrom.every((s) => typeof s === "string") ? allowFrom : undefined
  }
  return Object.fromEntries(Object.entries(current).filter(([, v]) => v !== undefined))
}

/** The current answers in the raw svc.json at `file` (a missing file has none). */
export const readCurrentAnswers = (file: string): Effect.Effect<Partial<Answers>, AnswersReadError> =>
  Effect.try({
    try: () => parseRaw(readConfigText(file)),
    catch: (e) => new AnswersReadError({ file, detail: (e as Error).message })
  }).pipe(Effect.map(currentAnswers))

/** Why the answers cannot be settled without questions. */
export type Unresolved =
  /** Neither given nor in the current config. */
  | { readonly _tag: "Missing"; readonly key: "serverUrl" | "password" }
  /** The allow list does not fit the policy (checkAllowFrom's problem). */
  | { readonly _tag: "AllowFrom"; readonly problem: string }

/** Without questions: what was given, else the current value, else the default. */
export const resolveWithoutQuestions = (given: Given, current: Partial<Answers>): Either.Either<Answers, Unresolved> => {
  const required = (key: "serverUrl" | "password", value: Option.Option<string>) =>
    Option.match(Option.orElse(value, () => Option.fromNullable(current[key])), {
      onSome: Either.right,
      onNone: () => Either.left<Unresolved>({ _tag: "Missing", key })
    })
  return Either.gen(function*() {
    const serverUrl = yield* required("serverUrl", given.serverUrl)
    const password = yield* required("password", given.password)
    const dmPolicy = Option.getOrElse(given.dmPolicy, () => current.dmPolicy ?? "pairing")
    const allowFrom = Option.getOrElse(given.allowFrom, () => current.allowFrom ?? [])
    const problem = checkAllowFrom(dmPolicy, allowFrom)
    if (problem !== undefined) return yield* Either.left<Unresolved>({ _tag: "AllowFrom", problem })
    return {
      serverUrl,
      password,
      webhookPath: Option.getOrElse(given.webhookPath, () => current.webhookPath ?? DEFAULT_WEBHOOK_PATH),
      dmPolicy,
      allowFrom
    } satisfies Answers
  })
}

/** Write the answers into channels.msgbridge of `file` (as `svc config set` does): every other key is kept. */
export const saveAnswers = (file: string, answers: Answers): Effect.Effect<SvcConfig, ConfigEditError> =>
  editConfig(file, (raw) => {
    const values: Record<string, unknown> = { enabled: true, ...answers, allowFrom: [...answers.allowFrom] }
    for (const [key, value] of Object.entries(values)) setPath(raw, `channels.msgbridge.${key}`, value)
  })

// ---------------------------------------------------------------------------------------------- after saving

export const nextSteps = (dmPolicy: DmPolicy): ReadonlyArray<string> => [
  "next steps:",
  "  1. register the webhook URL above on the bridge server (its webhook settings, for new messages)",
  "  2. start the gateway, or restart it if it is running: svc gateway run",
  dmPolicy === "pairing"
    ? "  3. someone new who messages the bridge gets a pairing code: see it with `svc pairing list msgbridge`, " +
      "approve it with `svc pairing approve msgbridge <CODE>`"
    : dmPolicy === "allowlist"
    ? "  3. only the senders in channels.msgbridge.allowFrom reach the agent (edit it by running `svc onboard` again)"
    : dmPolicy === "open"
    ? "  3. anyone who messages the bridge account reaches the agent"
    : "  3. direct messages are ignored (dmPolicy disabled)"
]

/** GET <serverUrl>/api/v1/ping with the password: undefined when it answered, else the one line why not. */
export const pingBridge = (answers: Answers) =>
  makeBridgeClient({ serverUrl: answers.serverUrl, password: answers.password, timeoutMs: 5_000 }).pipe(
    Effect.flatMap((client) => client.ping),
    Effect.as(undefined),
    Effect.catchAll((e) => Effect.succeed(e.message))
  )
