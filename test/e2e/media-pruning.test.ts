import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { makeStateDir, startGateway, waitUntil } from "../support/gateway.js"

// Screenshots and PDFs do not pile up forever: the gateway prunes <state>/media/browser as it does inbound
// media (older than a week go, then the oldest beyond 512 MiB).

describe("browser media pruning", () => {
  it("removes week-old screenshots and PDFs when the gateway starts, keeps recent ones", async () => {
    const stateDir = makeStateDir({ browser: { defaultProfile: "svc" } })
    const dir = path.join(stateDir, "media", "browser")
    fs.mkdirSync(dir, { recursive: true })
    const old = Date.now() / 1000 - 8 * 24 * 3600
    for (const name of ["screenshot-old.png", "page-old.pdf"]) {
      fs.writeFileSync(path.join(dir, name), "x")
      fs.utimesSync(path.join(dir, name), old, old)
    }
    fs.writeFileSync(path.join(dir, "screenshot-new.png"), "y")
    const gw = await startGateway({ stateDir })
    try {
      await waitUntil(() => !fs.existsSync(path.join(dir, "screenshot-old.png")), 10_000)
      expect(fs.readdirSync(dir).sort()).toEqual(["screenshot-new.png"])
    } finally {
      await gw.stop()
      fs.rmSync(stateDir, { recursive: true, force: true })
    }
  })
})
