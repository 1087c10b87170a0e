// A gateway of a benchmark's own, for running one benchmark file alone: a temp state dir, free ports,
// the managed browser started. Build first (`npm run -s build`).

import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { SVC_BIN } from "./cli-latency.mjs"

const portFree = (p) =>
  new Promise((resolve) => {
    const s = net.createServer()
    s.once("error", () => resolve(false))
    s.listen({ port: p, host: "127.0.0.1" }, () => s.close(() => resolve(true)))
  })

/** `svc <args> --json` with this environment, parsed; rejects with its stderr when it fails. */
export const svcJsonIn = (env) => (args) =>
  new Promise((resolve, reject) => {
    const c = spawn(SVC_BIN, [...args, "--json"], { env, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    let err = ""
    c.stdout.on("data", (d) => (out += d))
    c.stderr.on("data", (d) => (err += d))
    c.once("exit", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(err))))
  })

/** A temp state dir whose svc.json picks the managed profile on a free CDP port, free gateway ports, and the env for them. */
export async function benchState(prefix = "svc-bench-") {
  let port
  do port = 30000 + Math.floor(Math.random() * 9000)
  while (!((await portFree(port)) && (await portFree(port + 2)) && (await portFree(port + 3))))
  let cdpPort
  do cdpPort = 18800 + Math.floor(Math.random() * 100)
  while (!(await portFree(cdpPort)))
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  fs.writeFileSync(path.join(stateDir, "svc.json"), JSON.stringify({ browser: { defaultProfile: "svc", profiles: { svc: { cdpPort } } } }), { mode: 0o600 })
  const env = { ...process.env, SVC_STATE_DIR: stateDir, SVC_GATEWAY_PORT: String(port) }
  return { port, stateDir, env }
}

/** `svc gateway run` with this environment, once it says it is ready. */
export async function spawnGateway(env) {
  const gateway = spawn(SVC_BIN, ["gateway", "run"], { env, stdio: ["ignore", "pipe", "pipe"] })
  await new Promise((resolve, reject) => {
    let out = ""
    const onData = (d) => (out += d, out.includes("svc gateway ready") && resolve())
    gateway.stdout.on("data", onData)
    gateway.stderr.on("data", onData)
    gateway.once("exit", (code) => reject(new Error(`gateway exited ${code}: ${out}`)))
  })
  return gateway
}

export async function startBenchGateway() {
  const { port, stateDir, env } = await benchState()
  const gateway = await spawnGateway(env)
  const svcJson = svcJsonIn(env)
  await svcJson(["browser", "start"])
  const status = await svcJson(["browser", "status"])
  const token = JSON.parse(fs.readFileSync(path.join(stateDir, "svc.json"), "utf8")).gateway.auth.token
  return {
    env,
    svcJson,
    controlPort: port + 2,
    token,
    cdpUrl: status.cdpUrl,
    stop: async () => {
      await new Promise((resolve) => (gateway.exitCode !== null ? resolve() : (gateway.once("exit", resolve), gateway.kill("SIGTERM"))))
      fs.rmSync(stateDir, { recursive: true, force: true })
    }
  }
}
