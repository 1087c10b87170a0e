import { HttpClient, HttpClientResponse } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describeIssues } from "../../../src/cli/errors.js"
import { runCli, svcCommand } from "../../../src/cli/main.js"
import { commandTree, describeUnknownCommand, editDistance, findUnknownCommand } from "../../../src/cli/suggest.js"
import { describeUsageError } from "../../../src/cli/usage.js"
import { GatewayRunner } from "../../../src/gateway/GatewayRunner.js"
import { makeMockConsole } from "../../support/mockConsole.js"

// The CLI's failure lines and `--json` errors for answers a real gateway of this version never gives (a
// 400 the shared schema did not catch first, a body of another version), and the "did you mean" logic.

/** runCli against a gateway stub that answers every request with `status` and `body`. */
const sent: Array<string> = []
const against = (status: number, body: unknown) => (...args: Array<string>) =>
  Effect.gen(function*() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-cli-errors-"))
    fs.writeFileSync(path.join(dir, "svc.json"), JSON.stringify({ gateway: { auth: { token: "t-0123456789abcdef0123" } } }))
    const stub = HttpClient.make((request) =>
      Effect.sync(() => sent.push(request.url)).pipe(Effect.as(HttpClientResponse.fromWeb(
        request,
        new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } })
      )))
    )
    const mock = makeMockConsole()
    const code = yield* runCli(["node", "svc", ...args]).pipe(
      Effect.withConsole(mock.console),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["SVC_STATE_DIR", dir]]))),
      Effect.provide(Layer.mergeAll(
        NodeContext.layer,
        Layer.succeed(HttpClient.HttpClient, stub),
        Layer.succeed(GatewayRunner, { run: () => Effect.void })
      ))
    )
    return { code, out: mock.out.join("\n"), err: mock.err.join("\n") }
  })

// What the gateway answers for GET /snapshot?limit=0 (HttpApiDecodeError, its message cut short here).
const serverDecodeError = {
  _tag: "HttpApiDecodeError",
  issues: [
    { _tag: "Refinement", path: ["limit"], message: "expected a whole number from 1 to 10000000" },
    { _tag: "Type", path: ["limit"], message: "Expected undefined, actual \"0\"" }
  ],
  message: "{ readonly profile?: ProfileName | undefined; ... }\n└─ [\"limit\"]\n   └─ int & between(1, 10000000) | undefined"
}

describe("CLI errors", () => {
  it.effect("a 400 decode error from the gateway is one short line naming the field", () =>
    Effect.gen(function*() {
      const svc = against(400, serverDecodeError)
      const plain = yield* svc("browser", "tabs")
      expect(plain.code).toBe(1)
      expect(plain.err).toBe('svc: invalid request: limit: expected a whole number from 1 to 10000000, got "0"')
      const json = yield* svc("browser", "tabs", "--json")
      expect(json.err).toBe("")
      expect(JSON.parse(json.out)).toEqual({
        error: {
          _tag: "HttpApiDecodeError",
          message: 'invalid request: limit: expected a whole number from 1 to 10000000, got "0"',
          status: 400
        }
      })
    }))

  it.effect("a request the shared schema refuses is never sent, and reads as the gateway's 400 would", () =>
    Effect.gen(function*() {
      sent.length = 0
      const r = yield* against(200, {})("browser", "snapshot", "--limit", "0", "--json")
      expect(sent).toEqual([])
      expect(r.code).toBe(1)
      expect(JSON.parse(r.out).error).toEqual({
        _tag: "HttpApiDecodeError",
        message: "invalid request: limit: expected a whole number from 1 to 10000000, got 0",
        status: 400
      })
    }))

  it.effect("an answer of another shape says so briefly, with its status", () =>
    Effect.gen(function*() {
      const ok = yield* against(200, { unexpected: true })("browser", "tabs", "--json")
      const error = JSON.parse(ok.out).error
      expect(error).toMatchObject({ _tag: "UnexpectedResponse", status: 200 })
      expect(error.message).toMatch(/^the gateway's answer \(HTTP 200\) does not match this CLI's schema; is the gateway another version/)
      expect(error.message.length).toBeLessThan(400)
      // An error status whose body is not the declared error: the status is kept.
      const teapot = yield* against(404, { what: "no" })("browser", "tabs", "--json")
      expect(JSON.parse(teapot.out).error).toMatchObject({ status: 404 })
    }))

  it("describeIssues folds union noise and names nested fields", () => {
    expect(describeIssues([{ path: ["ref"], message: "is missing" }])).toBe("ref is missing")
    expect(describeIssues([
      { path: ["format"], message: 'Expected "ai", actual "xx"' },
      { path: ["format"], message: 'Expected "aria", actual "xx"' },
      { path: ["format"], message: 'Expected undefined, actual "xx"' }
    ])).toBe('format: expected "ai" | "aria", got "xx"')
    expect(describeIssues([{ path: ["fields", 0, "value"], message: "Expected string, actual 5" }]))
      .toBe("fields[0].value: expected string, got 5")
    expect(describeIssues([])).toBe("the request does not match the control API's schema")
    // An optional array failing at an element is named there, not also at the field for its `undefined`.
    expect(describeIssues([
      { path: ["headers", 0], message: "a header is written \"Name: Value\"" },
      { path: ["headers"], message: 'Expected undefined, actual ["bad"]' }
    ])).toBe('headers[0]: a header is written "Name: Value"')
  })
})

