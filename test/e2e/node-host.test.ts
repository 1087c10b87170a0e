import { FileSystem } from "@effect/platform"
import { NodeFileSystem, NodeHttpClient } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import type * as net from "node:net"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import WebSocket from "ws"
import { type BrowserToolSession, makeBrowserTool } from "../../src/agent/tool/BrowserTool.js"
import type { ToolResult } from "../../src/agent/tool/toolResult.js"
import { makeControlClientAt } from "../../src/client/ControlClient.js"
import {
  baseEnv,
  freeCdpPort,
  freeGatewayPort,
  type Gateway,
  isPng,
  makeStateDir,
  request,
  startGateway,
  SVC_BIN,
  waitUntil
} from "../support/gateway.js"

// The node host through the real path: a gateway (this machine) and `svc node run` with a state dir of
// its own (the node's machine, its own managed Chromium) dialling it on loopback. The gateway's CLI drives
// the node's browser with --node, files come back into the gateway's media folder, and the node's drops,
// restarts and approval behave as a user of `svc nodes` would expect.

const page = `<!doctype html><title>Node page</title><h1>On the node</h1>
<button onclick="count.textContent = +count.textContent + 1">Add one</button><p>Count: <span id="count">0</span></p>`

/** Test pages, and one URL that never answers (a navigation to it stays in flight), with who asked for it. */
const servePagesWithHang = async () => {
  let hung = 0
  const open: Array<http.ServerResponse> = []
  const server = http.createServer((req, res) => {
    if (req.url === "/hang") {
      hung++
      open.push(res)
      return
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as net.AddressInfo).port
  return {
    url: (p: string) => `http://127.0.0.1:${port}${p}`,
    hung: () => hung,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

interface NodeHost {
  readonly process: ChildProcess
  readonly output: () => string
  /** SIGTERM (its browser stops with it), then the exit code. */
  readonly stop: () => Promise<number | null>
}

const startNode = async (stateDir: string, gatewayPort: number, token: string): Promise<NodeHost> => {
  const env = baseEnv(stateDir, await freeGatewayPort())
  const child = spawn(SVC_BIN, ["node", "run", "--gateway", `ws://127.0.0.1:${gatewayPort}`, "--token", token, "--name", "test-node"], {
    env,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout!.on("data", (d) => (output += d))
  child.stderr!.on("data", (d) => (output += d))
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
  await waitUntil(() => output.includes("svc node: connected to") || child.exitCode !== null, 30_000).catch(() => {})
  if (!output.includes("svc node: connected to")) throw new Error(`the node host did not connect:\n${output}`)
  return {
    process: child,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
      return exited
    }
  }
}

const nodeIdIn = (output: string) => /as node ([0-9a-f]{16})/.exec(output)![1]!

const text = (r: ToolResult) => r.content.filter((c) => c.type === "text").map((c) => (c as { text: string }).text).join("\n")

describe("the node host", () => {
  let gw: Gateway
  let pages: Awaited<ReturnType<typeof servePagesWithHang>>
  let nodeState: string
  let node: NodeHost
  let id: string
  let gatewayPort: number
  /** The tab the approved node opened. */
  let nodeTab: string

  beforeAll(async () => {
    pages = await servePagesWithHang()
    gw = await startGateway({ config: { browser: { defaultProfile: "svc" } } })
    gatewayPort = gw.port
    nodeState = makeStateDir({ browser: { defaultProfile: "svc", profiles: { svc: { cdpPort: await freeCdpPort() } } } })
    node = await startNode(nodeState, gw.port, gw.token())
    id = nodeIdIn(node.output())
  }, 90_000)

  afterAll(async () => {
    await node?.stop()
    await gw?.stop()
    await pages?.close()
  })

  it("a node socket needs the gateway token and is refused to a web page", async () => {
    const refusal = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(`ws://127.0.0.1:${gw.port}/node`, { headers })
        ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0))
        ws.on("open", () => {
          ws.close()
          reject(new Error("the socket was accepted"))
        })
        ws.on("error", reject)
      })
    expect(await refusal({})).toBe(401)
    expect(await refusal({ authorization: "Bearer wrong-token-0123456789" })).toBe(401)
    expect(await refusal({ authorization: `Bearer ${gw.token()}`, origin: "http://127.0.0.1:9" })).toBe(403)
    expect(await refusal({ authorization: `Bearer ${gw.token()}`, host: "evil.example" })).toBe(403)
  }, 30_000)

  it("an unapproved node is listed as pending, and its requests are refused saying how to approve it", async () => {
    const listed = await gw.svc("nodes", "list", "--json")
    expect(listed.code, listed.stderr).toBe(0)
    expect(JSON.parse(listed.stdout).nodes).toEqual([
      expect.objectContaining({
        id,
        status: "pending",
        name: "test-node",
        connected: true,
        capabilities: ["browser"],
        profiles: expect.arrayContaining(["svc"]),
        defaultProfile: "svc"
      })
    ])
    const refused = await gw.svc("browser", "tabs", "--node", id)
    expect(refused.code).toBe(1)
    expect(refused.stderr.trim()).toBe(
      `svc: node ${id} (test-node) is waiting for approval: run \`svc nodes approve ${id}\` on the gateway's machine`
    )
    const auth = { authorization: `Bearer ${gw.token()}` }
    const raw = await request(gw.controlPort, "GET", `/tabs?node=${id}`, auth)
    expect(raw.status).toBe(403)
    expect(raw.json()._tag).toBe("Forbidden")
    // A node= that is no id, or names no node, is refused at once; the gateway's own routes are never forwarded.
    const bad = await request(gw.controlPort, "GET", "/tabs?node=mac", auth)
    expect(bad.status).toBe(400)
    expect(bad.json().message).toContain("node: expected a node id")
    const unknown = await request(gw.controlPort, "GET", "/tabs?node=0123456789abcdef", auth)
    expect(unknown.status).toBe(404)
    expect(unknown.json().message).toContain("no node 0123456789abcdef is known")
    const own = await request(gw.controlPort, "GET", `/nodes?node=${id}`, auth)
    expect(own.status).toBe(200)
    expect(own.json().nodes[0].id).toBe(id)
    // Without the gateway's credentials, nothing is forwarded.
    expect((await request(gw.controlPort, "GET", `/tabs?node=${id}`)).status).toBe(401)
    // Nothing ran on the node: its browser was never launched.
    expect(fs.existsSync(path.join(nodeState, "browser", "svc", "user-data"))).toBe(false)
  }, 30_000)

  it("once approved: a page opened on the node's browser, snapshot, click by ref, screenshot as a file in the gateway's media folder", async () => {
    const approved = await gw.svc("nodes", "approve", id)
    expect(approved.code, approved.stderr).toBe(0)
    expect(approved.stdout).toContain(`approved node ${id} (test-node)`)
    await waitUntil(() => node.output().includes("was approved"), 10_000)

    const opened = await gw.svc("browser", "open", pages.url("/page"), "--node", id, "--json")
    expect(opened.code, opened.stderr).toBe(0)
    const targetId = JSON.parse(opened.stdout).targetId as string
    nodeTab = targetId
    // The node's machine launched its managed browser; the gateway's own never started.
    expect(fs.existsSync(path.join(nodeState, "browser", "svc", "user-data"))).toBe(true)
    const own = await gw.svc("browser", "status", "--json")
    expect(JSON.parse(own.stdout).running).toBe(false)

    const snap = await gw.svc("browser", "snapshot", "--node", id, "--target-id", targetId)
    expect(snap.code, snap.stderr).toBe(0)
    const ref = /button "Add one" \[ref=(\w+)\]/.exec(snap.stdout)?.[1]
    expect(ref, snap.stdout).toBeDefined()
    const click = await gw.svc("browser", "click", ref!, "--node", id, "--target-id", targetId)
    expect(click.code, click.stderr).toBe(0)
    const count = await gw.svc("browser", "evaluate", "() => document.getElementById('count').textContent", "--node", id, "--target-id", targetId)
    expect(count.stdout.trim()).toBe('"1"')

    const shot = await gw.svc("browser", "screenshot", "--node", id, "--target-id", targetId)
    expect(shot.code, shot.stderr).toBe(0)
    const file = /^MEDIA:(.+)$/m.exec(shot.stdout)![1]!
    expect(file.startsWith(path.join(gw.stateDir, "media") + path.sep)).toBe(true)
    expect(isPng(file)).toMatchObject({ width: expect.any(Number), height: expect.any(Number) })
    expect(fs.statSync(file).mode & 0o077).toBe(0)
    // A PDF and a trace the node wrote come back the same way.
    const pdf = await gw.svc("browser", "pdf", "--node", id, "--target-id", targetId)
    expect(pdf.code, pdf.stderr).toBe(0)
    const pdfFile = /^MEDIA:(.+)$/m.exec(pdf.stdout)![1]!
    expect(pdfFile.startsWith(path.join(gw.stateDir, "media") + path.sep)).toBe(true)
    expect(fs.readFileSync(pdfFile).subarray(0, 5).toString()).toBe("%PDF-")
    expect((await gw.svc("browser", "trace", "start", "--node", id, "--target-id", targetId)).code).toBe(0)
    const trace = await gw.svc("browser", "trace", "stop", "--node", id, "--target-id", targetId)
    expect(trace.code, trace.stderr).toBe(0)
    const traceFile = /^TRACE:(.+)$/m.exec(trace.stdout)![1]!
    expect(traceFile.startsWith(path.join(gw.stateDir, "media") + path.sep)).toBe(true)
    expect(fs.statSync(traceFile).size).toBeGreaterThan(0)
    // Without --node, the same command is the gateway's own browser: never the node's tab.
    const ownTabs = await gw.svc("browser", "tabs", "--json")
    expect(ownTabs.stdout).not.toContain(targetId)
  }, 90_000)

  it("auto-routing: the browser tool without a target goes to the one approved browser node", async () => {
    const tool = await Effect.runPromise(
      Effect.gen(function*() {
        const { client } = yield* makeControlClientAt({
          baseUrl: `http://127.0.0.1:${gw.controlPort}`,
          headers: { authorization: `Bearer ${gw.token()}` }
        })
        const fs = yield* FileSystem.FileSystem
        return makeBrowserTool(client, (p) => fs.readFile(p))
      }).pipe(Effect.provide(Layer.merge(NodeHttpClient.layer, NodeFileSystem.layer)))
    )
    // No nodes given: the tool asks the gateway, as the MCP server's does.
    const session: BrowserToolSession = { sandboxed: false, allowHostControl: false, nodesMode: "auto" }
    const call = (params: unknown, s = session) => Effect.runPromise(tool.run(params, s))

    const tabs = await call({ action: "tabs" })
    expect(tabs.isError, text(tabs)).toBe(false)
    expect(text(tabs)).toContain(pages.url("/page"))
    const shot = await call({ action: "screenshot" })
    expect(shot.isError, text(shot)).toBe(false)
    expect(text(shot)).toContain(path.join(gw.stateDir, "media"))
    expect(Buffer.from((shot.content.find((c) => c.type === "image") as { data: Uint8Array }).data).toString("hex", 0, 8))
      .toBe("89504e470d0a1a0a")
    // Pinned to the host, or with node browsers switched off: the gateway's own browser (no node tab there).
    const host = await call({ action: "tabs", target: "host" })
    expect(text(host)).not.toContain(pages.url("/page"))
    const off = await call({ action: "tabs" }, { ...session, nodesMode: "off" })
    expect(text(off)).not.toContain(pages.url("/page"))
    // Named explicitly.
    const named = await call({ action: "tabs", node: id })
    expect(text(named)).toContain(pages.url("/page"))
    const unknown = await call({ action: "tabs", node: "0000000000000000" })
    expect(unknown.isError).toBe(true)
    expect(text(unknown)).toContain(`no node "0000000000000000" is connected (browser nodes: ${id})`)
  }, 60_000)

  it("a node killed mid-request fails that request at once; a request to the gone node fails at once saying so", async () => {
    const before = pages.hung()
    const inFlight = gw.svc("browser", "navigate", pages.url("/hang"), "--node", id)
    await waitUntil(() => pages.hung() > before, 15_000)
    const killedAt = performance.now()
    node.process.kill("SIGKILL")
    const failed = await inFlight
    const tookMs = performance.now() - killedAt
    expect(failed.code).toBe(1)
    expect(failed.stderr).toContain(`node ${id} (test-node) disconnected while the request was in flight`)
    expect(tookMs).toBeLessThan(5_000)

    const gone = await gw.svc("browser", "tabs", "--node", id)
    expect(gone.code).toBe(1)
    expect(gone.stderr).toContain(`node ${id} (test-node) is not connected`)
    expect(gone.ms).toBeLessThan(5_000)
    const listed = JSON.parse((await gw.svc("nodes", "list", "--json")).stdout).nodes
    expect(listed).toEqual([expect.objectContaining({ id, status: "approved", connected: false })])
  }, 60_000)

  it("a restarted node keeps its identity and its approval; a dropped connection is dialled again", async () => {
    node = await startNode(nodeState, gatewayPort, gw.token())
    expect(nodeIdIn(node.output())).toBe(id)
    expect(node.output()).toContain(`as node ${id} (approved)`)
    // The browser the killed node left running is taken over: the same tabs.
    const tabs = await gw.svc("browser", "tabs", "--node", id, "--json")
    expect(tabs.code, tabs.stderr).toBe(0)
    const ids = (out: string) => (JSON.parse(out).tabs as Array<{ targetId: string }>).map((t) => t.targetId)
    expect(ids(tabs.stdout)).toContain(nodeTab)

    // The gateway goes away and comes back on the same port: the node dials again by itself.
    await gw.stop()
    const connections = () => node.output().split("svc node: connected to").length - 1
    const seen = connections()
    gw = await startGateway({ stateDir: gw.stateDir, env: { SVC_GATEWAY_PORT: String(gatewayPort) } })
    await waitUntil(() => connections() > seen, 30_000)
    const again = await gw.svc("browser", "tabs", "--node", id, "--json")
    expect(again.code, again.stderr).toBe(0)
    expect(ids(again.stdout)).toEqual(ids(tabs.stdout))
  }, 90_000)

  it("revoked: disconnected, and pending again when it reconnects", async () => {
    const revoked = await gw.svc("nodes", "revoke", id)
    expect(revoked.code, revoked.stderr).toBe(0)
    await waitUntil(() => node.output().includes("waiting for approval"), 20_000)
    const refused = await gw.svc("browser", "tabs", "--node", id)
    expect(refused.stderr).toContain(`svc nodes approve ${id}`)
    // Neither side ever printed the gateway token.
    expect(node.output()).not.toContain(gw.token())
    expect(gw.output()).not.toContain(gw.token())
  }, 60_000)

  it("nodeHost.browserProxy.enabled false: the node announces no browser and refuses browser requests", async () => {
    const other = await startNode(makeStateDir({ nodeHost: { browserProxy: { enabled: false } } }), gatewayPort, gw.token())
    try {
      const otherId = nodeIdIn(other.output())
      expect(otherId).not.toBe(id)
      expect((await gw.svc("nodes", "approve", otherId)).code).toBe(0)
      const listed = JSON.parse((await gw.svc("nodes", "list", "--json")).stdout).nodes
      expect(listed.find((n: { id: string }) => n.id === otherId)).toMatchObject({ status: "approved", connected: true, capabilities: [], profiles: [] })
      const refused = await gw.svc("browser", "tabs", "--node", otherId)
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain("nodeHost.browserProxy.enabled is false")
    } finally {
      await other.stop()
    }
  }, 60_000)
})
