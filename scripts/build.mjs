// Builds dist/: the full bundle (svc.cjs), the lean CLI bundle (cli.cjs) and, from it, the V8 start-up
// snapshot cli.blob that bin/svc starts `svc ...` from. Runs in `prepare` and in the test globalSetup, so it
// is quick and idempotent: an unchanged bundle is not rewritten and its snapshot is not rebuilt.
//
// A snapshot blob only loads in the node binary that built it, with the V8 flags it was built with:
// cli.blob.json records which binary (version, path, inode, size) and which flags, and cli.blob.id holds
// the two lines bin/svc reads before using the blob: "inode size" of that binary, then the flags.
// When the snapshot cannot be built (another node, a builtin that is not snapshot-safe), the build warns
// and goes on: bin/svc then starts the lean bundle through its code-cache loader.

import * as esbuild from "esbuild"
import { spawnSync } from "node:child_process"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import { isBuiltin } from "node:module"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { memoiseDependencies } from "./memoise.mjs"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const dist = path.join(root, "dist")
const started = performance.now()
const quiet = process.argv.includes("--quiet")
const log = (line) => quiet || console.log(`build: ${line}`)
const warn = (line) => console.warn(`build: warning: ${line}`)

// Builtins a snapshot-building script may load at its top level (node 20 loads them without the "not yet
// fully verified" warning; `node:http` even aborts the build). Anything else must be loaded lazily, at run
// time: see `builtin` in src/platform/builtin.ts.
const SNAPSHOT_SAFE_BUILTINS = new Set([
  "assert", "buffer", "console", "constants", "crypto", "dns", "events", "fs", "fs/promises", "os", "path",
  "path/posix", "path/win32", "process", "querystring", "stream", "stream/promises", "string_decoder",
  "timers", "url", "util", "util/types", "v8", "zlib"
])

const common = {
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  minify: true,
  legalComments: "none",
  logLevel: "warning",
  metafile: true,
  write: false,
  absWorkingDir: root,
  // The automation library stays a runtime dependency of the gateway; ws's optional native helpers too. So do
  // the model providers' tokenizers (1.7 MB, about 40% of the gateway bundle, read and handed to V8 on every
  // start): their modules load only when the agent's provider does, and then require them from node_modules.
  external: ["playwright-core", "bufferutil", "utf-8-validate", "gpt-tokenizer", "@anthropic-ai/tokenizer"]
}

// A source map for the gateway (node --enable-source-maps dist/svc.cjs); the CLI's failures are one line.
const bundles = [
  { name: "svc.cjs", entry: "src/entry/svc.ts", lean: false, sourcemap: "external", plugins: [memoiseDependencies({ root, warn })] },
  { name: "cli.cjs", entry: "src/entry/cli.ts", lean: true, sourcemap: false, plugins: [memoiseDependencies({ root, warn })] }
]

const settled = await Promise.allSettled(
  bundles.map((b) =>
    esbuild.build({
      ...common,
      sourcemap: b.sourcemap,
      plugins: b.plugins,
      entryPoints: [b.entry],
      outfile: path.join(dist, b.name)
    })
  )
)

/** The builtins and packages a bundle still requires at its top level (what esbuild left external). */
const externalImports = (result) =>
  Object.values(result.metafile.outputs).flatMap((o) => o.imports.filter((i) => i.external).map((i) => i.path))

// A bundle that fails does not stop the other one (nor the snapshot); the build still fails at the end.
const failures = []
const results = []
let unsafeBuiltins = []
bundles.forEach((b, i) => {
  const s = settled[i]
  if (s.status === "rejected") {
    failures.push(`${b.entry} did not bundle (esbuild's errors are above)`)
    return
  }
  if (b.lean) {
    const imports = externalImports(s.value)
    const inputs = Object.keys(s.value.metafile.inputs)
    if (imports.some((p) => p.startsWith("playwright-core")) || inputs.some((p) => p.includes("node_modules/playwright-core/"))) {
      failures.push(`${b.entry} must not load playwright-core (the CLI never drives the browser itself)`)
      return
    }
    const packages = imports.filter((p) => !isBuiltin(p))
    if (packages.length > 0) {
      failures.push(`${b.entry} requires packages at run time: ${packages.join(", ")}`)
      return
    }
    unsafeBuiltins = [...new Set(imports.map((p) => p.replace(/^node:/, "")))].filter((p) => !SNAPSHOT_SAFE_BUILTINS.has(p))
  }
  // Nothing uses undici; @effect/platform-node's index brings it along (and evaluates it on every start).
  const bundled = Object.values(s.value.metafile.outputs).flatMap((o) => Object.entries(o.inputs).filter(([, i]) => i.bytesInOutput > 0))
  if (bundled.some(([p]) => p.includes("node_modules/undici/"))) {
    failures.push(`${b.entry} bundles undici: import @effect/platform-node's modules by path ("@effect/platform-node/NodeHttpClient"), not from its index`)
    return
  }
  results.push(s.value)
})

// Write only what changed, so an unchanged build keeps its snapshot and code caches.
fs.mkdirSync(dist, { recursive: true })
const changed = new Set()
for (const result of results) {
  for (const file of result.outputFiles) {
    let same = false
    try {
      same = fs.readFileSync(file.path).equals(Buffer.from(file.contents))
    } catch {}
    if (same) continue
    writeAtomic(file.path, file.contents)
    changed.add(path.basename(file.path))
  }
}
// Code caches (bin/svc-load.cjs) of bundles that changed are dead weight now.
for (const f of fs.readdirSync(dist)) {
  const m = /^(.+\.cjs)\..+\.cache$/.exec(f)
  if (m !== null && changed.has(m[1])) fs.rmSync(path.join(dist, f), { force: true })
}
log(`bundles ${changed.size === 0 ? "unchanged" : `written (${[...changed].filter((n) => n.endsWith(".cjs")).join(", ")})`}`)

