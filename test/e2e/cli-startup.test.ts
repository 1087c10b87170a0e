import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"

// The built `svc` as a user runs it: bin/svc, the start-up snapshot, the code-cache fallback, and the
// hand-over of `gateway run` from the lean bundle to the full one. test/globalSetup.ts has built dist/.

const repo = path.resolve(__dirname, "../..")
const bin = path.join(repo, "bin", "svc")
const dist = path.join(repo, "dist")
const root = fs.mkdtempSync(path.join(os.tmpdir(), "svc-cli-startup-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const TOKEN = "cli-startup-token-0123456789abcdef"
const TABS = {
  profile: "svc",
  tabs: [
    { index: 0, targetId: "9A8B7C6D5E", title: "Example Domain", url: "https://example.com/", type: "page", current: true },
    { index: 1, targetId: "1F2E3D4C5B", title: "", url: "about:blank", type: "page", current: false }
  ]
}

interface Run {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

const collect = (child: ChildProcess) =>
  new Promise<Run>((resolve, reject) => {
    let stdout = ""
    let stderr = ""
    child.stdout?.setEncoding("utf8").on("data", (c: string) => (stdout += c))
    child.stderr?.setEncoding("utf8").on("data", (c: string) => (stderr += c))
    child.once("error", reject)
    child.once("close", (code, signal) => resolve({ code, signal, stdout, stderr }))
  })

const run = (command: string, args: ReadonlyArray<string>, env: Record<string, string> = {}, cwd = repo) =>
  spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })

/** A state dir whose svc.json points at `controlPort` (the gateway port is two below it). */
const stateDir = (controlPort: number) => {
  const dir = fs.mkdtempSync(path.join(root, "state-"))
  fs.writeFileSync(
    path.join(dir, "svc.json"),
    JSON.stringify({ gateway: { port: controlPort - 2, auth: { token: TOKEN } } })
  )
  return dir
}

interface Stub {
  readonly port: number
  readonly env: Record<string, string>
  readonly requests: Array<{ url: string; authorization: string | undefined; peerCmdline: string | undefined }>
  readonly close: () => Promise<void>
  /** The pid whose command line the stub records when a request arrives (the CLI under test). */
  watch: number | undefined
}

/** A stub control server on a loopback port: GET /tabs answers TABS to the right token. */
const startStub = async (): Promise<Stub> => {
  const stub: Stub = {
    port: 0,
    env: {},
    requests: [],
    watch: undefined,
    close: async () => {}
  }
  const server = http.createServer((req, res) => {
    let peerCmdline: string | undefined
    if (stub.watch !== undefined) {
      try {
        peerCmdline = fs.readFileSync(`/proc/${stub.watch}/cmdline`, "utf8").split("\0").join(" ")
      } catch {}
    }
    stub.requests.push({ url: req.url!, authorization: req.headers.authorization, peerCmdline })
    const ok = req.headers.authorization === `Bearer ${TOKEN}` && req.method === "GET" && req.url!.startsWith("/tabs")
    res.writeHead(ok ? 200 : 401, { "content-type": "application/json" })
    res.end(JSON.stringify(ok ? TABS : { _tag: "Unauthorized", message: "wrong token" }))
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()))
  const port = (server.address() as AddressInfo).port
  return Object.assign(stub, {
    port,
    env: { SVC_STATE_DIR: stateDir(port) },
    close: () => new Promise<void>((r) => server.close(() => r()))
  })
}

/** A port nothing listens on. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const s = http.createServer()
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as AddressInfo).port
      s.close(() => resolve(port))
    })
  })

/** A copy of bin/ and dist/ to tamper with (the shared dist/ stays as built). */
const copyLayout = (name: string, files: ReadonlyArray<string>) => {
  const dir = path.join(root, name)
  fs.mkdirSync(path.join(dir, "bin"), { recursive: true })
  fs.mkdirSync(path.join(dir, "dist"), { recursive: true })
  for (const f of ["bin/svc", "bin/svc-load.cjs", ...files]) fs.copyFileSync(path.join(repo, f), path.join(dir, f))
  fs.chmodSync(path.join(dir, "bin", "svc"), 0o755)
  return dir
}

const expectedTabs = JSON.stringify(TABS, null, 2) + "\n"
const hasProc = fs.existsSync("/proc/self/cmdline")

let stub: Stub
beforeAll(async () => {
  stub = await startStub()
})
afterAll(() => stub.close())

describe("bin/svc", () => {
  it("--help prints the usage and exits 0", async () => {
    const r = await collect(run(bin, ["--help"]))
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("svc")
    expect(r.stdout).toContain("browser")
    expect(r.stdout).toContain("gateway")
    expect(r.stderr).toBe("")
  })

  it("`browser tabs --json` prints the gateway's JSON exactly and exits 0", async () => {
    const before = stub.requests.length
    const r = await collect(run(bin, ["browser", "tabs", "--json"], stub.env))
    expect(r.stderr).toBe("")
    expect(r.stdout).toBe(expectedTabs)
    expect(r.code).toBe(0)
    expect(stub.requests.slice(before)).toEqual([
      { url: "/tabs", authorization: `Bearer ${TOKEN}`, peerCmdline: undefined }
    ])
  })

  it("with no gateway listening: one line on stderr naming `svc gateway run`, non-zero exit", async () => {
    const port = await freePort()
    const r = await collect(run(bin, ["browser", "tabs"], { SVC_STATE_DIR: stateDir(port) }))
    expect(r.code).not.toBe(0)
    expect(r.stdout).toBe("")
    const lines = r.stderr.trimEnd().split("\n")
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain("svc gateway run")
    expect(lines[0]).toContain(`127.0.0.1:${port}`)
    // With --json, the same line as a JSON error on stdout.
    const json = await collect(run(bin, ["browser", "tabs", "--json"], { SVC_STATE_DIR: stateDir(port) }))
    expect(json.code).not.toBe(0)
    expect(json.stderr).toBe("")
    expect(JSON.parse(json.stdout).error).toEqual({ _tag: "GatewayNotRunning", message: lines[0]!.slice("svc: ".length), status: null })
  })

  it("with no gateway token yet: one line on stderr naming `svc gateway run`", async () => {
    const r = await collect(run(bin, ["browser", "tabs"], { SVC_STATE_DIR: fs.mkdtempSync(path.join(root, "empty-")) }))
    expect(r.code).toBe(1)
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1)
    expect(r.stderr).toContain("svc gateway run")
  })

  it("a usage error exits 2", async () => {
    const r = await collect(run(bin, ["browser", "no-such-command"]))
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("unknown command `no-such-command` for `svc browser`")
  })

  it("prints and exits exactly as the full bundle on the node platform does", async () => {
    const refused = { SVC_STATE_DIR: stateDir(await freePort()) }
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, Record<string, string>]> = [
      [["--help"], {}],
      [["--version"], {}],
      [["browser", "--help"], {}],
      [["browser", "tabs", "--help"], {}],
      [["browser", "no-such-command"], {}],
      [["browser", "tabs", "--json", "--browser-profile", "bad name!"], stub.env],
      [["browser", "tabs", "--json"], stub.env],
      [["browser", "tabs"], stub.env],
      [["browser", "tabs"], refused]
    ]
    for (const [args, env] of cases) {
      const [lean, full] = await Promise.all([
        collect(run(bin, args, env)),
        collect(run(process.execPath, [path.join(dist, "svc.cjs"), ...args], env))
      ])
      expect(lean, args.join(" ")).toEqual(full)
    }
  })

  it("starts from the snapshot built for this node", async () => {
    const info = JSON.parse(fs.readFileSync(path.join(dist, "cli.blob.json"), "utf8"))
    expect(info.node).toBe(process.version)
    expect(info.execPath).toBe(process.execPath)
    expect(fs.readFileSync(path.join(dist, "cli.blob.id"), "utf8")).toBe(`${info.ino} ${info.size}\n${info.flags}\n`)
    if (!hasProc) return
    const child = run(bin, ["browser", "tabs", "--json"], stub.env)
    stub.watch = child.pid
    const r = await collect(child)
    stub.watch = undefined
    expect(r.stdout).toBe(expectedTabs)
    const cmdline = stub.requests.at(-1)!.peerCmdline!
    expect(cmdline).toContain(` ${info.flags} --snapshot-blob `)
    expect(cmdline).toMatch(/ --snapshot-blob \S*\/dist\/cli\.blob \S*\/dist\/cli\.cjs browser tabs --json/)
    expect(cmdline).not.toContain("svc-load.cjs")
  })

  it.runIf(hasProc)("falls back to the bundle with a code cache when the snapshot is not for this node", async () => {
    const dir = copyLayout("foreign-blob", ["dist/cli.cjs", "dist/cli.blob", "dist/cli.blob.json"])
    fs.writeFileSync(path.join(dir, "dist", "cli.blob.id"), "1 2\n")
    const svc = path.join(dir, "bin", "svc")
    for (const attempt of ["first", "cached"]) {
      const child = run(svc, ["browser", "tabs", "--json"], stub.env)
      stub.watch = child.pid
      const r = await collect(child)
      stub.watch = undefined
      expect(r.stderr, attempt).toBe("")
      expect(r.stdout, attempt).toBe(expectedTabs)
      expect(r.code, attempt).toBe(0)
      const cmdline = stub.requests.at(-1)!.peerCmdline!
      expect(cmdline).toContain("svc-load.cjs cli.cjs browser tabs --json")
      expect(cmdline).not.toContain("--snapshot-blob")
      // The first run leaves the code cache the second one loads.
      expect(fs.readdirSync(path.join(dir, "dist")).filter((f) => f.endsWith(".cache"))).toHaveLength(1)
    }
  })

  it("gives a module of over 1 MB a code cache of its own, replaced when the module changes", async () => {
    const dir = copyLayout("large-module", [])
    const lib = path.join(dir, "node_modules", "biglib")
    fs.mkdirSync(lib, { recursive: true })
    const writeLib = (answer: number, pad: number) =>
      fs.writeFileSync(path.join(lib, "index.js"), `module.exports = { answer: ${answer} }\n/*${"x".repeat(pad)}*/\n`)
    fs.writeFileSync(path.join(dir, "dist", "uses-lib.cjs"), `process.stdout.write(String(require("biglib").answer))\n`)
    const load = async () => {
      const r = await collect(run(process.execPath, [path.join(dir, "bin", "svc-load.cjs"), "uses-lib.cjs"], {}))
      expect(r.stderr).toBe("")
      return { out: r.stdout, caches: fs.readdirSync(path.join(dir, "dist")).filter((f) => f.startsWith("lib-index.js-")) }
    }
    writeLib(42, 1_100_000)
    const first = await load()
    expect(first.out).toBe("42")
    expect(first.caches).toHaveLength(1)
    const written = fs.statSync(path.join(dir, "dist", first.caches[0]!)).mtimeMs
    const second = await load()
    expect(second).toEqual(first)
    // Loaded, not written again.
    expect(fs.statSync(path.join(dir, "dist", first.caches[0]!)).mtimeMs).toBe(written)
    writeLib(7, 1_200_000)
    const changed = await load()
    expect(changed.out).toBe("7")
    expect(changed.caches).toHaveLength(1)
    expect(changed.caches[0]).not.toBe(first.caches[0])
    expect(fs.readdirSync(path.join(dir, "dist")).filter((f) => f.endsWith(".tmp"))).toEqual([])
  })

  it.runIf(hasProc)("uses the bundle when NODE_OPTIONS is set (V8 flags would not match the snapshot's)", async () => {
    const child = run(bin, ["browser", "tabs", "--json"], { ...stub.env, NODE_OPTIONS: "--max-old-space-size=512" })
    stub.watch = child.pid
    const r = await collect(child)
    stub.watch = undefined
    expect(r.stderr).toBe("")
    expect(r.stdout).toBe(expectedTabs)
    expect(r.code).toBe(0)
    expect(stub.requests.at(-1)!.peerCmdline).toContain("svc-load.cjs cli.cjs browser tabs --json")
  })

  it("works through npm's symlink node_modules/.bin/svc -> ../../bin/svc", async () => {
    const dir = copyLayout("linked", ["dist/cli.cjs", "dist/cli.blob", "dist/cli.blob.id", "dist/cli.blob.json"])
    fs.mkdirSync(path.join(dir, "node_modules", ".bin"), { recursive: true })
    fs.symlinkSync("../../bin/svc", path.join(dir, "node_modules", ".bin", "svc"))
    const r = await collect(run(path.join(dir, "node_modules", ".bin", "svc"), ["browser", "tabs", "--json"], stub.env, root))
    expect(r.stderr).toBe("")
    expect(r.stdout).toBe(expectedTabs)
    expect(r.code).toBe(0)
  })

  it("says in one line to build when dist/ is missing", async () => {
    const dir = copyLayout("unbuilt", [])
    const r = await collect(run(path.join(dir, "bin", "svc"), ["browser", "tabs"]))
    expect(r.code).toBe(1)
    expect(r.stdout).toBe("")
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1)
    expect(r.stderr).toContain("npm run build")
  })

  it("`svc gateway ...` runs the full bundle", async () => {
    const r = await collect(run(bin, ["gateway", "run", "--help"]))
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("--port")
    expect(r.stdout).toContain("--start-browser")
  })
})

