// Interleaved A/B of snapshot blobs: node ab.mjs name=/path/to/blob ... → median wall of `browser tabs --json`.
import { spawn } from "node:child_process"
import { startStubGateway } from "../../test/bench/cli-latency.mjs"
const stub = await startStubGateway()
const variants = process.argv.slice(2).map((a) => a.split("="))
const runs = Number(process.env.RUNS ?? 21)
const args = (process.env.ARGS ?? "browser tabs --json").split(" ")
const one = (cmd, argv) => new Promise((res) => {
  const t0 = performance.now()
  const c = spawn(cmd, argv, { env: { ...process.env, ...stub.env } })
  let out = ""; c.stdout.on("data", (d) => (out += d))
  c.on("close", (code) => res(code === 0 ? performance.now() - t0 : NaN))
})
const times = new Map(variants.map(([n]) => [n, []])); times.set("node -e 0", [])
for (let i = 0; i < runs + 2; i++) {
  const b = await one(process.execPath, ["-e", "0"]); if (i >= 2) times.get("node -e 0").push(b)
  for (const [n, blob] of variants) {
    const argv = blob.endsWith(".blob") ? ["--snapshot-blob", blob, "x", ...args] : [blob, ...args]
    const t = await one(blob.endsWith(".blob") || blob.endsWith(".cjs") ? process.execPath : blob, blob.endsWith(".blob") || blob.endsWith(".cjs") ? argv : args)
    if (i >= 2) times.get(n).push(t)
  }
}
for (const [n, t] of times) { t.sort((a, b) => a - b); console.log(`${n}: median ${t[Math.floor(t.length / 2)].toFixed(1)} min ${t[0].toFixed(1)}`) }
await stub.close()
