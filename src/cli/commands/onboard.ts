import { Command, Options, Prompt } from "@effect/cli"
import { Terminal } from "@effect/platform"
import { Console, Context, Effect, Either, Option, Redacted } from "effect"
import { locateConfigFile, locatePorts } from "../../config/locate.js"
import { DEFAULT_WEBHOOK_PATH } from "../../msgbridge/channel/Accounts.js"
import {
  type Answers,
  checkAllowFrom,
  checkPassword,
  checkServerUrl,
  checkWebhookPath,
  DM_POLICIES,
  type DmPolicy,
  type Given,
  nextSteps,
  parseAllowFrom,
  pingBridge,
  readCurrentAnswers,
  resolveWithoutQuestions,
  saveAnswers,
  type Unresolved
} from "../../msgbridge/setup/Onboarding.js"
import { lanAddress, webhookTarget } from "../../msgbridge/setup/WebhookTarget.js"
import { describeCliError } from "../errors.js"
import { CliFailure } from "./shared.js"

// `svc onboard`: set up the messaging bridge channel (channels.msgbridge) by questions, or by flags with
// --non-interactive, then print the webhook URL to register on the bridge server. Re-running it edits:
// the current values are the defaults. The answers, their checks and the writing are
// msgbridge/setup/Onboarding.ts's; here are the flags, the questions and the printing.

// ---------------------------------------------------------------------------------------------- flags

/** The flags as given; each one answers its question. */
interface Flags {
  readonly serverUrl: Option.Option<string>
  readonly password: Option.Option<string>
  readonly webhookPath: Option.Option<string>
  readonly dmPolicy: Option.Option<DmPolicy>
  readonly allowFrom: Option.Option<string>
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

const allowFromFailure = (problem: string) =>
  new CliFailure({ message: `${problem}: pass --allow-from <handles, comma-separated>` })

const FLAG_OF: Record<"serverUrl" | "password", string> = { serverUrl: "server-url", password: "password" }

/** --non-interactive could not settle the answers: the one line that says which flag is missing. */
const unresolvedFailure = (unresolved: Unresolved, file: string) =>
  unresolved._tag === "Missing"
    ? new CliFailure({
      message: `--non-interactive needs --${FLAG_OF[unresolved.key]} (channels.msgbridge.${unresolved.key} is not set in ${file})`
    })
    : allowFromFailure(unresolved.problem)

// ---------------------------------------------------------------------------------------------- questions

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

// ---------------------------------------------------------------------------------------------- the command

/** Whether stdin is a terminal a person types into; tests that feed a fake Terminal say yes. */
export class PromptInput extends Context.Reference<PromptInput>()("svc/cli/PromptInput", {
  // A function, read at each run: the default is memoised and the CLI starts from a heap snapshot.
  defaultValue: () => ({ isTerminal: (): boolean => Boolean(process.stdin.isTTY) })
}) {}

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
      const file = yield* locateConfigFile
      const given = yield* Either.match(checkFlags(flags), {
        onLeft: (message) => Effect.fail(new CliFailure({ message })),
        onRight: Effect.succeed
      })
      const current = yield* readCurrentAnswers(file).pipe(
        Effect.mapError((e) => new CliFailure({ message: `cannot read ${e.file}: ${e.detail}` }))
      )

      let answers: Answers
      let check = flags.check
      if (flags.nonInteractive) {
        answers = yield* Either.match(resolveWithoutQuestions(given, current), {
          onLeft: (unresolved) => Effect.fail(unresolvedFailure(unresolved, file)),
          onRight: Effect.succeed
        })
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
        if (problem !== undefined) return yield* allowFromFailure(problem)
      }

      const config = yield* saveAnswers(file, answers).pipe(
        Effect.mapError((e) => new CliFailure({ message: describeCliError(e) }))
      )
      const ports = yield* locatePorts(config).pipe(Effect.mapError((e) => new CliFailure({ message: e.message })))
      const target = webhookTarget({
        bind: config.gateway?.bind ?? "127.0.0.1",
        port: ports.gateway,
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
