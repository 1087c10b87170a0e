import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

// Ports that a test file has handed out, claimed across the suite's worker processes. A port that is free
// when a test file picks it may be bound only seconds later (a gateway launches its browser on the first
// command), and a file running beside it could pick the same free port meanwhile: both browsers then want
// it. A claim is a file named after the port in one directory, created exclusively and holding the pid of
// the worker that made it; it lapses when that process is gone (or after CLAIM_MS, whatever happened).

const DIR = path.join(os.tmpdir(), "svc-test-port-claims")
const CLAIM_MS = 30 * 60_000
const mine = new Set<string>()

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Whether a claim file left by someone else no longer holds (its process is gone, or it is too old). */
const lapsed = (file: string) => {
  try {
    const st = fs.statSync(file)
    const pid = Number(fs.readFileSync(file, "utf8"))
    return Date.now() - st.mtimeMs > CLAIM_MS || !Number.isInteger(pid) || pid <= 0 || (pid !== process.pid && !alive(pid))
  } catch {
    return true
  }
}

let cleanup = false

/** Claims `port` for this process until it exits; false when another live worker (or this one) has it. */
export const claimPort = (port: number): boolean => {
  fs.mkdirSync(DIR, { recursive: true })
  const file = path.join(DIR, String(port))
  if (mine.has(file)) return false
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: "wx" })
      mine.add(file)
      if (!cleanup) {
        cleanup = true
        process.once("exit", () => {
          for (const f of mine) fs.rmSync(f, { force: true })
        })
      }
      return true
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST" || !lapsed(file)) return false
      // A lapsed claim: remove it and try once more (another worker may win that race; then it is theirs).
      fs.rmSync(file, { force: true })
    }
  }
  return false
}
