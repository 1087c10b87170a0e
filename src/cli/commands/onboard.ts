import { Command, Options, Prompt } from "@effect/cli"
import { Terminal } from "@effect/platform"
import { Config, Console, Context, Effect, Either, Option, Redacted } from "effect"
import * as os from "node:os"
import { getPath, parseRaw, type RawConfig, readConfigText, setPath } from "../../config/file.js"
import { parseConfigText } from "../../config/parse.js"
import { parsePortEnv, resolveStateDir } from "../../config/locate.js"
import { makeStatePaths } from "../../config/StatePaths.js"
import { DEFAULT_GATEWAY_PORT, type SvcConfig } from "../../config/SvcConfig.js"
import { isLoopbackHostname } from "../../platform/loopback.js"
import { DEFAULT_WEBHOOK_PATH } from "../../msgbridge/channel/Accounts.js"
import { makeBridgeClient } from "../../msgbridge/bridge/BridgeClient.js"
import { normaliseServerUrl } from "../../msgbridge/bridge/url.js"
import { CliFailure, editConfigFile } from "./shared.js"

// `svc onboard`: set up the messaging bridge channel (channels.msgbridge) by questions, or by flags with
// --non-interactive, then print the webhook URL to register on the bridge server. Re-running it edits:
// the current values are the defaults and every other key of svc.json is kept. Each answer is checked as
// the config schema checks it, and the whole file is validated again before it is written.

export type DmPolicy = "pairing" | "allowlist" | "open" | "disabled"
const DM_POLICIES: ReadonlyArray<DmPolicy> = ["pairing", "allowlist", "open", "disabled"]

