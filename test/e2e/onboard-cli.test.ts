import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FakeBridge, startFakeBridge } from "../support/fakeBridge.js"
import { baseEnv, freeGatewayPort, makeStateDir, ROOT, runSvc, SVC_BIN } from "../support/gateway.js"

// `svc onboard` and `svc msgbridge keepalive install` through bin/svc (the start-up snapshot), with a temp
// state dir and HOME: what lands on disk, what is printed, and the one-line failures.

const configOf = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, "svc.json"), "utf8"))
const modeOf = (file: string) => fs.statSync(file).mode & 0o777

const EXISTING = {
  gateway: { port: 18555, auth: { token: "onboard-token-0123456789abcdef" } },
  browser: { defaultProfile: "svc", color: "#00AA00" },
  channels: { msgbridge: { groupPolicy: "disabled", textChunkLimit: 2000 } },
  messages: { responsePrefix: "[bot] " }
}

describe("svc onboard --non-interactive", () => {
  let bridge: FakeBridge
  beforeAll(async () => {
    bridge = await startFakeBridge({ password: "bridge pw&=?#1" })
  })
  afterAll(() => bridge.close())

  it("writes the channel, keeps every other key, mode 0600, prints the webhook URL with the encoded password", async () => {
    const dir = makeStateDir(EXISTING)
    const port = await freeGatewayPort()
    const password = "p@ss w&rd=?/#1"
    const r = await runSvc(
      [
        "onboard",
        "--non-interactive",
        "--server-url",
        "mac.local:1234/",
        "--password",
        password,
        "--webhook-path",
        "/hooks/mb",
        "--dm-policy",
        "allowlist",
        "--allow-from",
        "+15551230001, friend@example.com"
      ],
      baseEnv(dir, port)
    )
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    expect(configOf(dir)).toEqual({
      ...EXISTING,
      channels: {
        msgbridge: {
          ...EXISTING.channels.msgbridge,
          enabled: true,
          serverUrl: "http://mac.local:1234",
          password,
          webhookPath: "/hooks/mb",
          dmPolicy: "allowlist",
          allowFrom: ["+15551230001", "friend@example.com"]
        }
      }
    })
    expect(modeOf(path.join(dir, "svc.json"))).toBe(0o600)
    // SVC_GATEWAY_PORT wins over gateway.port, as everywhere in the CLI.
    expect(r.stdout).toContain(`  http://127.0.0.1:${port}/hooks/mb?password=${encodeURIComponent(password)}\n`)
    expect(r.stdout).toContain("p%40ss%20w%26rd%3D%3F%2F%231")
    expect(r.stdout).toMatch(/\nnote: gateway\.bind is 127\.0\.0\.1 \(loopback\).*proxy.*\n/)
    expect(r.stdout).toContain("svc gateway run")
    expect(r.stdout).not.toContain("bridge server check")
  })

  it("re-running edits: flags change their keys, the rest keep their values", async () => {
    const dir = makeStateDir(EXISTING)
    const env = baseEnv(dir, await freeGatewayPort())
    const first = await runSvc(["onboard", "--non-interactive", "--server-url", "http://mac:1", "--password", "first-pw"], env)
    expect(first.code).toBe(0)
    expect(configOf(dir).channels.msgbridge).toMatchObject({ dmPolicy: "pairing", webhookPath: "/msgbridge-webhook", allowFrom: [] })
    const second = await runSvc(["onboard", "--non-interactive", "--dm-policy", "open"], env)
    expect(second.code).toBe(0)
    expect(configOf(dir).channels.msgbridge).toEqual({
      ...EXISTING.channels.msgbridge,
      enabled: true,
      serverUrl: "http://mac:1",
      password: "first-pw",
      webhookPath: "/msgbridge-webhook",
      dmPolicy: "open",
      allowFrom: []
    })
  })

  it("a gateway bound to a LAN address is the URL's host, with no note", async () => {
    const dir = makeStateDir({ gateway: { bind: "192.168.50.2" } })
    const port = await freeGatewayPort()
    const r = await runSvc(["onboard", "--non-interactive", "--server-url", "http://mac:1", "--password", "pw"], baseEnv(dir, port))
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(`  http://192.168.50.2:${port}/msgbridge-webhook?password=pw\n`)
    expect(r.stdout).not.toContain("note:")
  })

  it("bad or missing answers: one line on stderr, non-zero exit, nothing written", async () => {
    const dir = makeStateDir(EXISTING)
    const before = fs.readFileSync(path.join(dir, "svc.json"), "utf8")
    const env = baseEnv(dir, await freeGatewayPort())
    const cases: Array<[Array<string>, RegExp]> = [
      [["--password", "pw"], /^svc: --non-interactive needs --server-url \(channels\.msgbridge\.serverUrl is not set in .*svc\.json\)$/],
      [["--server-url", "http://mac:1"], /^svc: --non-interactive needs --password/],
      [["--server-url", "ftp://mac", "--password", "pw"], /^svc: --server-url: the bridge server URL must start with http:\/\/ or https:\/\/$/],
      [["--server-url", "http://mac:1", "--password", ""], /^svc: --password: the bridge server password is required/],
      [["--server-url", "http://mac:1", "--password", "pw", "--webhook-path", "hooks"], /^svc: --webhook-path: a webhook path starts with \//],
      [["--server-url", "http://mac:1", "--password", "pw", "--dm-policy", "allowlist"], /^svc: dmPolicy allowlist needs at least one sender.*--allow-from/]
    ]
    for (const [args, message] of cases) {
      const r = await runSvc(["onboard", "--non-interactive", ...args], env)
      expect(r.code, args.join(" ")).not.toBe(0)
      expect(r.stderr.trimEnd().split("\n"), args.join(" ")).toEqual([expect.stringMatching(message)])
      expect(r.stdout).toBe("")
    }
    const invalidChoice = await runSvc(["onboard", "--non-interactive", "--dm-policy", "everyone"], env)
    expect(invalidChoice.code).not.toBe(0)
    expect(fs.readFileSync(path.join(dir, "svc.json"), "utf8")).toBe(before)
  })

  it("without a terminal and without --non-interactive it says so in one line", async () => {
    const dir = makeStateDir()
    const r = await runSvc(["onboard"], baseEnv(dir, await freeGatewayPort()))
    expect(r.code).toBe(1)
    expect(r.stderr.trimEnd().split("\n")).toEqual([expect.stringMatching(/^svc: onboarding asks its questions on a terminal.*--non-interactive/)])
    expect(fs.existsSync(path.join(dir, "svc.json"))).toBe(false)
  })

  it("--check pings the bridge server: OK, or one line without the password", async () => {
    const dir = makeStateDir()
    const env = baseEnv(dir, await freeGatewayPort())
    const ok = await runSvc(["onboard", "--non-interactive", "--server-url", bridge.url, "--password", bridge.password, "--check"], env)
    expect(ok.stderr).toBe("")
    expect(ok.code).toBe(0)
    expect(ok.stdout).toContain(`bridge server check: OK (${bridge.url} answered /api/v1/ping)`)
    expect(bridge.callsTo("/api/v1/ping", "GET").length).toBeGreaterThan(0)

    const wrong = "wrong pw&=?#2"
    const refused = await runSvc(["onboard", "--non-interactive", "--password", wrong, "--check"], env)
    expect(refused.code).toBe(1)
    const lines = refused.stderr.trimEnd().split("\n")
    expect(lines).toEqual([expect.stringMatching(/^svc: bridge server check failed \(the config is saved\): .*refused the password/)])
    for (const form of [wrong, encodeURIComponent(wrong), "wrong+pw"]) expect(refused.stderr).not.toContain(form)
    expect(configOf(dir).channels.msgbridge.password).toBe(wrong)

    const nobody = await runSvc(["onboard", "--non-interactive", "--server-url", "http://127.0.0.1:9", "--check"], env)
    expect(nobody.code).toBe(1)
    expect(nobody.stderr.trimEnd().split("\n")).toEqual([expect.stringMatching(/^svc: bridge server check failed .*no bridge server answers at http:\/\/127\.0\.0\.1:9/)])
    expect(nobody.stderr).not.toContain("wrong")
  })
})

// util-linux `script` gives bin/svc a pseudo-terminal, so the real prompts run as a person sees them.
const hasScript = spawnSync("script", ["--version"], { encoding: "utf8" }).stdout?.includes("util-linux") ?? false

describe("svc onboard on a terminal", () => {
  it.skipIf(!hasScript)("answers typed into the real prompts are written", async () => {
    const dir = makeStateDir({ browser: { defaultProfile: "svc" } })
    const env = { ...baseEnv(dir, await freeGatewayPort()), TERM: "xterm" }
    const child = spawn("script", ["-qfec", `${SVC_BIN} onboard`, "/dev/null"], { cwd: ROOT, env, stdio: ["pipe", "pipe", "pipe"] })
    // Each answer is typed once its question is on the screen.
    const answers: Array<[string, string]> = [
      ["Bridge server URL", "mac.local:1234\r"],
      ["Bridge server password", "typed-secret-1\r"],
      ["Webhook path", "\r"],
      ["message the agent directly", "\u001b[B\r"], // down: allowlist
      ["Allowed senders", "+15551230001\r"],
      ["Check the bridge server", "n"]
    ]
    let screen = ""
    let pending = ""
    child.stdout.on("data", (d: Buffer) => {
      screen += d.toString()
      pending += d.toString()
      while (answers.length > 0 && pending.includes(answers[0]![0])) {
        pending = pending.slice(pending.indexOf(answers[0]![0]) + answers[0]![0].length)
        child.stdin.write(answers.shift()![1])
      }
    })
    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL")
        reject(new Error(`svc onboard did not finish; screen:\n${screen}`))
      }, 20_000)
      child.on("close", (c) => {
        clearTimeout(timer)
        resolve(c)
      })
    })
    expect(code, screen).toBe(0)
    // Masked while typed: the password shows only in the URL printed at the end.
    expect(screen.slice(0, screen.indexOf("saved channels.msgbridge"))).not.toContain("typed-secret-1")
    expect(screen).toContain("**************")
    expect(configOf(dir)).toEqual({
      browser: { defaultProfile: "svc" },
      channels: {
        msgbridge: {
          enabled: true,
          serverUrl: "http://mac.local:1234",
          password: "typed-secret-1",
          webhookPath: "/msgbridge-webhook",
          dmPolicy: "allowlist",
          allowFrom: ["+15551230001"]
        }
      }
    })
    expect(screen).toContain("/msgbridge-webhook?password=typed-secret-1")
  })
})

