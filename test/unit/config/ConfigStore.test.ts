import { it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect } from "vitest"
import { ConfigStore } from "../../../src/config/ConfigStore.js"

const withEnv = (env: Record<string, string>) =>
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

const stateDir = (config?: unknown) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-store-"))
  if (config !== undefined) fs.writeFileSync(path.join(dir, "svc.json"), typeof config === "string" ? config : JSON.stringify(config))
  return dir
}

const load = (dir: string, env: Record<string, string> = {}) =>
  Effect.gen(function*() {
    return yield* ConfigStore
  }).pipe(Effect.provide(ConfigStore.Default), withEnv({ SVC_STATE_DIR: dir, ...env }))

describe("ConfigStore", () => {
  it.effect("a missing file is an empty config with the default ports", () =>
    Effect.gen(function*() {
      const store = yield* load(stateDir())
      expect(yield* store.get).toEqual({})
      expect(store.ports).toEqual({ gateway: 18789, control: 18791, relay: 18792 })
    }))

  it.effect("SVC_GATEWAY_PORT overrides gateway.port and shifts both derived ports", () =>
    Effect.gen(function*() {
      const store = yield* load(stateDir({ gateway: { port: 19000 } }), { SVC_GATEWAY_PORT: "20000" })
      expect(store.ports).toEqual({ gateway: 20000, control: 20002, relay: 20003 })
      const fromFile = yield* load(stateDir({ gateway: { port: 19000 } }))
      expect(fromFile.ports.control).toBe(19002)
    }))

  it.effect("an invalid file fails with one message naming the key path", () =>
    Effect.gen(function*() {
      const dir = stateDir({ browser: { profiles: { work: { color: "blue" } } } })
      const error = yield* Effect.flip(load(dir))
      expect(error.message).toBe(
        `invalid config ${path.join(dir, "svc.json")}: browser.profiles.work.color: a colour is written #RRGGBB, for example #FF6A00`
      )
    }))

  it.effect("generates a token when no secret is set, persists it 0600 and keeps every other key", () =>
    Effect.gen(function*() {
      const dir = stateDir('{\n  "browser": { "color": "#112233", "profiles": { "x": { "cdpPort": 18850 } } }\n}')
      const store = yield* load(dir)
      const auth = yield* store.ensureAuth
      expect(auth.generated).toBe(true)
      expect(auth.token!.length).toBeGreaterThanOrEqual(24)
      const file = path.join(dir, "svc.json")
      const saved = JSON.parse(fs.readFileSync(file, "utf8"))
      expect(saved).toEqual({
        browser: { color: "#112233", profiles: { x: { cdpPort: 18850 } } },
        gateway: { auth: { token: auth.token } }
      })
      expect(fs.statSync(file).mode & 0o777).toBe(0o600)
      expect(fs.readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([])
      // Running again reuses it.
      const again = yield* (yield* load(dir)).ensureAuth
      expect(again).toMatchObject({ token: auth.token, generated: false })
    }))

  it.effect("uses a configured password and generates nothing", () =>
    Effect.gen(function*() {
      const dir = stateDir({ gateway: { auth: { password: "a-long-password" } } })
      const auth = yield* (yield* load(dir)).ensureAuth
      expect(auth).toMatchObject({ kind: "password", password: "a-long-password", generated: false })
      expect(JSON.parse(fs.readFileSync(path.join(dir, "svc.json"), "utf8"))).toEqual({
        gateway: { auth: { password: "a-long-password" } }
      })
    }))

  it.effect("refuses an update that would make the file invalid, leaving it untouched", () =>
    Effect.gen(function*() {
      const dir = stateDir({ browser: { color: "#112233" } })
      const store = yield* load(dir)
      const before = fs.readFileSync(path.join(dir, "svc.json"), "utf8")
      const exit = yield* Effect.exit(store.update((raw) => ((raw.browser as Record<string, unknown>).color = "red")))
      expect(Exit.isFailure(exit)).toBe(true)
      expect(fs.readFileSync(path.join(dir, "svc.json"), "utf8")).toBe(before)
      expect(yield* store.get).toEqual({ browser: { color: "#112233" } })
    }))

  it.effect("serialises concurrent updates so none is lost", () =>
    Effect.gen(function*() {
      const dir = stateDir()
      const store = yield* load(dir)
      yield* Effect.forEach(
        Array.from({ length: 20 }, (_, i) => i),
        (i) =>
          store.update((raw) => {
            const browser = (raw.browser ??= {}) as Record<string, Record<string, unknown>>
            const profiles = (browser.profiles ??= {}) as Record<string, unknown>
            profiles[`p${i}`] = { cdpPort: 18800 + i }
          }),
        { concurrency: 5 }
      )
      const saved = JSON.parse(fs.readFileSync(path.join(dir, "svc.json"), "utf8"))
      expect(Object.keys(saved.browser.profiles)).toHaveLength(20)
    }))
})
