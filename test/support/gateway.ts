import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { claimFreePort, portFree } from "./portClaims.js"

// Real processes for end-to-end tests: a gateway started through bin/svc with its own state dir and
// ports, and the CLI run the way a user runs it.

export const ROOT = path.resolve(import.meta.dirname, "../..")
export const SVC_BIN = path.join(ROOT, "bin/svc")

/** A gateway port whose control (+2) and relay (+3) ports are free too. */
export const freeGatewayPort = async (): Promise<number> => {
  for (let i = 0; i < 200; i++) {
    const p = 20000 + Math.floor(Math.random() * 20000)
    if ((await portFree(p)) && (await portFree(p + 2)) && (await portFree(p + 3))) return p
  }
  throw new Error("no free port")
}

/**
 * A free port in the managed CDP range, claimed for this test file's process (portClaims.ts): test files that
 * run side by side never get the same one, although their browsers bind it only later.
 */
export const freeCdpPort = async (): Promise<number> => {
  for (let i = 0; i < 400; i++) {
    const p = 18800 + Math.floor(Math.random() * 100)
    if (await claimFreePort(p)) return p
  }
  throw new Error("no free CDP port in 18800-18899 that no other test file has claimed")
}

export const makeStateDir = (config?: object): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-test-"))
  // Owner-only, as the gateway writes it (a readable one is tightened at start, with a warning).
  if (config !== undefined) fs.writeFileSync(path.join(dir, "svc.json"), JSON.stringify(config, null, 2), { mode: 0o600 })
  return dir
}

export interface CliResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  readonly ms: number
}

export const runSvc = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv, timeoutMs = 30_000) =>
  new Promise<CliResult>((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn(SVC_BIN, [...args], { env, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    // Decoded as a stream: a character split across two chunks stays whole.
    child.stdout.setEncoding("utf8")
    child.stderr.setEncoding("utf8")
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`svc ${args.join(" ")} timed out; stderr: ${stderr}`))
    }, timeoutMs)
    child.on("error", reject)
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr, ms: performance.now() - t0 })
    })
  })

export interface Gateway {
  readonly stateDir: string
  readonly port: number
  readonly controlPort: number
  readonly env: NodeJS.ProcessEnv
  readonly process: ChildProcess
  readonly output: () => string
  readonly token: () => string
  readonly svc: (...args: ReadonlyArray<string>) => Promise<CliResult>
  /** SIGTERM, then the exit code. */
  readonly stop: () => Promise<number | null>
}

export const baseEnv = (stateDir: string, port: number): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, SVC_STATE_DIR: stateDir, SVC_GATEWAY_PORT: String(port) }
  delete env.NODE_OPTIONS
  return env
}

export interface GatewayOptions {
  readonly config?: object
  readonly stateDir?: string
  readonly args?: ReadonlyArray<string>
  readonly env?: NodeJS.ProcessEnv
  /** The gateway port (default: a free one); a gateway restarted on the same state dir passes the first one's. */
  readonly port?: number
}

/**
 * A gateway on its own state dir. Ports found free are only free until the gateway binds them: a test file
 * running beside this one may take one meanwhile (seen once, a relay port). A gateway on ports chosen here
 * that finds one taken is started again on others.
 */
export const startGateway = async (options: GatewayOptions = {}): Promise<Gateway> => {
  const stateDir = options.stateDir ?? makeStateDir(options.config)
  for (let attempt = 1;; attempt++) {
    try {
      return await startGatewayOn(options, stateDir, options.port ?? (await freeGatewayPort()))
    } catch (e) {
      if (options.port !== undefined || attempt === 3 || !/already in use/.test(String(e))) throw e
    }
  }
}

