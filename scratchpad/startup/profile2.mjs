// Scratch: CPU profile of one snapshot run (non-minified, same plugins as the build), self time by area.
import * as esbuild from "esbuild"
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import { memoiseDependencies } from "../../scripts/memoise.mjs"
const dir = "/tmp/prof2"; fs.rmSync(dir, { recursive: true, force: true }); fs.mkdirSync(dir)
const r = await esbuild.build({ entryPoints: ["src/entry/cli.ts"], bundle: true, platform: "node", format: "cjs", target: "node20", outfile: `${dir}/cli.cjs`, external: ["playwright-core"], logLevel: "error", metafile: true, plugins: [memoiseDependencies({ root: process.cwd(), warn: console.warn })] })
execFileSync(process.execPath, ["--snapshot-blob", `${dir}/cli.blob`, "--build-snapshot", "cli.cjs"], { cwd: dir, stdio: "ignore" })
const args = process.argv.slice(2).length ? process.argv.slice(2) : ["browser", "tabs", "--json"]
// map output line → input file, from esbuild's "// path" comments in non-minified output
const lines = fs.readFileSync(`${dir}/cli.cjs`, "utf8").split("\n"); const lineFile = []; let cur = "?"
for (const l of lines) { const m = /^\/\/ (\S+\.(?:js|ts|mjs|cjs))$/.exec(l); if (m) cur = m[1]; lineFile.push(cur) }
const area = (f) => { const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f); return m ? m[1] : f.split("/").slice(0, 2).join("/") }
const totals = new Map(); let runs = Number(process.env.N ?? 5)
for (let i = 0; i < runs; i++) {
  spawnSync(process.execPath, ["--cpu-prof", "--cpu-prof-dir", dir, "--cpu-prof-interval", "100", "--snapshot-blob", `${dir}/cli.blob`, "x", ...args], { stdio: "ignore" })
}
for (const f of fs.readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"))) {
  const p = JSON.parse(fs.readFileSync(`${dir}/${f}`)); const byId = new Map(p.nodes.map((n) => [n.id, n]))
  for (let i = 0; i < p.samples.length; i++) {
    const n = byId.get(p.samples[i]); const u = n.callFrame.url
    const k = u.endsWith("cli.cjs") ? area(lineFile[n.callFrame.lineNumber] ?? "?") : u === "" ? n.callFrame.functionName : "node:" + u.replace(/^node:/, "").split("/")[0]
    totals.set(k, (totals.get(k) ?? 0) + (p.timeDeltas[i + 1] ?? 0) / runs)
  }
}
const sum = [...totals.values()].reduce((a, b) => a + b, 0)
console.log("total ms per run", (sum / 1000).toFixed(1))
for (const [k, v] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log((v / 1000).toFixed(2), k)
if (process.env.DETAIL) {
  const t2 = new Map()
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"))) {
    const p = JSON.parse(fs.readFileSync(`${dir}/${f}`)); const byId = new Map(p.nodes.map((n) => [n.id, n]))
    for (let i = 0; i < p.samples.length; i++) {
      const n = byId.get(p.samples[i]); const u = n.callFrame.url
      if (!(u.endsWith("cli.cjs") ? area(lineFile[n.callFrame.lineNumber] ?? "?") : u).startsWith(process.env.DETAIL)) continue
      const k = `${n.callFrame.functionName} ${u}:${n.callFrame.lineNumber}`
      t2.set(k, (t2.get(k) ?? 0) + (p.timeDeltas[i + 1] ?? 0) / runs)
    }
  }
  for (const [k, v] of [...t2].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log((v / 1000).toFixed(2), k)
}
