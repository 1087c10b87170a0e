#!/usr/bin/env node
"use strict"
// Runs a dist/ bundle with a V8 code cache: `node bin/svc-load.cjs cli.cjs args...` is `node dist/cli.cjs
// args...` without compiling the bundle again. bin/svc uses it when the start-up snapshot cannot be used
// with this node. The cache (dist/<bundle>.cache) is written once, atomically, when the process exits
// (so it holds the functions the run compiled), and again whenever V8 rejects it; scripts/build.mjs
// deletes it when the bundle changes.
const fs = require("node:fs")
const path = require("node:path")
const vm = require("node:vm")
const { createRequire } = require("node:module")

const filename = path.join(__dirname, "..", "dist", process.argv[2] || "cli.cjs")
let source
try {
  source = fs.readFileSync(filename, "utf8")
} catch {
  console.error(`svc: ${filename} is missing: run \`npm run build\` in ${path.join(__dirname, "..")}`)
  process.exit(1)
}
const cacheFile = `${filename}.cache`
let cachedData
try {
  cachedData = fs.readFileSync(cacheFile)
} catch {}
const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
  filename,
  cachedData
})
if (cachedData === undefined || script.cachedDataRejected) {
  process.once("exit", () => {
    try {
      const tmp = `${cacheFile}.${process.pid}.tmp`
      fs.writeFileSync(tmp, script.createCachedData())
      fs.renameSync(tmp, cacheFile)
    } catch {}
  })
}
process.argv.splice(1, 2, filename)
const mod = { exports: {}, filename, id: filename, loaded: false, children: [], paths: [] }
script.runInThisContext()(mod.exports, createRequire(filename), mod, filename, path.dirname(filename))
