import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { baseEnv, freeGatewayPort, makeStateDir, runSvc } from "../support/gateway.js"

// `svc config set` refuses a value the gateway could not use, in one line naming the key, and leaves
// svc.json as it was.

describe("svc config set checks the value", () => {
  it("the bridge server must be an http(s) URL or a bare host; another scheme is refused and nothing is written", async () => {
    const stateDir = makeStateDir({ channels: { msgbridge: { serverUrl: "http://mac.local:1234", password: "pw" } } })
    const env = baseEnv(stateDir, await freeGatewayPort())
    const before = fs.readFileSync(path.join(stateDir, "svc.json"), "utf8")
    for (const bad of ["ftp://mac.local/", "file:///etc/passwd", "javascript://x", "http://"]) {
      const r = await runSvc(["config", "set", "channels.msgbridge.serverUrl", bad], env)
      expect(r.code, bad).not.toBe(0)
      expect(r.stderr.trim().split("\n"), r.stderr).toHaveLength(1)
      expect(r.stderr).toContain("serverUrl")
      expect(fs.readFileSync(path.join(stateDir, "svc.json"), "utf8")).toBe(before)
    }
    for (const good of ["https://bridge.example:8443", "mac.local:1234", "http://192.168.1.20:1234"]) {
      const r = await runSvc(["config", "set", "channels.msgbridge.serverUrl", good], env)
      expect(r.code, `${good}: ${r.stderr}`).toBe(0)
    }
  })
})