/** What onboarding writes under channels.msgbridge (besides enabled: true). */
export interface Answers {
  readonly serverUrl: string
  readonly password: string
  readonly webhookPath: string
  readonly dmPolicy: DmPolicy
  readonly allowFrom: ReadonlyArray<string>
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

/** The flags as given; each one answers its question. */
interface Flags {
  readonly serverUrl: Option.Option<string>
  readonly password: Option.Option<string>
  readonly webhookPath: Option.Option<string>
  readonly dmPolicy: Option.Option<DmPolicy>
  readonly allowFrom: Option.Option<string>
}

interface Given {
  readonly serverUrl: Option.Option<string>
  readonly password: Option.Option<string>
  readonly webhookPath: Option.Option<string>
  readonly dmPolicy: Option.Option<DmPolicy>
  readonly allowFrom: Option.Option<ReadonlyArray<string>>
}

/** The flags, each checked: the first problem as `--flag: problem`. */
const checkFlags = (flags: Flags): Either.Either<Given, string> => {
  const one = (flag: string, value: Option.Option<string>, check: (s: string) => Either.Either<string, string>) =>
    Option.match(value, {
      onNone: () => Either.right(Option.none<string>()),
      onSome: (v) => Either.mapBoth(check(v), { onLeft: (p) => `--${flag}: ${p}`, onRight: Option.some })
    })
  return Either.all({
    serverUrl: one("server-url", flags.serverUrl, checkServerUrl),
    password: one("password", flags.password, checkPassword),
    webhookPath: one("webhook-path", flags.webhookPath, checkWebhookPath),
    dmPolicy: Either.right(flags.dmPolicy),
    allowFrom: Either.right(Option.map(flags.allowFrom, parseAllowFrom))
  })
}

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

/** --non-interactive: flags, else the current values, else the defaults; a missing answer is one line. */
const resolveWithoutQuestions = (given: Given, current: Partial<Answers>, file: string) =>
  Effect.gen(function*() {
    const required = (flag: string, key: "serverUrl" | "password", value: Option.Option<string>) =>
      Option.match(Option.orElse(value, () => Option.fromNullable(current[key])), {
        onSome: Effect.succeed,
        onNone: () =>
          Effect.fail(
            new CliFailure({
              message: `--non-interactive needs --${flag} (channels.msgbridge.${key} is not set in ${file})`
            })
          )
      })
    const serverUrl = yield* required("server-url", "serverUrl", given.serverUrl)
    const password = yield* required("password", "password", given.password)
    const dmPolicy = Option.getOrElse(given.dmPolicy, () => current.dmPolicy ?? "pairing")
    const allowFrom = Option.getOrElse(given.allowFrom, () => current.allowFrom ?? [])
    const problem = checkAllowFrom(dmPolicy, allowFrom)
    if (problem !== undefined) return yield* new CliFailure({ message: `${problem}: pass --allow-from <handles, comma-separated>` })
    return {
      serverUrl,
      password,
      webhookPath: Option.getOrElse(given.webhookPath, () => current.webhookPath ?? DEFAULT_WEBHOOK_PATH),
      dmPolicy,
      allowFrom
    } satisfies Answers
  })

const validator = (check: (s: string) => Either.Either<string, string>) => (s: string) =>
  Either.match(check(s), { onLeft: Effect.fail, onRight: Effect.succeed })

const POLICY_HELP: Record<DmPolicy, string> = {
  pairing: "strangers get a pairing code; you approve them with `svc pairing approve` (recommended)",
  allowlist: "only the senders in the allow list",
  open: "anyone who messages the bridge account",
  disabled: "ignore direct messages"
}

/** The questions the flags left open, as one prompt (one terminal session, one Ctrl-C). */
export const questions = (
  given: Given,
  current: Partial<Answers>,
  askCheck: boolean
): Prompt.Prompt<{ readonly answers: Answers; readonly check: boolean }> => {
  const orAsk = <A>(value: Option.Option<A>, ask: () => Prompt.Prompt<A>): Prompt.Prompt<A> =>
    Option.match(value, { onSome: Prompt.succeed, onNone: ask })
  const serverUrl = orAsk(given.serverUrl, () =>
    Prompt.text({
      message: "Bridge server URL (the Mac running the bridge server, e.g. http://mac.local:1234)",
      ...(current.serverUrl !== undefined ? { default: current.serverUrl } : {}),
      validate: validator(checkServerUrl)
    }))
  const password = orAsk(given.password, () =>
    Prompt.password({
      message: `Bridge server password${current.password !== undefined ? " (Enter keeps the current one)" : ""}`,
      ...(current.password !== undefined ? { default: current.password } : {}),
      validate: validator(checkPassword)
    }).pipe(Prompt.map(Redacted.value)))
  const webhookPath = orAsk(given.webhookPath, () =>
    Prompt.text({
      message: "Webhook path on the gateway port",
      default: current.webhookPath ?? DEFAULT_WEBHOOK_PATH,
      validate: validator(checkWebhookPath)
    }))
  const dmPolicy = orAsk(given.dmPolicy, () => {
    const initial = current.dmPolicy ?? "pairing"
    return Prompt.select({
      message: "Who may message the agent directly?",
      choices: DM_POLICIES.map((p) => ({ title: p, value: p, description: POLICY_HELP[p], selected: p === initial }))
    })
  })
  const allowFrom = (policy: DmPolicy) =>
    orAsk(given.allowFrom, () => {
      const kept = current.allowFrom !== undefined && current.allowFrom.length > 0
        ? `; Enter keeps ${current.allowFrom.join(", ")}; - clears it`
        : ""
      return Prompt.list({
        message: `${policy === "allowlist" ? "Allowed senders (at least one)" : "Senders allowed without pairing (optional)"}: ` +
          `E.164 numbers (+15551230001), e-mails, chat_guid:..., comma-separated${kept}`,
        ...(current.allowFrom !== undefined ? { default: current.allowFrom.join(", ") } : {}),
        validate: (s) => {
          const problem = checkAllowFrom(policy, parseAllowFrom(s))
          return problem === undefined ? Effect.succeed(s) : Effect.fail(problem)
        }
      }).pipe(Prompt.map((entries) => parseAllowFrom(entries.join(","))))
    })
  const check = askCheck
    ? Prompt.confirm({ message: "Check the bridge server now (GET /api/v1/ping)?", initial: true })
    : Prompt.succeed(false)
  return Prompt.all([serverUrl, password, webhookPath, dmPolicy]).pipe(
    Prompt.flatMap(([serverUrl, password, webhookPath, dmPolicy]) =>
      Prompt.all([allowFrom(dmPolicy), check]).pipe(
        Prompt.map(([allowFrom, check]) => ({
          answers: { serverUrl, password, webhookPath, dmPolicy, allowFrom },
          check
        }))
      )
    )
  )
}

// ---------------------------------------------------------------------------------------------- output

/** Whether stdin is a terminal a person types into; tests that feed a fake Terminal say yes. */
export class PromptInput extends Context.Reference<PromptInput>()("svc/cli/PromptInput", {
  // A function, read at each run: the default is memoised and the CLI starts from a heap snapshot.
  defaultValue: () => ({ isTerminal: (): boolean => Boolean(process.stdin.isTTY) })
}) {}

const WILDCARD_BINDS = new Set(["0.0.0.0", "::", "[::]", "*"])

/** An address of this machine that another one can reach (first non-internal IPv4), for wildcard binds. */
const lanAddress = (): string => {
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === "IPv4" && !a.internal) return a.address
  }
  return os.hostname()
}

