import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { describeConfigError, parseConfigText } from "../../../src/config/parse.js"
import { derivePorts, parsePortEnv } from "../../../src/config/locate.js"

const problem = (text: string) => {
  const r = parseConfigText(text, "/state/svc.json")
  if (Either.isRight(r)) throw new Error("expected an error")
  return describeConfigError(r.left)
}

describe("svc.json", () => {
  it("an empty or missing file is an empty config", () => {
    expect(parseConfigText("", "f")).toEqual(Either.right({}))
    expect(parseConfigText("  \n", "f")).toEqual(Either.right({}))
  })

  it("decodes every key of the seed", () => {
    const config = {
      gateway: { port: 18000, auth: { token: "abcdefghijklmnopqrstuvwx", password: "secret-pass" } },
      browser: {
        defaultProfile: "svc",
        executablePath: "/usr/bin/chromium",
        cdpUrl: "http://127.0.0.1:9333",
        profiles: { work: { cdpPort: 18850, color: "#00AA00", attachOnly: true }, far: { cdpUrl: "http://10.0.0.2:9222" } },
        color: "#FF6A00",
        remoteCdpTimeoutMs: 1500,
        remoteCdpHandshakeTimeoutMs: 3000,
        snapshotDefaults: { mode: "efficient" },
        evaluateEnabled: false,
        headless: true,
        noSandbox: true
      }
    }
    expect(parseConfigText(JSON.stringify(config), "f")).toEqual(Either.right(config))
  })

  it("names the key path and what was expected", () => {
    expect(problem('{"gateway":{"port":"abc"}}')).toBe('invalid config /state/svc.json: gateway.port: Expected number, actual "abc"')
    expect(problem('{"browser":{"profiles":{"work":{"cdpPort":70000}}}}')).toContain(
      "browser.profiles.work.cdpPort: expected a whole number from 1 to 65535"
    )
    expect(problem('{"browser":{"color":"orange"}}')).toContain("browser.color: a colour is written #RRGGBB")
    expect(problem('{"browser":{"snapshotDefaults":{"mode":"x"}}}')).toContain(
      'browser.snapshotDefaults.mode: expected one of "ai", "aria", "role", "efficient"; got "x"'
    )
    expect(problem('{"gatway":{}}')).toContain("gatway: unknown key")
    expect(problem("{nope")).toContain("not valid JSON")
    expect(problem("[1]")).toContain("expected a JSON object")
  })
})

describe("ports", () => {
  it("derives the control and relay ports from the gateway port", () => {
    expect(derivePorts()).toEqual({ gateway: 18789, control: 18791, relay: 18792 })
    expect(derivePorts(20000)).toEqual({ gateway: 20000, control: 20002, relay: 20003 })
  })
  it("validates SVC_GATEWAY_PORT", () => {
    expect(parsePortEnv(undefined)).toBeUndefined()
    expect(parsePortEnv("19000")).toBe(19000)
    expect(parsePortEnv("x")).toContain("SVC_GATEWAY_PORT must be a whole number")
    expect(parsePortEnv("65535")).toContain("SVC_GATEWAY_PORT")
  })
})
