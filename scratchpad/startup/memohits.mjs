// Scratch: how often the memoised dependency helpers compute (miss) in a snapshot run.
import * as esbuild from "esbuild"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import { memoiseDependencies } from "../../scripts/memoise.mjs"
const dir = "/tmp/memohits"; fs.mkdirSync(dir, { recursive: true })
const count = { name: "count", setup(b) { b.onEnd(() => {}) } }
await esbuild.build({ entryPoints: ["src/entry/cli.ts"], bundle: true, platform: "node", format: "cjs", target: "node20", outfile: `${dir}/cli.cjs`, external: ["playwright-core"], logLevel: "error", plugins: [memoiseDependencies({ root: process.cwd(), warn: console.warn }), count] })
let s = fs.readFileSync(`${dir}/cli.cjs`, "utf8")
s = s.replace(/if \((\w+) === void 0\) inner\.set\(b, \w+ = f\(a, b\)\);/g, (m, v) => `if (${v} === void 0) { if (globalThis.__misses) globalThis.__misses.push(f.name); inner.set(b, ${v} = f(a, b)); }`)
s = s.replace("setDeserializeMainFunction(() => {", 'setDeserializeMainFunction(() => { globalThis.__misses = []; process.on("exit", () => process.stderr.write("misses " + JSON.stringify(globalThis.__misses.reduce((m, k) => (m[k] = (m[k] ?? 0) + 1, m), {})) + "\\n"));')
fs.writeFileSync(`${dir}/cli.cjs`, s)
execFileSync(process.execPath, ["--snapshot-blob", `${dir}/cli.blob`, "--build-snapshot", "cli.cjs"], { cwd: dir, stdio: "ignore" })
for (const args of [["--version"], ["browser", "tabs", "--json"]]) {
  try { execFileSync(process.execPath, ["--snapshot-blob", `${dir}/cli.blob`, "x", ...args], { stdio: ["ignore", "ignore", "inherit"] }) } catch {}
}
