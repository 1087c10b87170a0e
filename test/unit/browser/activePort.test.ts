import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { isSameRun, ownerOnlyDir, readActivePort } from "../../../src/browser/launch/activePort.js"

// DevToolsActivePort, as Chromium writes it for a port it chose: the port, then the browser websocket's path.

const withFile = (text: string | undefined) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-activeport-"))
  if (text !== undefined) fs.writeFileSync(path.join(dir, "DevToolsActivePort"), text)
  return Effect.runPromise(readActivePort(dir)).finally(() => fs.rmSync(dir, { recursive: true, force: true }))
}

describe("DevToolsActivePort", () => {
  it("reads the port and the run's websocket path", async () => {
    expect(await withFile("45481\n/devtools/browser/9fb36380-8955\n")).toEqual({
      port: 45481,
      browserPath: "/devtools/browser/9fb36380-8955"
    })
  })

  it("ignores a missing, half-written or foreign file", async () => {
    expect(await withFile(undefined)).toBeUndefined()
    expect(await withFile("")).toBeUndefined()
    expect(await withFile("45481")).toBeUndefined()
    expect(await withFile("0\n/devtools/browser/x")).toBeUndefined()
    expect(await withFile("70000\n/devtools/browser/x")).toBeUndefined()
    expect(await withFile("port\n/devtools/browser/x")).toBeUndefined()
    expect(await withFile("45481\n/json/version")).toBeUndefined()
  })

  it("believes a port only when it answers with the same run's websocket", () => {
    const active = { port: 45481, browserPath: "/devtools/browser/aaa" }
    expect(isSameRun(active, "ws://127.0.0.1:45481/devtools/browser/aaa")).toBe(true)
    expect(isSameRun(active, "ws://127.0.0.1:45481/devtools/browser/bbb")).toBe(false)
    expect(isSameRun(active, "not a url")).toBe(false)
  })

  it("makes the user-data dir owner-only, and tightens one that is not", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "svc-ownerdir-"))
    try {
      const fresh = path.join(root, "a/b/user-data")
      await ownerOnlyDir(fresh)
      expect(fs.statSync(fresh).mode & 0o777).toBe(0o700)
      expect(fs.statSync(path.join(root, "a")).mode & 0o777).toBe(0o700)
      const loose = path.join(root, "loose")
      fs.mkdirSync(loose, { mode: 0o755 })
      fs.chmodSync(loose, 0o755)
      await ownerOnlyDir(loose)
      expect(fs.statSync(loose).mode & 0o777).toBe(0o700)
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  })
})