describe("`svc gateway run` (the full bundle)", () => {
  /** A gateway port whose control and relay ports (+2, +3) are free too. */
  const gatewayPort = async (): Promise<number> => {
    for (;;) {
      const p = await freePort()
      if (p > 65000) continue
      const taken = await Promise.all([p + 2, p + 3].map((q) =>
        new Promise<boolean>((resolve) => {
          const s = http.createServer()
          s.once("error", () => resolve(true))
          s.listen(q, "127.0.0.1", () => s.close(() => resolve(false)))
        })
      ))
      if (!taken.includes(true)) return p
    }
  }
  const untilReady = (child: ChildProcess) =>
    new Promise<void>((resolve, reject) => {
      let out = ""
      child.stdout!.on("data", (c: Buffer) => {
        out += c.toString()
        if (out.includes("ready")) resolve()
      })
      child.once("exit", (code) => reject(new Error(`the gateway exited (${code}) before it was ready: ${out}`)))
    })

  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`runs until ${signal}, then exits 0`, async () => {
      const port = await gatewayPort()
      const state = fs.mkdtempSync(path.join(root, "gw-"))
      const child = run(bin, ["gateway", "run", "--port", String(port)], { SVC_STATE_DIR: state })
      const done = collect(child)
      await untilReady(child)
      // bin/svc exec'd node: the pid that answers is the gateway's.
      if (hasProc) expect(fs.readFileSync(`/proc/${child.pid}/cmdline`, "utf8")).toContain("svc.cjs")
      child.kill(signal)
      const r = await done
      expect(r.signal).toBe(null)
      expect(r.code).toBe(0)
    })
  }

  it("exits 1 with one line when it cannot listen", async () => {
    const port = await gatewayPort()
    const blocker = http.createServer()
    await new Promise<void>((r) => blocker.listen(port + 2, "127.0.0.1", () => r()))
    try {
      const r = await collect(
        run(bin, ["gateway", "run", "--port", String(port)], { SVC_STATE_DIR: fs.mkdtempSync(path.join(root, "gw-")) })
      )
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(/^svc: .+\n$/)
    } finally {
      await new Promise<void>((r) => blocker.close(() => r()))
    }
  })
})