export interface WebhookTarget {
  readonly url: string
  /** One line for the user when the URL is not reachable as it is, or needs a choice. */
  readonly note: string | undefined
}

/** The URL the bridge server posts to: gateway bind address and port, webhook path, password in the query. */
export const webhookTarget = (options: {
  readonly bind: string
  readonly port: number
  readonly webhookPath: string
  readonly password: string
  readonly lanAddress: () => string
}): WebhookTarget => {
  const wildcard = WILDCARD_BINDS.has(options.bind)
  const host = wildcard ? options.lanAddress() : options.bind
  const hostPart = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host
  const url = `http://${hostPart}:${options.port}${options.webhookPath}?password=${encodeURIComponent(options.password)}`
  const note = isLoopbackHostname(host.toLowerCase())
    ? `gateway.bind is ${options.bind} (loopback): only this machine can reach that URL. Unless the bridge server ` +
      `runs on this machine, the bridge Mac must reach this one: set gateway.bind to this machine's LAN address ` +
      `(svc config set gateway.bind <address>) or put a reverse proxy or tunnel in front of port ${options.port}; ` +
      "a proxy must pass the ?password= query on to the gateway unchanged."
    : wildcard
    ? `gateway.bind is ${options.bind} (every interface); ${host} is one of this machine's addresses: use one the bridge Mac can reach.`
    : undefined
  return { url, note }
}

