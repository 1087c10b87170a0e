import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect } from "vitest"
import { GatewayRunner } from "../../../src/gateway/GatewayRunner.js"
import { runCli } from "../../../src/cli/main.js"
import { ConfigStore } from "../../../src/config/ConfigStore.js"
import { browserServices } from "../../../src/browser/layer.js"
import { ControlServerLive } from "../../../src/gateway/layers.js"
import { makeFakeWorld } from "../../support/fakeBrowser.js"
import { freeGatewayPort } from "../../support/gateway.js"
import { makeMockConsole } from "../../support/mockConsole.js"

// The CLI's command tree run with an argv array and a mock console, against the real control server on
// a loopback port (its browser leaves faked): parsing, the typed client, output and exit codes.

const token = "cli-test-token-0123456789abcdef"

const withGateway = <A, E>(body: (cli: (...args: Array<string>) => Effect.Effect<{ code: number; out: string; err: string }>) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-cli-"))
    fs.writeFileSync(path.join(dir, "svc.json"), JSON.stringify({ gateway: { auth: { token } }, browser: { defaultProfile: "svc" } }))
    const port = yield* Effect.promise(() => freeGatewayPort())
    const env = ConfigProvider.fromMap(new Map([["SVC_STATE_DIR", dir], ["SVC_GATEWAY_PORT", String(port)]]))
    const world = makeFakeWorld()
    const server = ControlServerLive({ port: port + 2, credentials: { token, password: undefined } }).pipe(
      Layer.provide(browserServices(world.layer)),
      Layer.provide(ConfigStore.Default),
      Layer.provide(Layer.setConfigProvider(env))
    )
    yield* Layer.build(server)
    const cli = (...args: Array<string>) =>
      Effect.gen(function*() {
        const mock = makeMockConsole()
        const code = yield* runCli(["node", "svc", ...args]).pipe(
          Effect.withConsole(mock.console),
          Effect.withConfigProvider(env),
          Effect.provide(Layer.mergeAll(
            NodeContext.layer,
            NodeHttpClient.layer,
            Layer.succeed(GatewayRunner, { run: () => Effect.void })
          ))
        )
        return { code, out: mock.out.join("\n"), err: mock.err.join("\n") }
      })
    return yield* body(cli)
  })

describe("svc CLI commands", () => {
  it.scopedLive("--json prints exactly the API's JSON; human output is short", () =>
    withGateway((cli) =>
      Effect.gen(function*() {
        const opened = yield* cli("browser", "open", "https://example.com/", "--json")
        expect(opened.code).toBe(0)
        const tab = JSON.parse(opened.out)
        expect(tab).toEqual({ index: 1, targetId: expect.any(String), title: "", url: "https://example.com/", type: "page", current: true })

        const tabs = yield* cli("browser", "tabs", "--json")
        expect(JSON.parse(tabs.out)).toEqual({
          profile: "svc",
          tabs: [
            { index: 0, targetId: expect.any(String), title: "", url: "about:blank", type: "page", current: false },
            { ...tab }
          ]
        })
        const human = yield* cli("browser", "tabs")
        expect(human.out.split("\n")).toEqual([
          expect.stringMatching(/^  0  T\d+  \(untitled\)  about:blank$/),
          `* 1  ${tab.targetId}  (untitled)  https://example.com/`
        ])

        const shot = yield* cli("browser", "screenshot")
        expect(shot.out).toMatch(/^MEDIA:\/.+\.png$/)
        const snap = yield* cli("browser", "snapshot", "--format", "aria")
        expect(snap.out).toBe('- document "https://example.com/"')

        // The human line names the new tab's index with its targetId.
        const newTab = yield* cli("browser", "tab", "new")
        expect(newTab.out).toMatch(/^opened tab 2  T\d+  about:blank$/)
      })))

  it.scopedLive("failures are one line on stderr and a non-zero exit code", () =>
    withGateway((cli) =>
      Effect.gen(function*() {
        const unknown = yield* cli("browser", "tabs", "--browser-profile", "ghost")
        expect(unknown).toEqual({ code: 1, out: "", err: 'svc: unknown browser profile "ghost"; known profiles: svc, relay, sandbox' })
        const badName = yield* cli("browser", "tabs", "--browser-profile", "../etc")
        expect(badName.code).not.toBe(0)
        const badIndex = yield* cli("browser", "tab", "close", "7")
        expect(badIndex.code).toBe(1)
        expect(badIndex.err).toBe(
          "svc: no tab at index 7 (closed, or never opened; indices are not reused): the open tabs are 0 (`svc browser tab` lists them)"
        )
      })))

  it.scopedLive("a wrong token is refused with the server's message", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-cli-"))
      fs.writeFileSync(path.join(dir, "svc.json"), JSON.stringify({ gateway: { auth: { token: "wrong-token-0123456789abcdef" } } }))
      const port = yield* Effect.promise(() => freeGatewayPort())
      const env = ConfigProvider.fromMap(new Map([["SVC_STATE_DIR", dir], ["SVC_GATEWAY_PORT", String(port)]]))
      const server = ControlServerLive({ port: port + 2, credentials: { token, password: undefined } }).pipe(
        Layer.provide(browserServices(makeFakeWorld().layer)),
        Layer.provide(ConfigStore.Default),
        Layer.provide(Layer.setConfigProvider(env))
      )
      yield* Layer.build(server)
      const mock = makeMockConsole()
      const code = yield* runCli(["node", "svc", "browser", "status"]).pipe(
        Effect.withConsole(mock.console),
        Effect.withConfigProvider(env),
        Effect.provide(Layer.mergeAll(NodeContext.layer, NodeHttpClient.layer, Layer.succeed(GatewayRunner, { run: () => Effect.void })))
      )
      expect(code).toBe(1)
      expect(mock.err).toEqual(["svc: invalid credentials: the token or password does not match gateway.auth in svc.json"])
    }))
})
