import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FakeBridge, postWebhook, startFakeBridge, newMessageWebhook } from "../support/fakeBridge.js"
import { type Gateway, startGateway, waitUntil } from "../support/gateway.js"

// Exactly-once on a full disk, through the real gateway on a state dir that is a small tmpfs: a reply goes
// out only once its mark is written, a failed write is said loudly and shown by `svc status`, and after a
// restart with space again no message is answered a second time.

const message = newMessageWebhook

const mountTmpfs = (dir: string, size: string): boolean => {
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size},mode=0700`, "tmpfs", dir], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

const top = fs.mkdtempSync(path.join(os.tmpdir(), "svc-fulldisk-"))
const stateDir = path.join(top, "state")
fs.mkdirSync(stateDir)
const mounted = mountTmpfs(stateDir, "256k")

describe.skipIf(!mounted)("a full disk under the message journal", () => {
  let bridge: FakeBridge
  let gw: Gateway
  const filler = path.join(stateDir, "filler.bin")

  beforeAll(async () => {
    bridge = await startFakeBridge({ serverInfo: { private_api: true, helper_connected: true } })
    fs.writeFileSync(
      path.join(stateDir, "svc.json"),
      JSON.stringify({
        channels: { msgbridge: { serverUrl: bridge.url, password: bridge.password, dmPolicy: "open", allowFrom: ["*"] } },
        messages: { responsePrefix: "" }
      })
    )
    gw = await startGateway({ stateDir })
  }, 60_000)
  afterAll(async () => {
    await gw?.stop()
    await bridge?.close()
    try {
      execFileSync("umount", [stateDir], { stdio: "ignore" })
    } catch {
      // left mounted: nothing else to do
    }
    fs.rmSync(top, { recursive: true, force: true })
  })

  it("never answers a message twice, says the journal cannot be written, and recovers once there is space", async () => {
    // Fill the disk but for a few KiB: the journal runs out of room after a handful of messages.
    const free = () => {
      const st = fs.statfsSync(stateDir)
      return st.bavail * st.bsize
    }
    fs.writeFileSync(filler, Buffer.alloc(Math.max(0, free() - 24 * 1024)))
    const hook = `http://127.0.0.1:${gw.port}/msgbridge-webhook?password=${encodeURIComponent(bridge.password)}`
    const statuses = new Map<string, number>()
    for (let i = 0; i < 120; i++) {
      const guid = `FULL-${i}`
      const r = await postWebhook(hook, message(guid, `message ${i} ${"x".repeat(300)}`, `+1555000${String(i % 10).padStart(4, "0")}`))
      statuses.set(guid, r.status)
    }
    const accepted = [...statuses].filter(([, s]) => s === 200).map(([g]) => g)
    const refused = [...statuses].filter(([, s]) => s === 500)
    expect(accepted.length).toBeGreaterThan(0)
    expect(refused.length, "the disk never filled up").toBeGreaterThan(0)
    expect(accepted.length + refused.length).toBe(120)

    const replies = () =>
      bridge.callsTo("/api/v1/message/text").map((c) => /^echo: message (\d+) /.exec((c.body as { message: string }).message)?.[1])
    // Let everything accepted be processed (answered, or refused for want of its mark).
    let last = -1
    await waitUntil(() => {
      const n = replies().length
      const settled = n === last
      last = n
      return settled
    }, 20_000).catch(() => undefined)
    await new Promise((r) => setTimeout(r, 1_000))

    const status = JSON.parse((await gw.svc("status", "--json")).stdout)
    const account = status.channels.msgbridge.accounts[0]
    expect(account.journal.failedWrites).toBeGreaterThan(0)
    expect(account.journal.lastError).toMatch(/ENOSPC|no space/i)
    const human = await gw.svc("status")
    expect(human.stdout).toMatch(/message journal: (CANNOT BE WRITTEN|writing again)/)
    expect(gw.output()).toMatch(/msgbridge journal: cannot append/)

    const firstRun = replies()
    // Never twice, and nothing answered that was refused.
    expect(new Set(firstRun).size).toBe(firstRun.length)
    for (const n of firstRun) expect(statuses.get(`FULL-${n}`)).toBe(200)

    // Space again, and a restart: what was answered is not answered again.
    expect(await gw.stop()).toBe(0)
    fs.rmSync(filler)
    gw = await startGateway({ stateDir })
    await new Promise((r) => setTimeout(r, 3_000))
    const all = replies()
    expect(new Set(all).size, `answered twice: ${all.filter((n, i) => all.indexOf(n) !== i).join(", ")}`).toBe(all.length)
    console.log(`full disk: ${accepted.length} accepted, ${refused.length} refused, ${firstRun.length} answered before the restart, ${all.length} after`)
  }, 120_000)
})
