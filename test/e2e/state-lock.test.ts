import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { baseEnv, freeGatewayPort, type Gateway, makeStateDir, pidAlive, runSvc, startGateway } from "../support/gateway.js"

// One gateway per state dir: a second one on the same dir (another port) refuses to start and names the pid
// that holds it; a lock left by a gateway killed with SIGKILL does not stand in the next one's way.

describe("the state dir lock", () => {
  const running: Array<Gateway> = []
  afterEach(async () => {
    for (const gw of running.splice(0)) await gw.stop()
  })

  it("a second gateway on the same state dir refuses to start and says which pid holds it", async () => {
    const stateDir = makeStateDir()
    const first = await startGateway({ stateDir })
    running.push(first)
    const lock = JSON.parse(fs.readFileSync(path.join(stateDir, "gateway.lock"), "utf8"))
    expect(lock.pid).toBe(first.process.pid)
    expect(fs.statSync(path.join(stateDir, "gateway.lock")).mode & 0o777).toBe(0o600)

    const second = await startGateway({ stateDir }).then(
      (gw) => {
        running.push(gw)
        return undefined
      },
      (e: Error) => e.message
    )
    expect(second, "the second gateway started").toBeDefined()
    expect(second).toContain(`in use by another gateway (pid ${first.process.pid}`)
    expect(second).toContain("SVC_STATE_DIR")
    // The first one is untouched and still answers.
    expect((await first.svc("status")).code).toBe(0)
    // A config change while it runs says the gateway takes it once restarted, and by its pid.
    const set = await first.svc("config", "set", "browser.headless", "true")
    expect(set.code, set.stderr).toBe(0)
    expect(set.stdout.trim()).toMatch(new RegExp(`^set browser\\.headless in .*svc\\.json to true; the running gateway \\(pid ${first.process.pid}\\) uses it once restarted$`))

    // Stopped cleanly, it leaves no lock; the next gateway starts.
    expect(await first.stop()).toBe(0)
    running.splice(0)
    expect(fs.existsSync(path.join(stateDir, "gateway.lock"))).toBe(false)
    const unset = await first.svc("config", "unset", "browser.headless")
    expect(unset.stdout.trim()).toMatch(/^removed browser\.headless from .*svc\.json$/)
    running.push(await startGateway({ stateDir }))
  }, 90_000)

  it("a lock left by a gateway killed with SIGKILL is taken over", async () => {
    const stateDir = makeStateDir()
    const first = await startGateway({ stateDir })
    first.process.kill("SIGKILL")
    await first.stop()
    expect(pidAlive(first.process.pid!)).toBe(false)
    expect(fs.existsSync(path.join(stateDir, "gateway.lock"))).toBe(true)
    const next = await startGateway({ stateDir })
    running.push(next)
    expect(JSON.parse(fs.readFileSync(path.join(stateDir, "gateway.lock"), "utf8")).pid).toBe(next.process.pid)
  }, 90_000)

  it("an svc.json others can read is made owner-only, saying so; an empty one is refused, not replaced", async () => {
    const stateDir = makeStateDir({ gateway: { auth: { token: "t-0123456789abcdef0123456789" } } })
    const file = path.join(stateDir, "svc.json")
    fs.chmodSync(file, 0o644)
    const gw = await startGateway({ stateDir })
    running.push(gw)
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    expect(gw.output()).toContain("was readable by other users (mode 644); made it owner-only")
    expect(await gw.stop()).toBe(0)
    running.splice(0)

    fs.writeFileSync(file, "")
    const refused = await startGateway({ stateDir }).then(
      (g) => {
        running.push(g)
        return undefined
      },
      (e: Error) => e.message
    )
    expect(refused).toContain("is empty (0 bytes)")
    expect(fs.readFileSync(file, "utf8")).toBe("")
  }, 90_000)

  it("a state dir that cannot be made (under /proc) fails at once saying so, never spins", async () => {
    const env = { ...baseEnv("/proc/svc-no-such-dir", await freeGatewayPort()) }
    const gateway = await runSvc(["gateway", "run"], env, 20_000)
    expect(gateway.code).not.toBe(0)
    expect(gateway.stderr).toContain("cannot create the folder /proc/svc-no-such-dir")
    expect(gateway.ms).toBeLessThan(10_000)
    const config = await runSvc(["config", "set", "browser.headless", "true"], env, 20_000)
    expect(config.code).not.toBe(0)
    expect(config.stderr).toContain("cannot create the folder /proc/svc-no-such-dir")
  }, 60_000)
})
