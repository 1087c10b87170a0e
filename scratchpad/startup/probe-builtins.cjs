const v8 = require("node:v8")
const ok = [], bad = []
for (const m of ["fs","fs/promises","path","os","tty","readline","url","util","events","stream","buffer","crypto","child_process","module","worker_threads","string_decoder","timers","perf_hooks","zlib","vm","async_hooks","process","console","dns"]) {
  try { require("node:" + m); ok.push(m) } catch (e) { bad.push(m + ": " + String(e.message).split("\n")[0]) }
}
console.error("OK", ok.join(" ")); console.error("BAD\n" + bad.join("\n"))
v8.startupSnapshot.setDeserializeMainFunction(() => {
  console.log("argv", JSON.stringify(process.argv), "execArgv", JSON.stringify(process.execArgv), typeof require, typeof process.getBuiltinModule)
  try { const h = process.getBuiltinModule("node:http"); console.log("http at runtime via getBuiltinModule", typeof h.request) } catch (e) { console.log("gbm fail", e.message) }
  try { const h = require("node:http"); console.log("http at runtime via require", typeof h.request) } catch (e) { console.log("require fail", e.message) }
})
