import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import {
  checkKeepaliveInterval,
  KEEPALIVE_LABEL,
  keepaliveScript,
  launchctlCommands,
  loadCommandLine,
  planKeepalive,
  shellQuote
} from "../../../src/msgbridge/setup/Keepalive.js"

// The keep-alive files as generated: a plist launchd accepts (parsed here by a strict reader of the XML
// plist subset, and by Python's plistlib when there is one) and a shell script that pokes Messages.

type PlistValue = string | number | boolean | Array<PlistValue> | { [key: string]: PlistValue }

const unescape = (s: string) =>
  s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, "\"").replace(/&apos;/g, "'").replace(/&amp;/g, "&")

/** A strict reader of the XML plist subset the agent uses: anything else throws. */
const parsePlist = (xml: string): PlistValue => {
  const header = /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<!DOCTYPE plist PUBLIC "-\/\/Apple\/\/DTD PLIST 1\.0\/\/EN" "http:\/\/www\.apple\.com\/DTDs\/PropertyList-1\.0\.dtd">\n<plist version="1\.0">([\s\S]*)<\/plist>\s*$/
    .exec(xml)
  if (header === null) throw new Error("not an XML plist")
  const tokens = header[1]!.match(/<[^>]+>|[^<]+/g)!.map((t) => t.trim()).filter((t) => t !== "")
  let i = 0
  const text = (tag: string): string => {
    const t = tokens[i]!
    if (t.startsWith("<")) {
      if (t !== `</${tag}>`) throw new Error(`expected </${tag}>, got ${t}`)
      i++
      return ""
    }
    if (/[<&](?!(lt|gt|amp|quot|apos);)/.test(t)) throw new Error(`unescaped text ${t}`)
    i++
    if (tokens[i++] !== `</${tag}>`) throw new Error(`unclosed <${tag}>`)
    return unescape(t)
  }
  const value = (): PlistValue => {
    const t = tokens[i++]
    switch (t) {
      case "<string>":
        return text("string")
      case "<integer>": {
        const n = text("integer")
        if (!/^-?\d+$/.test(n)) throw new Error(`bad integer ${n}`)
        return Number(n)
      }
      case "<true/>":
        return true
      case "<false/>":
        return false
      case "<array>": {
        const out: Array<PlistValue> = []
        while (tokens[i] !== "</array>") out.push(value())
        i++
        return out
      }
      case "<dict>": {
        const out: Record<string, PlistValue> = {}
        while (tokens[i] !== "</dict>") {
          if (tokens[i++] !== "<key>") throw new Error(`expected <key>, got ${tokens[i - 1]}`)
          const key = text("key")
          if (key in out) throw new Error(`duplicate key ${key}`)
          out[key] = value()
        }
        i++
        return out
      }
      default:
        throw new Error(`unexpected ${t}`)
    }
  }
  const root = value()
  if (i !== tokens.length) throw new Error("trailing content")
  return root
}

const python = spawnSync("python3", ["-c", "import plistlib"]).status === 0