describe("did you mean", () => {
  const tree = commandTree(svcCommand)

  it("counts a swap of two neighbours as one edit", () => {
    expect(editDistance("brwoser", "browser")).toBe(1)
    expect(editDistance("", "tab")).toBe(3)
    expect(editDistance("click", "click")).toBe(0)
  })

  it("finds the word that is not a command, past options, and stops at a leaf", () => {
    expect(findUnknownCommand(tree, ["browser", "--json", "clik", "3"])).toMatchObject({
      word: "clik",
      parent: ["svc", "browser"],
      suggestions: [["svc", "browser", "click"]]
    })
    expect(findUnknownCommand(tree, ["browser", "type", "12", "hello"])).toBeUndefined()
    expect(findUnknownCommand(tree, ["browser", "tab", "selct", "1"])?.suggestions).toEqual([["svc", "browser", "tab", "select"]])
    expect(findUnknownCommand(tree, ["cookies"])?.suggestions).toEqual([["svc", "browser", "cookies"]])
  })

  it("reads as one line, with at most three suggestions", () => {
    const u = findUnknownCommand(tree, ["browser", "ta"])!
    expect(u.suggestions.length).toBeGreaterThan(0)
    expect(u.suggestions.length).toBeLessThanOrEqual(3)
    expect(describeUnknownCommand(u)).toMatch(/^unknown command `ta` for `svc browser`; did you mean `svc browser tabs?`/)
    expect(describeUnknownCommand({ word: "x", parent: ["svc"], suggestions: [] })).toBe(
      "unknown command `x` for `svc`; `svc --help` lists its commands"
    )
  })
})

describe("usage errors", () => {
  const tree = commandTree(svcCommand)

  it("name the option whose value @effect/cli refused", () => {
    expect(describeUsageError(tree, ["browser", "snapshot", "--limit", "abc"], "InvalidValue", "'abc' is not a integer"))
      .toEqual({ tag: "InvalidValue", message: "--limit: 'abc' is not an integer" })
    expect(describeUsageError(tree, ["browser", "snapshot", "--limit=abc"], "InvalidValue", "'abc' is not a integer").message)
      .toBe("--limit: 'abc' is not an integer")
    // Among other options with values: the one whose choices the message lists.
    expect(describeUsageError(
      tree,
      ["browser", "snapshot", "--browser-profile", "svc", "--format", "xx", "--selector", "main"],
      "InvalidValue",
      "Expected one of the following cases: ai, aria, role"
    ).message).toBe("--format: 'xx' is not one of ai, aria, role")
    // Nothing to go on: the message as it was.
    expect(describeUsageError(tree, ["browser", "storage", "nope"], "InvalidValue", "Expected one of the following cases: local, session").message)
      .toBe("Expected one of the following cases: local, session")
  })

  it("an unknown option gets the command's nearest options", () => {
    expect(describeUsageError(tree, ["browser", "screenshot", "--fullpage"], "InvalidValue", "Received unknown argument: '--fullpage'"))
      .toEqual({ tag: "UnknownOption", message: "unknown option `--fullpage` for `svc browser screenshot`; did you mean `--full-page`?" })
    expect(describeUsageError(tree, ["browser", "snapshot", "--interactiv"], "InvalidValue", "Received unknown argument: '--interactiv'").message)
      .toBe("unknown option `--interactiv` for `svc browser snapshot`; did you mean `--interactive`?")
    expect(describeUsageError(tree, ["browser", "tabs", "--zzzzzz"], "InvalidValue", "Received unknown argument: '--zzzzzz'").message)
      .toBe("unknown option `--zzzzzz` for `svc browser tabs`; `svc browser tabs --help` lists its options")
    // An extra word that is not an option stays as @effect/cli says it.
    expect(describeUsageError(tree, ["config", "get", "a", "b"], "InvalidValue", "Received unknown argument: 'b'").message)
      .toBe("Received unknown argument: 'b'")
  })

  it("an option given to a command that only groups others says where it goes", () => {
    expect(describeUsageError(tree, ["browser", "--json"], "CommandMismatch", "Invalid subcommand for svc - use one of 'gateway'")).toEqual({
      tag: "MissingSubcommand",
      message: "`svc browser` needs a command before `--json` (`svc browser --help` lists them)"
    })
  })
})
