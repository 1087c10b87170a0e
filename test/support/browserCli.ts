import { expect } from "vitest"
import type { Gateway } from "./gateway.js"

/**
 * `svc browser …` against a test's gateway (read when called: the gateway is started in beforeAll): `ok` runs a
 * command that must succeed and gives its trimmed output; `evaluate` runs a function in the tab and gives its
 * result.
 */
export const browserCli = (gateway: () => Gateway) => {
  const ok = async (...args: ReadonlyArray<string>) => {
    const r = await gateway().svc("browser", ...args)
    expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0)
    return r.stdout.trim()
  }
  const evaluate = async (fn: string) => JSON.parse(await ok("evaluate", "--json", "--fn", fn)).result
  return { ok, evaluate }
}
