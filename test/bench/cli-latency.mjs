// Wall time of `svc browser tabs --json` against a running gateway, with `node -e 0` measured in the same
// run as the baseline. The lead's test/bench/run.mjs calls `measureCliLatency` against the real gateway;
// `node test/bench/cli-latency.mjs` measures against a stub control server on a loopback port.

import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
export const SVC_BIN = path.join(root, "bin", "svc")

/** One run of a command: wall time from spawn to exit, what it printed, how it ended. */
const timeRun = (command, args, env) =>
  new Promise((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (c) => (stdout += c))
    child.stderr.setEncoding("utf8").on("data", (c) => (stderr += c))
    child.once("error", reject)
    child.once("close", (code, signal) => resolve({ ms: performance.now() - t0, code, signal, stdout, stderr }))
  })

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]

/**
 * `runs` timed runs of `svc <args>` (default `browser tabs --json`) and of `node -e 0`, interleaved so
 * both see the same machine load, after `warmup` untimed runs of each. `env` must point the CLI at a
 * running gateway (SVC_STATE_DIR with a token, and the port). Every svc run must exit 0 (and print
 * `expectStdout` exactly, when given), or this throws: a benchmark of an error path measures nothing.
 */
export async function measureCliLatency({
  env,
  runs = 20,
  warmup = 2,
  args = ["browser", "tabs", "--json"],
  svc = SVC_BIN,
  expectStdout
}) {
  const fullEnv = { ...process.env, ...env }
  const svcTimes = []
  const baseTimes = []
  for (let i = 0; i < warmup + runs; i++) {
    const base = await timeRun(process.execPath, ["-e", "0"], fullEnv)
    const run = await timeRun(svc, args, fullEnv)
    if (run.code !== 0 || (expectStdout !== undefined && run.stdout !== expectStdout)) {
      throw new Error(
        `svc ${args.join(" ")} exited ${run.code ?? run.signal}; stdout ${JSON.stringify(run.stdout.slice(0, 300))}, ` +
          `stderr ${JSON.stringify(run.stderr.slice(0, 300))}`
      )
    }
    if (i < warmup) continue
    svcTimes.push(run.ms)
    baseTimes.push(base.ms)
  }
  svcTimes.sort((a, b) => a - b)
  baseTimes.sort((a, b) => a - b)
  const medianMs = quantile(svcTimes, 0.5)
  const baselineMs = quantile(baseTimes, 0.5)
  const round = (x) => Math.round(x * 10) / 10
  return {
    medianMs: round(medianMs),
    p90Ms: round(quantile(svcTimes, 0.9)),
    baselineMs: round(baselineMs),
    ratio: Math.round((medianMs / baselineMs) * 100) / 100
  }
}

/** The gateway's view of a tab list, as the stub serves it. */
export const STUB_TABS = {
  profile: "svc",
  tabs: [
    { index: 0, targetId: "5B1C7E2A9F", title: "Example Domain", url: "https://example.com/", type: "page", current: true },
    { index: 1, targetId: "77D0A1B3C4", title: "", url: "about:blank", type: "page", current: false }
  ]
}

/**
 * A stub control server on a free loopback port and a state dir whose svc.json points at it (gateway
 * port = control port - 2) with a token. Answers GET /tabs with STUB_TABS when the token matches.
 */
export async function startStubGateway({ token = "stub-token-0123456789abcdefghij", body = STUB_TABS } = {}) {
  const requests = []
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method, url: req.url, headers: req.headers })
    const json = (status, value) => {
      res.writeHead(status, { "content-type": "application/json" })
      res.end(JSON.stringify(value))
    }
    if (req.headers.authorization !== `Bearer ${token}`) return json(401, { _tag: "Unauthorized", message: "bad token" })
    if (req.method === "GET" && req.url.split("?")[0] === "/tabs") return json(200, body)
    json(404, { _tag: "NotFound", message: `no route ${req.method} ${req.url}` })
  })
  // The gateway port (control - 2) must be a valid port too.
  for (;;) {
    await new Promise((resolve, reject) => {
      server.once("error", reject)
      server.listen(0, "127.0.0.1", () => resolve())
    })
    if (server.address().port > 3) break
    await new Promise((r) => server.close(r))
  }
  const controlPort = server.address().port
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-"))
  fs.writeFileSync(
    path.join(stateDir, "svc.json"),
    JSON.stringify({ gateway: { port: controlPort - 2, auth: { token } } }, null, 2)
  )
  return {
    controlPort,
    stateDir,
    requests,
    env: { SVC_STATE_DIR: stateDir },
    expectStdout: JSON.stringify(body, null, 2) + "\n",
    close: async () => {
      await new Promise((r) => server.close(r))
      fs.rmSync(stateDir, { recursive: true, force: true })
    }
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const runs = Number(process.env.RUNS ?? 20)
  const stub = await startStubGateway()
  try {
    const r = await measureCliLatency({ env: stub.env, runs, expectStdout: stub.expectStdout })
    console.log(
      `svc browser tabs --json (stub gateway): median ${r.medianMs} ms, p90 ${r.p90Ms} ms; ` +
        `node -e 0: ${r.baselineMs} ms; ratio ${r.ratio}`
    )
  } finally {
    await stub.close()
  }
}
