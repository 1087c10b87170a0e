import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { spawn } from "node:child_process"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { baseEnv, freeCdpPort, freeGatewayPort, isPng, makeStateDir, ROOT, runSvc, servePages } from "../support/gateway.js"

// A real gateway process that cannot resolve playwright-core: the full bundle copied away from
// node_modules. It must start, say so in its status, and serve every CDP-only route.

describe("gateway without the automation library", () => {
  let child: ReturnType<typeof spawn>
  let env: NodeJS.ProcessEnv
  let pages: Awaited<ReturnType<typeof servePages>>

  beforeAll(async () => {
    const isolated = fs.mkdtempSync(path.join(os.tmpdir(), "svc-core-only-"))
    fs.copyFileSync(path.join(ROOT, "dist/svc.cjs"), path.join(isolated, "svc.cjs"))
    pages = await servePages({ "/": "<!doctype html><title>Plain</title><h1>Still here</h1><button>Go</button>" })
    const cdpPort = await freeCdpPort()
    const stateDir = makeStateDir({ browser: { defaultProfile: "svc", profiles: { svc: { cdpPort } } } })
    env = baseEnv(stateDir, await freeGatewayPort())
    child = spawn(process.execPath, [path.join(isolated, "svc.cjs"), "gateway", "run"], { env, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(out)), 30_000)
      child.stdout!.on("data", (d) => {
        out += d
        if (out.includes("svc gateway ready")) {
          clearTimeout(timer)
          resolve()
        }
      })
      child.stderr!.on("data", (d) => (out += d))
      child.once("exit", (code) => reject(new Error(`exited ${code}: ${out}`)))
    })
  })

  afterAll(async () => {
    if (child?.exitCode === null) {
      const exited = new Promise((r) => child.once("exit", r))
      child.kill("SIGTERM")
      await exited
    }
    await pages?.close()
  })

  it("reports the library as unavailable, with what to do", async () => {
    const status = JSON.parse((await runSvc(["browser", "status", "--json"], env)).stdout)
    expect(status.automation).toEqual({
      available: false,
      library: "playwright-core",
      reason: expect.stringContaining("Install the full library package")
    })
    const human = await runSvc(["browser", "status"], env)
    expect(human.stdout).toContain("automation: unavailable")
  })

  it("answers navigate, act, AI and role snapshots, element screenshots and PDF with 501 and what to do", async () => {
    await runSvc(["browser", "open", pages.url("/")], env)
    for (const args of [
      ["browser", "snapshot", "--format", "ai"],
      ["browser", "snapshot", "--interactive"],
      ["browser", "navigate", pages.url("/")],
      ["browser", "click", "1"],
      ["browser", "screenshot", "--ref", "1"],
      ["browser", "pdf"]
    ]) {
      const r = await runSvc(args, env)
      expect(r.code, args.join(" ")).not.toBe(0)
      expect(r.stderr, args.join(" ")).toMatch(/automation library \(Playwright\) is unavailable in this gateway build/)
    }
  })

  it("defaults to the ARIA snapshot when the library is absent", async () => {
    const r = JSON.parse((await runSvc(["browser", "snapshot", "--json"], env)).stdout)
    expect(r.format).toBe("aria")
  })

  it("serves tabs, the ARIA snapshot and screenshots over CDP alone", async () => {
    const tab = JSON.parse((await runSvc(["browser", "open", pages.url("/"), "--json"], env)).stdout)
    expect(tab.url).toBe(pages.url("/"))
    const tabs = JSON.parse((await runSvc(["browser", "tabs", "--json"], env)).stdout)
    expect(tabs.tabs.map((t: { targetId: string }) => t.targetId)).toContain(tab.targetId)
    const snap = await runSvc(["browser", "snapshot", "--format", "aria"], env)
    expect(snap.code).toBe(0)
    expect(snap.stdout).toContain('heading "Still here"')
    expect(snap.stdout).toContain('button "Go"')
    // A search in it works without the library too (no refs to give).
    const found = await runSvc(["browser", "snapshot", "--find", "go"], env)
    expect(found.code, found.stderr).toBe(0)
    expect(found.stdout).toMatch(/^1 line\(s\) match "go", each under the elements it is in:\n/)
    expect(found.stdout).toContain('button "Go"')
    expect(found.stdout).not.toContain("Still here")
    const shot = await runSvc(["browser", "screenshot", "--json"], env)
    expect(isPng(JSON.parse(shot.stdout).path)).toBeDefined()
  })
})