const nextSteps = (dmPolicy: DmPolicy): ReadonlyArray<string> => [
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

// ---------------------------------------------------------------------------------------------- the command

const envVar = (name: string) =>
  Config.option(Config.string(name)).pipe(Effect.map(Option.getOrUndefined), Effect.orElseSucceed(() => undefined))

const readRaw = (file: string) =>
  Effect.try({
    try: () => parseRaw(readConfigText(file)),
    catch: (e) => new CliFailure({ message: `cannot read ${file}: ${(e as Error).message}` })
  })

/** Write the answers into channels.msgbridge (as `svc config set` does): every other key is kept. */
const save = (file: string, answers: Answers) =>
  editConfigFile(file, (raw) => {
    const values: Record<string, unknown> = { enabled: true, ...answers, allowFrom: [...answers.allowFrom] }
    for (const [key, value] of Object.entries(values)) setPath(raw, `channels.msgbridge.${key}`, value)
  })

const gatewayPort = (config: SvcConfig) =>
  Effect.gen(function*() {
    const env = parsePortEnv(yield* envVar("SVC_GATEWAY_PORT"))
    if (typeof env === "string") return yield* new CliFailure({ message: env })
    return env ?? config.gateway?.port ?? DEFAULT_GATEWAY_PORT
  })

/** GET <serverUrl>/api/v1/ping with the password: undefined when it answered, else the one line why not. */
const pingBridge = (answers: Answers) =>
  makeBridgeClient({ serverUrl: answers.serverUrl, password: answers.password, timeoutMs: 5_000 }).pipe(
    Effect.flatMap((client) => client.ping),
    Effect.as(undefined),
    Effect.catchAll((e) => Effect.succeed(e.message))
  )

export const onboardCommand = Command.make(
  "onboard",
  {
    serverUrl: Options.text("server-url").pipe(
      Options.withDescription("the bridge server's URL, e.g. http://mac.local:1234"),
      Options.optional
    ),
    password: Options.text("password").pipe(
      Options.withDescription("the bridge server's password (a flag shows it in the process list; the prompt does not)"),
      Options.optional
    ),
    webhookPath: Options.text("webhook-path").pipe(
      Options.withDescription(`the webhook's path on the gateway port (default ${DEFAULT_WEBHOOK_PATH})`),
      Options.optional
    ),
    dmPolicy: Options.choice("dm-policy", DM_POLICIES).pipe(
      Options.withDescription("who may message the agent directly (default pairing)"),
      Options.optional
    ),
    allowFrom: Options.text("allow-from").pipe(
      Options.withDescription("senders allowed without pairing, comma-separated (E.164 numbers, e-mails, chat_guid:...)"),
      Options.optional
    ),
    nonInteractive: Options.boolean("non-interactive").pipe(
      Options.withDescription("ask nothing: flags, else the current config, else the defaults")
    ),
    check: Options.boolean("check").pipe(
      Options.withDescription("after saving, check that the bridge server answers (GET /api/v1/ping)")
    )
  },
  (flags) =>
    Effect.gen(function*() {
      const file = makeStatePaths(resolveStateDir({ SVC_STATE_DIR: yield* envVar("SVC_STATE_DIR") })).configFile
      const given = yield* Either.match(checkFlags(flags), {
        onLeft: (message) => Effect.fail(new CliFailure({ message })),
        onRight: Effect.succeed
      })
      const current = currentAnswers(yield* readRaw(file))

      let answers: Answers
      let check = flags.check
      if (flags.nonInteractive) {
        answers = yield* resolveWithoutQuestions(given, current, file)
      } else {
        const terminal = yield* Terminal.Terminal
        const input = yield* PromptInput
        if (!(yield* terminal.isTTY) || !input.isTerminal()) {
          return yield* new CliFailure({
            message: "onboarding asks its questions on a terminal, and this is not one: pass --non-interactive " +
              "with --server-url and --password (and --webhook-path, --dm-policy, --allow-from as needed)"
          })
        }
        const result = yield* Prompt.run(questions(given, current, !flags.check)).pipe(
          Effect.catchTag("QuitException", () => new CliFailure({ message: "onboarding cancelled; nothing was written" }))
        )
        answers = result.answers
        check = flags.check || result.check
        // --allow-from answers its question without it, so an allowlist chosen in a prompt is checked here.
        const problem = checkAllowFrom(answers.dmPolicy, answers.allowFrom)
        if (problem !== undefined) return yield* new CliFailure({ message: `${problem}: pass --allow-from <handles, comma-separated>` })
      }

      const config = yield* save(file, answers)
      const port = yield* gatewayPort(config)
      const target = webhookTarget({
        bind: config.gateway?.bind ?? "127.0.0.1",
        port,
        webhookPath: answers.webhookPath,
        password: answers.password,
        lanAddress
      })
      yield* Console.log(
        `saved channels.msgbridge in ${file}: enabled, ${answers.serverUrl}, webhook ${answers.webhookPath}, ` +
          `dmPolicy ${answers.dmPolicy}, ${answers.allowFrom.length} allowed sender(s)`
      )
      yield* Console.log("webhook URL to register on the bridge server (it holds the password: keep it private):")
      yield* Console.log(`  ${target.url}`)
      if (target.note !== undefined) yield* Console.log(`note: ${target.note}`)
      const problem = check ? yield* pingBridge(answers) : undefined
      if (check && problem === undefined) yield* Console.log(`bridge server check: OK (${answers.serverUrl} answered /api/v1/ping)`)
      yield* Console.log(nextSteps(answers.dmPolicy).join("\n"))
      if (problem !== undefined) {
        return yield* new CliFailure({ message: `bridge server check failed (the config is saved): ${problem}` })
      }
    })
).pipe(
  Command.withDescription(
    "set up the messaging bridge channel (channels.msgbridge) and print the webhook URL to register on the bridge server"
  )
)
