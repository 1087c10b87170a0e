import { Terminal } from "@effect/platform"
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { runCli, svcCommand } from "../../../src/cli/main.js"
import { commandTree, type CommandNode } from "../../../src/cli/suggest.js"
import { GatewayRunner } from "../../../src/gateway/GatewayRunner.js"
import { makeMockConsole } from "../../support/mockConsole.js"

// `--help` of every command, as @effect/cli renders it through runCli: each option and argument says what
// it is for, the type boilerplate is gone, and colour codes only reach a terminal (and never with NO_COLOR).

const terminal = (isTTY: boolean) =>
  Terminal.Terminal.of({
    columns: Effect.succeed(100),
    rows: Effect.succeed(40),
    isTTY: Effect.succeed(isTTY),
    readInput: Effect.die("no input in tests"),
    readLine: Effect.die("no input in tests"),
    display: () => Effect.void
  })

const run = (args: ReadonlyArray<string>, options: { tty?: boolean; env?: Record<string, string> } = {}) =>
  Effect.gen(function*() {
    const mock = makeMockConsole()
    const code = yield* runCli(["node", "svc", ...args]).pipe(
      Effect.withConsole(mock.console),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(options.env ?? {})))),
      // Inside the layer, so that it wins over NodeContext's terminal.
      Effect.provideService(Terminal.Terminal, terminal(options.tty ?? false)),
      Effect.provide(Layer.mergeAll(
        NodeContext.layer,
        NodeHttpClient.layer,
        Layer.succeed(GatewayRunner, { run: () => Effect.void })
      ))
    )
    return { code, out: mock.out.join("\n"), err: mock.err.join("\n") }
  })

const allPaths = (node: CommandNode, prefix: ReadonlyArray<string>): Array<ReadonlyArray<string>> =>
  node.children.flatMap((c) => [[...prefix, c.name], ...allPaths(c, [...prefix, c.name])])

/** What @effect/cli says about a type or an optional value: not a description. */
const generic = [
  /^A user-defined piece of text\.$/,
  /^A true or false value\.$/,
  /^An integer\.$/,
  /^A floating point number\.$/,
  /^One of the following: .*$/,
  /^This setting is optional\..*$/,
  /^This (option|argument) (must|may) be repeated.*$/
]

/** The entries of the ARGUMENTS and OPTIONS sections of a help text, each with its paragraphs. */
const entries = (help: string) => {
  const out: Array<{ name: string; paragraphs: Array<string> }> = []
  let section = ""
  for (const line of help.split("\n")) {
    if (/^[A-Z]+$/.test(line)) {
      section = line
      continue
    }
    if (section !== "ARGUMENTS" && section !== "OPTIONS") continue
    if (line.trim() === "") continue
    if (!line.startsWith(" ")) out.push({ name: line, paragraphs: [] })
    else out[out.length - 1]?.paragraphs.push(line.trim())
  }
  return out
}

describe("svc --help", () => {
  it.effect("every option and argument of every command has a description of its own", () =>
    Effect.gen(function*() {
      const paths = allPaths(commandTree(svcCommand), [])
      expect(paths.length).toBeGreaterThan(60)
      const missing: Array<string> = []
      for (const path of paths) {
        const { code, out } = yield* run([...path, "--help"])
        expect(code).toBe(0)
        expect(out).toContain("USAGE")
        expect(out).not.toContain("A user-defined piece of text.")
        expect(out).not.toContain("\u001b")
        for (const entry of entries(out)) {
          if (!entry.paragraphs.some((p) => !generic.some((g) => g.test(p)))) missing.push(`svc ${path.join(" ")}: ${entry.name}`)
        }
      }
      expect(missing).toEqual([])
    }), 60_000)

  it.effect("colour codes reach a terminal, unless NO_COLOR is set", () =>
    Effect.gen(function*() {
      expect((yield* run(["browser", "click", "--help"], { tty: true })).out).toContain("\u001b[")
      expect((yield* run(["browser", "click", "--help"], { tty: true, env: { NO_COLOR: "1" } })).out).not.toContain("\u001b")
      expect((yield* run(["browser", "click", "--help"], { tty: false })).out).not.toContain("\u001b")
    }))
})