describe("keep-alive files", () => {
  it("plans both files under HOME with their modes", () => {
    const plan = planKeepalive({ home: "/Users/bridge" })
    expect(plan.label).toBe(KEEPALIVE_LABEL)
    expect(plan.intervalSeconds).toBe(300)
    expect(plan.plist.path).toBe(`/Users/bridge/Library/LaunchAgents/${KEEPALIVE_LABEL}.plist`)
    expect(plan.plist.mode).toBe(0o644)
    expect(plan.script.path).toBe("/Users/bridge/Library/Application Support/svc/msgbridge-keepalive.sh")
    expect(plan.script.mode).toBe(0o755)
    expect(plan.logFile).toBe("/Users/bridge/Library/Logs/svc-msgbridge-keepalive.log")
  })

  it("the plist is a launchd agent: runs the script at load and every interval, logs to the log file", () => {
    const plan = planKeepalive({ home: "/Users/bridge", intervalSeconds: 120 })
    expect(parsePlist(plan.plist.content)).toEqual({
      Label: KEEPALIVE_LABEL,
      ProgramArguments: ["/bin/sh", plan.script.path],
      RunAtLoad: true,
      StartInterval: 120,
      LimitLoadToSessionType: "Aqua",
      ProcessType: "Background",
      StandardOutPath: plan.logFile,
      StandardErrorPath: plan.logFile
    })
  })

  it("escapes paths in the XML", () => {
    const plan = planKeepalive({ home: "/Users/R&D <lab>" })
    expect(plan.plist.content).toContain("/Users/R&amp;D &lt;lab&gt;/Library")
    const parsed = parsePlist(plan.plist.content) as Record<string, PlistValue>
    expect(parsed.ProgramArguments).toEqual(["/bin/sh", "/Users/R&D <lab>/Library/Application Support/svc/msgbridge-keepalive.sh"])
  })

  it.skipIf(!python)("Python's plistlib reads the same plist", () => {
    const plan = planKeepalive({ home: "/Users/R&D <lab>", intervalSeconds: 600 })
    const out = execFileSync("python3", ["-c", "import json, plistlib, sys; print(json.dumps(plistlib.loads(sys.stdin.buffer.read())))"], {
      input: plan.plist.content
    })
    expect(JSON.parse(out.toString())).toEqual(parsePlist(plan.plist.content))
  })

  it("the script is valid sh and asks Messages a question over osascript", () => {
    const script = keepaliveScript({ intervalSeconds: 300 })
    expect(script.startsWith("#!/bin/sh\n")).toBe(true)
    expect(script).toContain("every 300 seconds")
    expect(script).toContain(`-e 'tell application "Messages"'`)
    expect(script).toContain("-e 'count of chats'")
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-keepalive-"))
    const file = path.join(dir, "keepalive.sh")
    fs.writeFileSync(file, script)
    expect(spawnSync("sh", ["-n", file]).status).toBe(0)
  })

  it("run with a stand-in osascript: quiet on success, one line and osascript's status on failure", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-keepalive-"))
    const script = path.join(dir, "keepalive.sh")
    fs.writeFileSync(script, keepaliveScript({ intervalSeconds: 300 }))
    const bin = path.join(dir, "bin")
    fs.mkdirSync(bin)
    const argsFile = path.join(dir, "args")
    const fake = (body: string) =>
      fs.writeFileSync(path.join(bin, "osascript"), `#!/bin/sh\nprintf '%s\\n' "$@" > '${argsFile}'\n${body}\n`, { mode: 0o755 })
    const run = () =>
      spawnSync("/bin/sh", [script], { encoding: "utf8", env: { ...process.env, PATH: `${bin}:/usr/bin:/bin` } })

    fake("echo 7")
    const ok = run()
    expect(ok.status).toBe(0)
    expect(ok.stdout).toBe("") // not a terminal: nothing for the log
    expect(ok.stderr).toBe("")
    expect(fs.readFileSync(argsFile, "utf8").split("\n")).toEqual([
      "-e",
      "with timeout of 30 seconds",
      "-e",
      'tell application "Messages"',
      "-e",
      "if it is not running then launch",
      "-e",
      "count of chats",
      "-e",
      "end tell",
      "-e",
      "end timeout",
      ""
    ])

    fake(`echo "execution error: Not authorized to send Apple events to Messages. (-1743)" >&2; exit 1`)
    const refused = run()
    expect(refused.status).toBe(1)
    expect(refused.stderr).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d svc msgbridge keep-alive: Messages did not answer \(osascript exit 1\): .*-1743/)
    expect(refused.stderr).toContain("Privacy & Security > Automation")
  })

  it("intervals from 60 seconds to a day", () => {
    expect(checkKeepaliveInterval(60)).toBeUndefined()
    expect(checkKeepaliveInterval(86_400)).toBeUndefined()
    expect(checkKeepaliveInterval(59)).toMatch(/from 60 to 86400, got 59/)
    expect(checkKeepaliveInterval(86_401)).toBeDefined()
    expect(checkKeepaliveInterval(90.5)).toBeDefined()
  })

  it("launchctl commands reload the agent in the GUI session", () => {
    expect(launchctlCommands(501, "/Users/b/Library/LaunchAgents/x.plist")).toEqual({
      unload: ["bootout", `gui/501/${KEEPALIVE_LABEL}`],
      load: ["bootstrap", "gui/501", "/Users/b/Library/LaunchAgents/x.plist"]
    })
    expect(loadCommandLine("/Users/a b/it's.plist")).toBe(`launchctl bootstrap gui/$(id -u) '/Users/a b/it'\\''s.plist'`)
    expect(shellQuote("/Users/b/Library/x.plist")).toBe("/Users/b/Library/x.plist")
  })
})