describe("`gateway run` from the lean bundle hands over to the full bundle", () => {
  // A stand-in for dist/svc.cjs: prints its argv, then ends on a signal (exit 0) or with EXIT_CODE.
  const fakeFullBundle = `
    let signals = 0
    const end = (s) => { signals++; setTimeout(() => { process.stdout.write("signal " + s + " x" + signals + "\\n"); process.exit(0) }, 100) }
    process.on("SIGINT", end); process.on("SIGTERM", end)
    process.stdout.write(JSON.stringify(process.argv.slice(2)) + "\\n")
    if (process.env.EXIT_CODE) process.exit(Number(process.env.EXIT_CODE))
    setInterval(() => {}, 1000)
  `
  const layout = () => {
    const dir = copyLayout(`handover-${Math.random().toString(36).slice(2)}`, [
      "dist/cli.cjs",
      "dist/cli.blob",
      "dist/cli.blob.id",
      "dist/cli.blob.json"
    ])
    fs.writeFileSync(path.join(dir, "dist", "svc.cjs"), fakeFullBundle)
    return dir
  }
  const waitForOutput = (child: ChildProcess) =>
    new Promise<void>((resolve) => child.stdout!.once("data", () => resolve()))

  it("passes the options on, forwards SIGTERM once, and exits as the gateway did", async () => {
    const dir = layout()
    const child = run(process.execPath, [path.join(dir, "dist", "cli.cjs"), "gateway", "run", "--port", "18555", "--start-browser"])
    const done = collect(child)
    await waitForOutput(child)
    child.kill("SIGTERM")
    const r = await done
    expect(r.stdout).toBe(`["gateway","run","--port","18555","--start-browser"]\nsignal SIGTERM x1\n`)
    expect(r.code).toBe(0)
  })

  it("from the snapshot too, and the gateway's exit code is this process's", async () => {
    const dir = layout()
    const blob = path.join(dir, "dist", "cli.blob")
    const flags = JSON.parse(fs.readFileSync(path.join(dir, "dist", "cli.blob.json"), "utf8")).flags.split(" ")
    const r = await collect(
      run(process.execPath, [...flags, "--snapshot-blob", blob, path.join(dir, "dist", "cli.cjs"), "gateway", "run"], {
        EXIT_CODE: "7"
      })
    )
    expect(r.stdout).toBe(`["gateway","run"]\n`)
    expect(r.code).toBe(7)
  })

  it("a SIGINT to the lean process reaches the gateway once", async () => {
    const dir = layout()
    const child = run(process.execPath, [path.join(dir, "dist", "cli.cjs"), "gateway", "run"])
    const done = collect(child)
    await waitForOutput(child)
    child.kill("SIGINT")
    const r = await done
    expect(r.stdout).toBe(`["gateway","run"]\nsignal SIGINT x1\n`)
    expect(r.code).toBe(0)
  })
})