// ------------------------------------------------------------------------------------------------ snapshot

const blob = path.join(dist, "cli.blob")
const blobInfoFile = path.join(dist, "cli.blob.json")
const blobIdFile = path.join(dist, "cli.blob.id")
if (!fs.existsSync(path.join(dist, "cli.cjs"))) finish()
const cliSource = fs.readFileSync(path.join(dist, "cli.cjs"))

const nodeIdentity = () => {
  const st = fs.statSync(process.execPath, { bigint: true })
  return { ino: st.ino.toString(), size: st.size.toString() }
}
// The seed of V8's string hashes stays the one drawn when the blob was built, instead of a new seed and a
// rehash of every table in the heap at each start (~7 ms). What that gives up, hash-flooding resistance
// with a per-process seed, matters to a server taking untrusted keys, not to a CLI run reading its own
// gateway's answer; the seed is still random per build. bin/svc passes the same flags.
const SNAPSHOT_FLAGS = ["--no-rehash-snapshot"]

const wanted = {
  node: process.version,
  flags: SNAPSHOT_FLAGS.join(" "),
  execPath: process.execPath,
  ...nodeIdentity(),
  arch: process.arch,
  platform: process.platform,
  source: crypto.createHash("sha256").update(cliSource).digest("hex")
}

const blobId = () => `${wanted.ino} ${wanted.size}\n${wanted.flags}\n`

const current = (() => {
  try {
    const info = JSON.parse(fs.readFileSync(blobInfoFile, "utf8"))
    return fs.existsSync(blob) && fs.readFileSync(blobIdFile, "utf8") === blobId() &&
      Object.keys(wanted).every((k) => info[k] === wanted[k])
  } catch {
    return false
  }
})()

const dropSnapshot = () => {
  for (const f of [blob, blobInfoFile, blobIdFile]) fs.rmSync(f, { force: true })
}

const buildSnapshot = () => {
  if (unsafeBuiltins.length > 0) {
    return `the CLI bundle loads ${unsafeBuiltins.map((b) => `node:${b}`).join(", ")} at its top level, which a ` +
      "snapshot cannot hold: load it when first used (see `builtin` in src/platform/builtin.ts)"
  }
  if (!(typeof process.features === "object" && "snapshot" in process.features ? process.features.snapshot : true)) {
    return "this node was built without snapshot support"
  }
  const tmp = `${blob}.${process.pid}.tmp`
  // cwd is dist/ so nothing of the caller's directory leaks into the heap that is saved.
  // Without NODE_OPTIONS: V8 flags are part of a snapshot, and bin/svc runs it without any.
  const env = { ...process.env }
  delete env.NODE_OPTIONS
  const run = spawnSync(process.execPath, [...SNAPSHOT_FLAGS, "--snapshot-blob", tmp, "--build-snapshot", "cli.cjs"], {
    cwd: dist,
    encoding: "utf8",
    timeout: 60_000,
    env
  })
  const output = `${run.stdout ?? ""}${run.stderr ?? ""}`
  if (run.status !== 0 || !fs.existsSync(tmp)) {
    fs.rmSync(tmp, { force: true })
    return `node --build-snapshot failed (${run.error?.message ?? `status ${run.status}, signal ${run.signal}`})` +
      `${output.trim() === "" ? "" : `:\n${output.trim().split("\n").slice(0, 8).join("\n")}`}`
  }
  if (/not yet fully verified|not supported/.test(output)) {
    fs.rmSync(tmp, { force: true })
    return `a builtin that is not snapshot-safe is loaded at the top level of the CLI bundle:\n${output.trim()}`
  }
  // Smoke test: the blob must start and print the version, or it is not used.
  const probe = spawnSync(process.execPath, [...SNAPSHOT_FLAGS, "--snapshot-blob", tmp, "svc", "--version"], {
    encoding: "utf8",
    timeout: 20_000,
    env
  })
  if (probe.status !== 0 || !probe.stdout.includes(".")) {
    fs.rmSync(tmp, { force: true })
    return `the snapshot does not start (status ${probe.status}): ${(probe.stderr || probe.stdout).trim().slice(0, 400)}`
  }
  fs.renameSync(tmp, blob)
  writeAtomic(blobInfoFile, JSON.stringify(wanted, null, 2) + "\n")
  writeAtomic(blobIdFile, blobId())
  return undefined
}

if (current) {
  log("snapshot up to date")
} else {
  dropSnapshot()
  const t0 = performance.now()
  const problem = buildSnapshot()
  if (problem === undefined) log(`snapshot cli.blob built in ${Math.round(performance.now() - t0)} ms (${process.version})`)
  else {
    dropSnapshot()
    warn(`no start-up snapshot; \`svc\` will start from the plain bundle (slower): ${problem}`)
  }
}

// Warm the code cache of the fallback path, so its first real run is not the slow one.
if (!fs.readdirSync(dist).some((f) => f.startsWith("cli.cjs.") && f.endsWith(".cache"))) {
  spawnSync(process.execPath, [path.join(root, "bin", "svc-load.cjs"), "cli.cjs", "--version"], {
    stdio: "ignore",
    timeout: 20_000
  })
}

finish()

function finish() {
  for (const f of failures) console.error(`build: error: ${f}`)
  log(`${failures.length === 0 ? "done" : "FAILED"} in ${Math.round(performance.now() - started)} ms`)
  process.exit(failures.length === 0 ? 0 : 1)
}

function writeAtomic(file, contents) {
  const tmp = `${file}.${process.pid}.tmp`
  fs.writeFileSync(tmp, contents)
  fs.renameSync(tmp, file)
}
