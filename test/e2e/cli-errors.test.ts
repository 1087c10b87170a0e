import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { baseEnv, type CliResult, freeGatewayPort, type Gateway, makeStateDir, runSvc, startGateway } from "../support/gateway.js"

// What an agent sees when something goes wrong, through bin/svc: with --json, one JSON object on stdout
// ({"error": {_tag, message, status}}) and a non-zero exit; without it, one line on stderr. Bad arguments,
// unknown commands and --help read well in a pipe. No browser is needed: every case fails before one.

const oneLine = (r: CliResult) => {
  expect(r.stdout).toBe("")
  const lines = r.stderr.trimEnd().split("\n")
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(/^svc: /)
  return lines[0]!
}

const jsonError = (r: CliResult) => {
  expect(r.code).not.toBe(0)
  expect(r.stderr).toBe("")
  const parsed = JSON.parse(r.stdout)
  expect(Object.keys(parsed)).toEqual(["error"])
  expect(Object.keys(parsed.error).sort()).toEqual(["_tag", "message", "status"])
  expect(parsed.error.message).not.toContain("\n")
  return parsed.error as { _tag: string; message: string; status: number | null }
}

describe("svc errors when the gateway is not running", () => {
  it("says so as JSON with --json, as one line without", async () => {
    // A token in svc.json (the gateway ran once), but nothing listens on its control port now.
    const port = await freeGatewayPort()
    const env = baseEnv(makeStateDir({ gateway: { auth: { token: "not-running-token-0123456789" } } }), port)
    const json = jsonError(await runSvc(["browser", "tabs", "--json"], env))
    expect(json).toEqual({
      _tag: "GatewayNotRunning",
      message: expect.stringContaining(`the gateway is not running (nothing answers on 127.0.0.1:${port + 2})`),
      status: null
    })
    const plain = await runSvc(["browser", "tabs"], env)
    expect(plain.code).not.toBe(0)
    expect(oneLine(plain)).toContain("svc gateway run")

    // Never ran here: no token yet.
    const fresh = jsonError(await runSvc(["browser", "status", "--json"], baseEnv(makeStateDir(), port)))
    expect(fresh).toMatchObject({ _tag: "ConnectionError", status: null })
    expect(fresh.message).toContain("svc gateway run")
  })
})

describe("svc errors from a running gateway", () => {
  let gw: Gateway
  beforeAll(async () => {
    gw = await startGateway({ config: { browser: { defaultProfile: "svc", profiles: { ao: { attachOnly: true } } } } })
  })
  afterAll(async () => {
    await gw?.stop()
  })

  it("a 404 and a 409 keep the gateway's tag and status", async () => {
    const notFound = jsonError(await gw.svc("browser", "delete-profile", "nosuch", "--json"))
    expect(notFound).toEqual({ _tag: "NotFound", message: expect.stringContaining('unknown browser profile "nosuch"'), status: 404 })
    const plain = await gw.svc("browser", "delete-profile", "nosuch")
    expect(plain.code).toBe(1)
    expect(oneLine(plain)).toContain('unknown browser profile "nosuch"')

    const conflict = jsonError(await gw.svc("browser", "start", "--browser-profile", "ao", "--json"))
    expect(conflict).toEqual({ _tag: "Conflict", message: expect.stringContaining("attach-only"), status: 409 })
  })

  it("a bad argument is one short line naming it (a 400), not a schema dump", async () => {
    const plain = await gw.svc("browser", "snapshot", "--limit", "0")
    expect(plain.code).toBe(1)
    const line = oneLine(plain)
    expect(line).toBe("svc: invalid request: limit: expected a whole number from 1 to 10000000, got 0")

    expect(jsonError(await gw.svc("browser", "snapshot", "--limit", "0", "--json"))).toEqual({
      _tag: "HttpApiDecodeError",
      message: "invalid request: limit: expected a whole number from 1 to 10000000, got 0",
      status: 400
    })
    // A payload field too (POST /act): the one field is named.
    const wait = await gw.svc("browser", "wait", "--time", "999999")
    expect(oneLine(wait)).toMatch(/^svc: invalid request: timeMs: expected .*60000.*, got 999999$/)
    // What the CLI's own parser refuses names the option too.
    expect(oneLine(await gw.svc("browser", "snapshot", "--limit", "abc"))).toBe("svc: --limit: 'abc' is not an integer")
    expect(oneLine(await gw.svc("browser", "snapshot", "--format", "xx"))).toBe("svc: --format: 'xx' is not one of ai, aria, role")
    expect(jsonError(await gw.svc("browser", "screenshot", "--fullpage", "--json"))).toEqual({
      _tag: "UnknownOption",
      message: "unknown option `--fullpage` for `svc browser screenshot`; did you mean `--full-page`?",
      status: null
    })
  })

  it("a usage error is JSON too with --json", async () => {
    // (hover: click's ref is optional, since `click --at x,y` takes none)
    expect(jsonError(await gw.svc("browser", "hover", "--json"))).toEqual({
      _tag: "MissingValue",
      message: "Missing argument <ref>",
      status: null
    })
    const plain = await gw.svc("browser", "hover")
    expect(plain.code).toBe(2)
    expect(oneLine(plain)).toBe("svc: Missing argument <ref>")
    expect(jsonError(await gw.svc("browser", "--json"))).toEqual({
      _tag: "MissingSubcommand",
      message: "`svc browser` needs a command before `--json` (`svc browser --help` lists them)",
      status: null
    })
  })
})

