import { Effect } from "effect"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { makePairingStore } from "../../src/msgbridge/store/PairingStore.js"
import { baseEnv, freeGatewayPort, makeStateDir, runSvc } from "../support/gateway.js"

// `svc pairing list|approve msgbridge` through bin/svc, on the same store the gateway writes.

describe("svc pairing", () => {
  it("lists pending codes and approves one into the allowlist", async () => {
    const stateDir = makeStateDir()
    const env = baseEnv(stateDir, await freeGatewayPort())
    const store = makePairingStore({ credentialsDir: path.join(stateDir, "credentials") })
    const { code } = await Effect.runPromise(store.request("+1 (555) 123-0001", "iMessage;-;+15551230001"))

    const listed = JSON.parse((await runSvc(["pairing", "list", "msgbridge", "--json"], env)).stdout)
    expect(listed.pending).toEqual([expect.objectContaining({ code, sender: "+15551230001" })])
    const human = await runSvc(["pairing", "list", "msgbridge"], env)
    expect(human.stdout).toMatch(new RegExp(`^${code}  \\+15551230001  \\d+s ago`))

    const approved = await runSvc(["pairing", "approve", "msgbridge", code.toLowerCase()], env)
    expect(approved.code).toBe(0)
    expect(approved.stdout).toContain("approved +15551230001")
    expect(await Effect.runPromise(store.isApproved("+15551230001"))).toBe(true)
    expect(JSON.parse((await runSvc(["pairing", "list", "msgbridge", "--json"], env)).stdout).pending).toEqual([])

    const unknown = await runSvc(["pairing", "approve", "msgbridge", "ZZZZZZZZ"], env)
    expect(unknown.code).not.toBe(0)
    expect(unknown.stderr.trim().split("\n")).toHaveLength(1)
    expect(unknown.stderr).toContain("svc pairing list msgbridge")
  })
})
