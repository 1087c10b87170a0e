import { Command, Options } from "@effect/cli"
import { Config, Console, Effect, Option, Schedule } from "effect"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import {
  checkKeepaliveInterval,
  DEFAULT_KEEPALIVE_INTERVAL_SECONDS,
  type KeepaliveFile,
  type KeepalivePlan,
  launchctlCommands,
  loadCommandLine,
  planKeepalive,
  shellQuote
} from "../../msgbridge/setup/Keepalive.js"
import { CliFailure } from "./shared.js"

// `svc msgbridge keepalive install [--print] [--interval <s>]`: the keep-alive agent of the bridge Mac
// (src/msgbridge/setup/Keepalive.ts). Meant to be run on that Mac, in the user session that runs Messages; on
// any other machine it writes the files under HOME and says where they belong.

/** HOME (tests point it at a temp dir), else the account's home directory. */
const homeDir = Config.option(Config.string("HOME")).pipe(
  Effect.orElseSucceed(() => Option.none<string>()),
  Effect.map(Option.filter((h) => h.trim() !== "")),
  Effect.map(Option.getOrElse(() => os.homedir()))
)

const mode = (m: number) => `0${m.toString(8)}`

/** Replace `file` atomically (temp file in the same directory, then rename) with exactly `mode`. */
const writeAtomic = (file: KeepaliveFile): "written" | "unchanged" => {
  let same = false
  try {
    same = fs.readFileSync(file.path, "utf8") === file.content && (fs.statSync(file.path).mode & 0o777) === file.mode
  } catch {}
  if (same) return "unchanged"
  fs.mkdirSync(path.dirname(file.path), { recursive: true })
  const tmp = `${file.path}.${process.pid}.${crypto.randomBytes(4).toString("hex")}.tmp`
  try {
    fs.writeFileSync(tmp, file.content, { mode: file.mode })
    fs.chmodSync(tmp, file.mode) // the umask may have taken bits off
    fs.renameSync(tmp, file.path)
  } finally {
    fs.rmSync(tmp, { force: true })
  }
  return "written"
}

/** node:child_process, loaded when first used: the CLI's start-up snapshot cannot hold it (see platform/builtin.ts). */
const childProcess = (): typeof import("node:child_process") => {
  const id = "node:child_process"
  return (typeof process.getBuiltinModule === "function" ? process.getBuiltinModule(id) : require(id)) as typeof import(
    "node:child_process"
  )
}

/** One launchctl call; its stderr (or exit status) as the failure. */
const launchctl = (args: ReadonlyArray<string>) =>
  Effect.try({
    try: () => {
      const run = childProcess().spawnSync("launchctl", args, { encoding: "utf8", timeout: 15_000 })
      if (run.error !== undefined) throw run.error
      if (run.status !== 0) throw new Error((run.stderr || run.stdout).trim() || `exit ${run.status}`)
    },
    catch: (e) => e as Error
  })

/**
 * On the Mac: unload any previous copy of the agent (failing when none is loaded is expected) and load
 * this one into the GUI session. launchd can refuse a bootstrap right after a bootout while it still
 * tears the old job down, so the load is tried a second time after a second.
 */
const loadAgent = (plan: KeepalivePlan) => {
  const commands = launchctlCommands(process.getuid?.() ?? 0, plan.plist.path)
  return Effect.ignore(launchctl(commands.unload)).pipe(
    Effect.zipRight(launchctl(commands.load).pipe(Effect.retry({ times: 1, schedule: Schedule.spaced("1 second") }))),
    Effect.mapError((e) =>
      new CliFailure({
        message: `the files are written, but launchctl could not load the agent (${e.message}); ` +
          `load it by hand in the logged-in session: ${loadCommandLine(plan.plist.path)}`
      })
    )
  )
}

const print = (plan: KeepalivePlan) =>
  Console.log(
    [
      `# ${plan.script.path} (mode ${mode(plan.script.mode)})`,
      plan.script.content,
      `# ${plan.plist.path} (mode ${mode(plan.plist.mode)})`,
      plan.plist.content,
      "# load it on the Mac, in the user session that runs Messages:",
      loadCommandLine(plan.plist.path)
    ].join("\n")
  )

const install = Command.make(
  "install",
  {
    print: Options.boolean("print").pipe(Options.withDescription("show both files and their paths; write nothing")),
    interval: Options.integer("interval").pipe(
      Options.withDescription(`seconds between runs (default ${DEFAULT_KEEPALIVE_INTERVAL_SECONDS}, at least 60)`),
      Options.withDefault(DEFAULT_KEEPALIVE_INTERVAL_SECONDS)
    )
  },
  (args) =>
    Effect.gen(function*() {
      const invalid = checkKeepaliveInterval(args.interval)
      if (invalid !== undefined) return yield* new CliFailure({ message: invalid })
      const plan = planKeepalive({ home: yield* homeDir, intervalSeconds: args.interval })
      if (args.print) return yield* print(plan)

      for (const file of [plan.script, plan.plist]) {
        const outcome = yield* Effect.try({
          try: () => writeAtomic(file),
          catch: (e) => new CliFailure({ message: `cannot write ${file.path}: ${(e as Error).message}` })
        })
        yield* Console.log(`${outcome === "written" ? "wrote" : "unchanged"} ${file.path} (mode ${mode(file.mode)})`)
      }
      if (process.platform !== "darwin") {
        return yield* Console.log(
          "this machine is not a Mac, so nothing was loaded: the keep-alive belongs on the Mac that runs the bridge " +
            "server. Run `svc msgbridge keepalive install` there, as the user whose session runs Messages; it loads " +
            `the agent itself (by hand: launchctl bootstrap gui/$(id -u) ~/Library/LaunchAgents/${plan.label}.plist)`
        )
      }
      yield* loadAgent(plan)
      yield* Console.log(
        `loaded launchd agent ${plan.label}: it runs at login and every ${plan.intervalSeconds} seconds (log: ${plan.logFile})`
      )
      yield* Console.log(
        `first run: approve the Automation prompt once, from Terminal in this user session: /bin/sh ${
          shellQuote(plan.script.path)
        } (see the README, "Messaging bridge set-up")`
      )
    })
).pipe(Command.withDescription("write (and on macOS load) the launchd agent that keeps Messages awake on the bridge Mac"))

const keepalive = Command.make("keepalive").pipe(
  Command.withDescription("keep the Messages app awake on a headless or virtual bridge Mac"),
  Command.withSubcommands([install])
)

export const msgbridgeCommand = Command.make("msgbridge").pipe(
  Command.withDescription("the messaging bridge channel"),
  Command.withSubcommands([keepalive])
)
