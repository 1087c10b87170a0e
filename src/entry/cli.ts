import { Cause, Effect, Exit } from "effect"
import * as path from "node:path"
import * as v8 from "node:v8"
import { leanRuntimeContext } from "../cli/leanRuntime.js"
import { runCli } from "../cli/main.js"
import { deferFormDataGlobal } from "../platform/lean/webGlobals.js"
import { warmUp } from "./snapshotWarmUp.js"

// The lean CLI entry. Bundled to dist/cli.cjs, it is the script of the V8 start-up snapshot dist/cli.blob
// (scripts/build.mjs): every module top level runs once, at build time, followed by the warm-up, and each
// `svc ...` run only calls `main`. Run as a plain script (no blob for this node: bin/svc-load.cjs), it
// calls `main` straight away. Whatever this bundle loads must be snapshot-safe: see src/cli/leanRuntime.ts.

const main = (argv: ReadonlyArray<string>, distDir: string, execArgv: ReadonlyArray<string>) => {
  deferFormDataGlobal()
  const fiber = Effect.runFork(
    runCli(argv).pipe(Effect.provide(leanRuntimeContext({ fullBundle: path.join(distDir, "svc.cjs"), execArgv })))
  )
  fiber.addObserver((exit) => {
    if (Exit.isSuccess(exit)) {
      process.exitCode = exit.value
    } else {
      process.exitCode = 1
      if (!Cause.isInterruptedOnly(exit.cause)) console.error(`svc: ${Cause.pretty(exit.cause)}`)
    }
  })
}

/** Where the blob this process started from lives (its directory is dist/). */
const snapshotBlob = (): string | undefined => {
  const argv = process.execArgv
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (a === "--snapshot-blob") return argv[i + 1]
    if (a.startsWith("--snapshot-blob=")) return a.slice("--snapshot-blob=".length)
  }
  return undefined
}

if (v8.startupSnapshot?.isBuildingSnapshot()) {
  // Launched as `node --snapshot-blob dist/cli.blob <argv[1]> args...` (bin/svc): argv is already [node, script, ...].
  v8.startupSnapshot.setDeserializeMainFunction(() => {
    const blob = snapshotBlob()
    // The gateway gets none of the snapshot's node options.
    main(process.argv, blob !== undefined ? path.dirname(path.resolve(blob)) : process.cwd(), [])
  })
  Effect.runFork(warmUp)
} else {
  main(process.argv, __dirname, process.execArgv)
}