describe("svc unknown commands", () => {
  const env = () => baseEnv(makeStateDir(), 18789)

  it("suggests the nearest command, in one line", async () => {
    const typo = await runSvc(["browser", "snapshto"], env())
    expect(typo.code).toBe(2)
    expect(oneLine(typo)).toBe("svc: unknown command `snapshto` for `svc browser`; did you mean `svc browser snapshot`?")

    const wrongLevel = await runSvc(["snapshot", "--format", "aria"], env())
    expect(oneLine(wrongLevel)).toContain("did you mean `svc browser snapshot`?")

    const top = await runSvc(["brwoser", "tabs"], env())
    expect(oneLine(top)).toBe("svc: unknown command `brwoser` for `svc`; did you mean `svc browser`?")

    const nothingNear = await runSvc(["browser", "xyzzyplugh"], env())
    expect(oneLine(nothingNear)).toBe("svc: unknown command `xyzzyplugh` for `svc browser`; `svc browser --help` lists its commands")

    expect(jsonError(await runSvc(["browser", "snapshto", "--json"], env()))).toEqual({
      _tag: "UnknownCommand",
      message: "unknown command `snapshto` for `svc browser`; did you mean `svc browser snapshot`?",
      status: null
    })
  })

  it("points a word agents use for going back at navigate (unless a command of that name exists)", async () => {
    const r = await runSvc(["browser", "back"], env())
    if (r.code === 2) expect(oneLine(r)).toContain("`svc browser navigate`")
    else expect(r.stderr).not.toContain("Invalid subcommand")
  })
})

describe("svc --help in a pipe", () => {
  it("is plain text, and every option says what it is for", async () => {
    for (const args of [["--help"], ["browser", "--help"], ["browser", "click", "--help"], ["browser", "set", "headers", "--help"]]) {
      const r = await runSvc(args, baseEnv(makeStateDir(), 18789))
      expect(r.code).toBe(0)
      expect(r.stdout).toContain("USAGE")
      expect(r.stdout).not.toContain("\u001b")
      expect(r.stdout).not.toContain("A user-defined piece of text.")
    }
    const headers = await runSvc(["browser", "set", "headers", "--help"], baseEnv(makeStateDir(), 18789))
    expect(headers.stdout).toMatch(/--headers-json text\n\n  the extra headers as a JSON object/)
    expect(headers.stdout).toMatch(/--json\n\n  print the API's JSON/)
  })
})
