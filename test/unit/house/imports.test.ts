import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { VERSION } from "../../../src/version.js"

// The house's shape, read from the code: imports only run down the layers of ARCHITECTURE.md.

const SRC = path.resolve(__dirname, "../../../src")

/**
 * The layers, lowest first. A file belongs to the longest prefix that matches its path under src/. It may
 * import its own part (the same prefix) and anything of a lower rank; nothing else.
 */
const LAYERS: ReadonlyArray<readonly [prefix: string, rank: number]> = [
  ["version.ts", 0],
  ["domain/", 0],
  ["platform/", 0],
  ["config/", 1],
  ["browser/", 2],
  ["msgbridge/", 2],
  ["agent/", 2], // Agent.ts (what answers a message) and the echo agent
  ["api/", 3],
  ["http/", 4],
  ["client/", 4], // the typed client of the control API and how to find the gateway (the CLI and MCP use it)
  ["agent/tool/", 5],
  ["agent/mcp/", 5],
  ["agent/model/", 5],
  ["node/", 5],
  ["gateway/", 6],
  ["mcp/", 7], // `svc mcp`: MCP tools over the typed client, with a gateway of its own when none runs
  ["cli/", 8],
  ["entry/", 9]
]

/** Imports that cross the rule on purpose: `from → to` (files or prefixes) and why. */
const ALLOWED: ReadonlyArray<{ readonly from: string; readonly to: string; readonly why: string }> = [
  {
    from: "msgbridge/",
    to: "agent/Agent.ts",
    why: "the channel hands each inbound message to the agent interface (a peer layer, not an implementation)"
  },
  {
    from: "agent/model/",
    to: "agent/tool/",
    why: "the language-model agent offers the model the `browser` tool: the one executor and routing of agent/tool/"
  },
  {
    from: "api/ControlApi.ts",
    to: "gateway/api.ts",
    why: "the gateway's own status group is declared beside the gateway; it is declarations only (checked below)"
  },
  {
    from: "api/ControlApi.ts",
    to: "node/api.ts",
    why: "the nodes group (`svc nodes ...`) is declared beside the node registry; it is declarations only (checked below)"
  }
]

const layerOf = (file: string) => {
  let best: readonly [string, number] | undefined
  for (const entry of LAYERS) {
    if (file.startsWith(entry[0]) && (best === undefined || entry[0].length > best[0].length)) best = entry
  }
  return best
}

const sourceFiles = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sourceFiles(path.join(dir, d.name)) : d.name.endsWith(".ts") ? [path.join(dir, d.name)] : []
  )

const IMPORT = /(?:^|[\s;])(?:import|export)\s*(?:type\s+)?(?:[\w*{}\s,$]+\s+from\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g

/** The src/-relative files a file imports (relative specifiers only; packages are not layers). */
const importsOf = (file: string): Array<string> => {
  const text = fs.readFileSync(file, "utf8")
  const out: Array<string> = []
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2]!
    if (!spec.startsWith(".")) continue
    const target = path.resolve(path.dirname(file), spec).replace(/\.js$/, ".ts")
    out.push(path.relative(SRC, target).split(path.sep).join("/"))
  }
  return out
}

const files = sourceFiles(SRC).map((f) => path.relative(SRC, f).split(path.sep).join("/")).sort()

describe("the house", () => {
  it("every file of src/ sits in a layer", () => {
    const homeless = files.filter((f) => layerOf(f) === undefined)
    expect(homeless, "add the folder to LAYERS in this test (and to ARCHITECTURE.md)").toEqual([])
  })

  it("imports only run down the layers", () => {
    const upward: Array<string> = []
    for (const file of files) {
      const [fromPrefix, fromRank] = layerOf(file)!
      for (const target of importsOf(path.join(SRC, file))) {
        const layer = layerOf(target)
        if (layer === undefined) {
          upward.push(`${file} imports ${target}, which is outside every layer`)
          continue
        }
        const [toPrefix, toRank] = layer
        if (toPrefix === fromPrefix || toRank < fromRank) continue
        if (ALLOWED.some((a) => file.startsWith(a.from) && target.startsWith(a.to))) continue
        upward.push(`${file} imports ${target} (${toPrefix}, rank ${toRank}) from ${fromPrefix} (rank ${fromRank})`)
      }
    }
    expect(upward).toEqual([])
  })

  it("finds imports in every form it must (the reader itself works)", () => {
    const imports = importsOf(path.join(SRC, "gateway/layers.ts"))
    expect(imports).toContain("api/ControlApi.ts")
    expect(imports).toContain("http/middleware.ts")
    expect(importsOf(path.join(SRC, "entry/svc.ts"))).toContain("gateway/run.ts")
  })

  it("the gateway's status group declares, and imports nothing but domain/", () => {
    expect(importsOf(path.join(SRC, "gateway/api.ts")).filter((t) => !t.startsWith("domain/"))).toEqual([])
  })

  it("the nodes group declares, and imports nothing but domain/", () => {
    expect(importsOf(path.join(SRC, "node/api.ts")).filter((t) => !t.startsWith("domain/"))).toEqual([])
  })

  it("no file of src/ is much past 600 lines", () => {
    const long = files
      .map((f) => [f, fs.readFileSync(path.join(SRC, f), "utf8").split("\n").length] as const)
      .filter(([, lines]) => lines > 650)
      .map(([f, lines]) => `${f}: ${lines} lines`)
    expect(long, "a file this long is usually two ideas: split it at its seam").toEqual([])
  })

  it("src/version.ts is package.json's version", () => {
    const pkg = JSON.parse(fs.readFileSync(path.resolve(SRC, "../package.json"), "utf8")) as { version: string }
    expect(VERSION).toBe(pkg.version)
  })
})