const startGatewayOn = async (options: GatewayOptions, stateDir: string, port: number): Promise<Gateway> => {
  const env = { ...baseEnv(stateDir, port), ...options.env }
  const child = spawn(SVC_BIN, ["gateway", "run", ...(options.args ?? [])], {
    env,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout!.setEncoding("utf8")
  child.stderr!.setEncoding("utf8")
  child.stdout!.on("data", (d) => (output += d))
  child.stderr!.on("data", (d) => (output += d))
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not become ready:\n${output}`)), 30_000)
    const check = () => {
      if (output.includes("svc gateway ready")) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout!.on("data", check)
    child.on("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`gateway exited with ${code} before it was ready:\n${output}`))
    })
  })
  const token = () => JSON.parse(fs.readFileSync(path.join(stateDir, "svc.json"), "utf8")).gateway.auth.token
  return {
    stateDir,
    port,
    controlPort: port + 2,
    env,
    process: child,
    output: () => output,
    token,
    svc: (...args) => runSvc(args, env),
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM")
      return exited
    }
  }
}

/** `svc <args>` on the gateway, which must succeed: its stdout; a failure throws with the command and its stderr. */
export const svcSucceeds = async (gw: Gateway, ...args: ReadonlyArray<string>): Promise<string> => {
  const r = await gw.svc(...args)
  if (r.code !== 0) throw new Error(`svc ${args.join(" ")} exited ${r.code}: ${r.stderr}`)
  return r.stdout
}

export interface RawResponse {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
  readonly json: () => any
}

/** A raw HTTP request, with full control of headers (Host included). */
export const request = (
  port: number,
  method: string,
  pathname: string,
  headers: Record<string, string> = {},
  body?: unknown
) =>
  new Promise<RawResponse>((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method,
        path: pathname,
        headers: {
          ...(payload !== undefined ? { "content-type": "application/json" } : {}),
          ...headers
        }
      },
      (res) => {
        let text = ""
        res.setEncoding("utf8")
        res.on("data", (d) => (text += d))
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, json: () => JSON.parse(text) })
        )
      }
    )
    req.on("error", reject)
    if (payload !== undefined) req.write(payload)
    req.end()
  })

/** A process a test may have to end at its close, as it was when the test saw it (its command line). */
export interface SeenProcess {
  readonly pid: number
  readonly cmdline: string | undefined
}

const cmdlineOf = (pid: number): string | undefined => {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8")
  } catch {
    return undefined
  }
}

export const seenProcess = (pid: number): SeenProcess => ({ pid, cmdline: cmdlineOf(pid) })

/**
 * SIGKILL to a process seen earlier, only while that pid is still that process: pids are reused within a
 * run (the machine's pid_max can be 32768, and a run starts thousands of processes), and a stale pid may
 * now be another test's browser.
 */
export const killIfStillThere = (p: SeenProcess): void => {
  if (p.cmdline === undefined || cmdlineOf(p.pid) !== p.cmdline) return
  try {
    process.kill(p.pid, "SIGKILL")
  } catch {
    // gone meanwhile
  }
}

export const pidAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** A loopback server for test pages: path → HTML. */
/** Pages by path (the query is not looked at): HTML, or a body of another type. */
type Served = { readonly type: string; readonly body: string }

/** Pages by path: HTML, a body of another type, or one made from the request (an echo of its headers, say). */
export const servePages = async (pages: Record<string, string | Served | ((req: http.IncomingMessage) => Served)>) => {
  const server = http.createServer((req, res) => {
    const entry = pages[(req.url ?? "/").split("?")[0]!]
    const page = typeof entry === "function" ? entry(req) : entry
    if (page === undefined) {
      res.writeHead(404).end("not found")
      return
    }
    if (typeof page === "string") res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page)
    else res.writeHead(200, { "content-type": page.type }).end(page.body)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as net.AddressInfo).port
  return {
    url: (p: string) => `http://127.0.0.1:${port}${p}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

export const isPng = (file: string): { width: number; height: number } | undefined => {
  const b = fs.readFileSync(file)
  if (b.length < 24 || b.toString("hex", 0, 8) !== "89504e470d0a1a0a" || b.toString("ascii", 12, 16) !== "IHDR") {
    return undefined
  }
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) }
}

/** Poll `check` every 10 ms until it holds; fail after `ms`. */
export const waitUntil = async (check: () => boolean, ms = 5000): Promise<void> => {
  const t0 = Date.now()
  while (!check()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out after ${ms} ms waiting`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

/** GET a JSON document (a browser's /json/version, say). */
export const getJson = (url: string) =>
  new Promise<any>((resolve, reject) => {
    http.get(url, (res) => {
      let body = ""
      res.on("data", (d) => (body += d))
      res.on("end", () => resolve(JSON.parse(body)))
    }).on("error", reject)
  })
