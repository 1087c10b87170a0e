import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { claimPort } from "../../support/portClaims.js"

// The test support's port claims: a port another live worker claimed is not handed out again; a claim whose
// process is gone lapses; a process never gets the same port twice.

const DIR = path.join(os.tmpdir(), "svc-test-port-claims")
/** A port number no test binds (claims are only names here). */
const PORT = 64_999

describe("claimPort", () => {
  it("refuses a port another live process claimed, and takes it once that process is gone", async () => {
    fs.mkdirSync(DIR, { recursive: true })
    const file = path.join(DIR, String(PORT))
    fs.rmSync(file, { force: true })
    const other = spawn("sleep", ["30"], { stdio: "ignore" })
    try {
      fs.writeFileSync(file, String(other.pid))
      expect(claimPort(PORT)).toBe(false)
    } finally {
      other.kill("SIGKILL")
      await new Promise((resolve) => other.once("exit", resolve))
    }
    expect(claimPort(PORT)).toBe(true)
    expect(fs.readFileSync(file, "utf8")).toBe(String(process.pid))
    // This process has it now: not handed out a second time.
    expect(claimPort(PORT)).toBe(false)
    fs.rmSync(file, { force: true })
  })
})
