#!/usr/bin/env node
"use strict"
// Runs a dist/ bundle with a V8 code cache: `node bin/svc-load.cjs cli.cjs args...` is `node dist/cli.cjs
// args...` without compiling the bundle again. bin/svc uses it when the start-up snapshot cannot be used.
// The cache is written once, atomically, when the process exits (so it holds what the run compiled), and
// again whenever V8 rejects it. V8 only checks a cache against the length of its source, so the cache's
// name carries the bundle's size and mtime: a rebuilt bundle never meets the cache of the old one.
const fs = require("node:fs")
const path = require("node:path")
const vm = require("node:vm")
const { createRequire } = require("node:module")

const filename = path.join(__dirname, "..", "dist", process.argv[2] || "cli.cjs")
let source
let cacheFile
try {
  const fd = fs.openSync(filename, "r")
  const st = fs.fstatSync(fd)
  source = fs.readFileSync(fd, "utf8")
  fs.closeSync(fd)
  cacheFile = `${filename}.${st.size}-${Math.trunc(st.mtimeMs)}.cache`
} catch {
  console.error(`svc: ${filename} is missing: run \`npm run build\` in ${path.join(__dirname, "..")}`)
  process.exit(1)
}
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

// The automation library is two bundles of about 3.5 MB each: loading them costs the gateway some 250 ms,
// a third of it compiling. Modules that large get a code cache of their own beside the bundle's, named
// after their path, size and mtime (an updated library never meets an old cache; its old ones are removed).
const LARGE_MODULE = 1024 * 1024
const distDir = path.dirname(filename)
const Module = require("node:module")
const compile = Module.prototype._compile
Module.prototype._compile = function (content, file) {
  if (content.length < LARGE_MODULE) return compile.call(this, content, file)
  let cache
  try {
    const st = fs.statSync(file)
    const key = require("node:crypto").createHash("sha256").update(file).digest("hex").slice(0, 12)
    const prefix = `lib-${path.basename(file)}-${key}.`
    cache = { dir: distDir, prefix, file: path.join(distDir, `${prefix}${st.size}-${Math.trunc(st.mtimeMs)}.cache`) }
  } catch {
    return compile.call(this, content, file)
  }
  let data
  try {
    data = fs.readFileSync(cache.file)
  } catch {}
  const compiled = new vm.Script(Module.wrap(content), { filename: file, cachedData: data })
  if (data === undefined || compiled.cachedDataRejected) {
    process.once("exit", () => {
      try {
        for (const old of fs.readdirSync(cache.dir)) {
          if (old.startsWith(cache.prefix) && path.join(cache.dir, old) !== cache.file) fs.rmSync(path.join(cache.dir, old), { force: true })
        }
        const tmp = `${cache.file}.${process.pid}.tmp`
        fs.writeFileSync(tmp, compiled.createCachedData())
        fs.renameSync(tmp, cache.file)
      } catch {}
    })
  }
  return compiled.runInThisContext().call(this.exports, this.exports, createRequire(file), this, file, path.dirname(file))
}

process.argv.splice(1, 2, filename)
const mod = { exports: {}, filename, id: filename, loaded: false, children: [], paths: [] }
script.runInThisContext()(mod.exports, createRequire(filename), mod, filename, path.dirname(filename))