describe("svc msgbridge keepalive install", () => {
  const envWithHome = (home: string) => ({ ...baseEnv(makeStateDir(), 18789), HOME: home })
  const agent = (home: string) => path.join(home, "Library/LaunchAgents/dev.svc.msgbridge-keepalive.plist")
  const script = (home: string) => path.join(home, "Library/Application Support/svc/msgbridge-keepalive.sh")

  it("--print shows both files with their paths and writes nothing", async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "svc-home-"))
    const r = await runSvc(["msgbridge", "keepalive", "install", "--print", "--interval", "120"], envWithHome(home))
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    expect(fs.readdirSync(home)).toEqual([])
    expect(r.stdout).toContain(`# ${script(home)} (mode 0755)\n#!/bin/sh\n`)
    expect(r.stdout).toContain(`# ${agent(home)} (mode 0644)\n<?xml version="1.0" encoding="UTF-8"?>`)
    expect(r.stdout).toContain("<key>StartInterval</key>\n  <integer>120</integer>")
    expect(r.stdout).toContain(`launchctl bootstrap gui/$(id -u) ${agent(home)}`)
  })

  it("install writes the script (0755) and the agent (0644); a re-install changes nothing", async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "svc-home-"))
    const env = envWithHome(home)
    const printed = await runSvc(["msgbridge", "keepalive", "install", "--print"], env)
    const first = await runSvc(["msgbridge", "keepalive", "install"], env)
    expect(first.stderr).toBe("")
    expect(first.code).toBe(0)
    expect(modeOf(script(home))).toBe(0o755)
    expect(modeOf(agent(home))).toBe(0o644)
    const scriptText = fs.readFileSync(script(home), "utf8")
    const agentText = fs.readFileSync(agent(home), "utf8")
    expect(printed.stdout).toContain(scriptText)
    expect(printed.stdout).toContain(agentText)
    expect(agentText).toContain("<integer>300</integer>")
    expect(first.stdout).toContain(`wrote ${script(home)} (mode 0755)`)
    expect(first.stdout).toContain(`wrote ${agent(home)} (mode 0644)`)
    if (process.platform !== "darwin") expect(first.stdout).toContain("this machine is not a Mac")

    const again = await runSvc(["msgbridge", "keepalive", "install"], env)
    expect(again.code).toBe(0)
    expect(again.stdout).toContain(`unchanged ${script(home)}`)
    expect(again.stdout).toContain(`unchanged ${agent(home)}`)
    expect(fs.readFileSync(script(home), "utf8")).toBe(scriptText)
    expect(fs.readFileSync(agent(home), "utf8")).toBe(agentText)

    // A changed interval or a loosened mode is replaced, no temp files left behind.
    fs.chmodSync(script(home), 0o777)
    const changed = await runSvc(["msgbridge", "keepalive", "install", "--interval", "600"], env)
    expect(changed.code).toBe(0)
    expect(changed.stdout).toContain(`wrote ${script(home)}`)
    expect(modeOf(script(home))).toBe(0o755)
    expect(fs.readFileSync(agent(home), "utf8")).toContain("<integer>600</integer>")
    expect(fs.readdirSync(path.dirname(agent(home)))).toEqual(["dev.svc.msgbridge-keepalive.plist"])
    expect(fs.readdirSync(path.dirname(script(home)))).toEqual(["msgbridge-keepalive.sh"])
  })

  it("an interval under 60 seconds is refused in one line", async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "svc-home-"))
    const r = await runSvc(["msgbridge", "keepalive", "install", "--interval", "30"], envWithHome(home))
    expect(r.code).toBe(1)
    expect(r.stderr.trimEnd().split("\n")).toEqual(["svc: --interval must be a whole number of seconds from 60 to 86400, got 30"])
    expect(fs.readdirSync(home)).toEqual([])
  })
})
