import { it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect } from "vitest"
import { locateConfigFile, locatePorts, locateStatePaths } from "../../../src/config/locate.js"

const withEnv = (env: Record<string, string>) =>
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

describe("locate", () => {
  it.effect("the state dir is SVC_STATE_DIR (resolved), else ~/.svc", () =>
    Effect.gen(function*() {
      const paths = yield* locateStatePaths.pipe(withEnv({ SVC_STATE_DIR: "/tmp/svc-x/../svc-y" }))
      expect(paths.stateDir).toBe("/tmp/svc-y")
      expect(yield* locateConfigFile.pipe(withEnv({ SVC_STATE_DIR: "/tmp/svc-y" }))).toBe("/tmp/svc-y/svc.json")
      expect((yield* locateStatePaths.pipe(withEnv({ SVC_STATE_DIR: " " }))).stateDir).toBe(path.join(os.homedir(), ".svc"))
    }))

  it.effect("the gateway port is SVC_GATEWAY_PORT, else gateway.port, else 18789; the others sit above it", () =>
    Effect.gen(function*() {
      expect(yield* locatePorts({}).pipe(withEnv({}))).toEqual({ gateway: 18789, control: 18791, relay: 18792 })
      expect((yield* locatePorts({ gateway: { port: 19000 } }).pipe(withEnv({}))).control).toBe(19002)
      const env = withEnv({ SVC_GATEWAY_PORT: "20000" })
      expect((yield* locatePorts({ gateway: { port: 19000 } }).pipe(env)).relay).toBe(20003)
      const e = yield* Effect.flip(locatePorts({}).pipe(withEnv({ SVC_GATEWAY_PORT: "65534" })))
      expect([e._tag, e.message]).toEqual(["PortEnvError", expect.stringContaining("SVC_GATEWAY_PORT must be a whole number")])
    }))
})
