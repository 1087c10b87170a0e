// Where the managed browser's start time goes (throwaway probe).
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { ChromeLauncher, portState, clearStaleSingleton } from "../../src/browser/ChromeLauncher.js"
import { ChromeLocator } from "../../src/browser/ChromeLocator.js"
import { applyProfileDecor } from "../../src/browser/ProfileDecor.js"

const time = <A, E, R>(label: string, e: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const t0 = performance.now()
    const a = yield* e
    console.log(label, (performance.now() - t0).toFixed(1), "ms")
    return a
  })

const main = Effect.gen(function*() {
  const loc = yield* ChromeLocator
  const launcher = yield* ChromeLauncher
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "phase-"))
  const exe = yield* time("locate", loc.locate(undefined))
  yield* time("locate again", loc.locate(undefined))
  yield* time("portState", portState(18866))
  yield* time("clearStaleSingleton", clearStaleSingleton(dir))
  yield* time("decor", applyProfileDecor(dir, { name: "x", color: "#FF6A00" }))
  const b = yield* time("launch total", Effect.scoped(Effect.map(launcher.launch({ profile: "x", executable: exe.path, userDataDir: dir, cdpPort: 18866, headless: true, noSandbox: true, color: "#FF6A00" }), (l) => l.elapsedMs)))
  console.log("launcher elapsedMs (spawn→ready)", b)
}).pipe(Effect.provide([ChromeLocator.Default, ChromeLauncher.Default]))
Effect.runPromise(main)
