import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"

// Ports that a test file has handed out, claimed across the suite's worker processes. A port that is free
// when a test file picks it may be bound only seconds later (a gateway launches its browser on the first
// command), and a file running beside it could pick the same free port meanwhile: both browsers then want
// it. A claim is a file named after the port in one directory, created exclusively and holding the pid of
// the worker that made it; it lapses when that process is gone (or after CLAIM_MS, whatever happened). The
// suite's workers are killed when it ends, so claims are never removed: they lapse.

const DIR = path.join(os.tmpdir(), "svc-test-port-claims")
const CLAIM_MS = 30 * 60_000

/** Whether nothing on this machine holds `port` on loopback right now. */
export const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = net.createServer()
    server.once("error", () => resolve(false))
    server.listen({ port, host: "127.0.0.1" }, () => server.close(() => resolve(true)))
  })

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Whether a claim no longer holds: its process is gone, or it is too old. This process's own claims hold. */
const lapsed = (file: string) => {
  try {
    const st = fs.statSync(file)
    const pid = Number(fs.readFileSync(file, "utf8"))
    return Date.now() - st.mtimeMs > CLAIM_MS || !Number.isInteger(pid) || pid <= 0 || (pid !== process.pid && !alive(pid))
  } catch {
    return true
  }
}

/** Claims `port` for this process until it exits; false when a live worker (this one included) has it. */
export const claimPort = (port: number): boolean => {
  fs.mkdirSync(DIR, { recursive: true })
  const file = path.join(DIR, String(port))
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: "wx" })
      return true
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST" || !lapsed(file)) return false
      // A lapsed claim: remove it and try once more (another worker may win that race; then it is theirs).
      fs.rmSync(file, { force: true })
    }
  }
  return false
}

/** Whether `port` is free now and is now this process's: what a test hands out as its own port. */
export const claimFreePort = async (port: number): Promise<boolean> => (await portFree(port)) && claimPort(port)
