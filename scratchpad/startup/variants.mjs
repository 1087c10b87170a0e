// Scratch: median wall time of each way of starting `svc browser tabs --json`, interleaved, against the stub.
import { spawn } from "node:child_process"
import * as path from "node:path"
import { startStubGateway } from "../../test/bench/cli-latency.mjs"
const repo = path.resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..")
const stub = await startStubGateway()
const args = ["browser", "tabs", "--json"]
const n = process.execPath
const flags = JSON.parse((await import("node:fs")).readFileSync(`${repo}/dist/cli.blob.json`, "utf8")).flags.split(" ")
const variants = {
  "node -e 0": [n, ["-e", "0"]],
  "full bundle (node dist/svc.cjs)": [n, [`${repo}/dist/svc.cjs`, ...args]],
  "lean bundle (node dist/cli.cjs)": [n, [`${repo}/dist/cli.cjs`, ...args]],
  "lean bundle + code cache (JS launcher)": [n, [`${repo}/bin/svc-load.cjs`, "cli.cjs", ...args]],
  "snapshot, no launcher": [n, [...flags, "--snapshot-blob", `${repo}/dist/cli.blob`, `${repo}/dist/cli.cjs`, ...args]],
  "bin/svc (sh launcher -> snapshot)": [`${repo}/bin/svc`, args],
  "bin/svc, NODE_OPTIONS set (sh launcher -> code cache)": [`${repo}/bin/svc`, args, { NODE_OPTIONS: "--no-warnings" }]
}
const runs = Number(process.env.RUNS ?? 20)
const one = ([cmd, argv, env = {}]) => new Promise((res) => {
  const t0 = performance.now()
  const c = spawn(cmd, argv, { env: { ...process.env, ...stub.env, ...env } })
  let out = ""; c.stdout.on("data", (d) => (out += d))
  c.on("close", (code) => res(code === 0 && (argv[0] === "-e" || out === stub.expectStdout) ? performance.now() - t0 : NaN))
})
const times = Object.fromEntries(Object.keys(variants).map((k) => [k, []]))
for (let i = 0; i < runs + 2; i++) for (const [k, v] of Object.entries(variants)) { const t = await one(v); if (i >= 2) times[k].push(t) }
const q = (s, p) => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]
for (const [k, t] of Object.entries(times)) { t.sort((a, b) => a - b); console.log(`${q(t, 0.5).toFixed(1).padStart(6)} ms median, p90 ${q(t, 0.9).toFixed(1).padStart(6)}  ${k}`) }
await stub.close()
