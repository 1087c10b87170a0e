import { execFileSync } from "node:child_process"

// End-to-end suites spawn the built `svc` (bin/svc → dist/), so build once before any test file runs.
export default function setup() {
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" })
}
