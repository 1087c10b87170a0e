import * as esbuild from "esbuild"
import * as path from "node:path"
import { createRequire } from "node:module"
import { describe, expect, it } from "vitest"
// @ts-expect-error: a build script without types
import { memoiseDependencies } from "../../../scripts/memoise.mjs"

// The bundles memoise pure per-call work of their dependencies (scripts/memoise.mjs). Built here the way
// scripts/build.mjs builds them: the edits must still apply to the pinned versions, and the memoised
// functions must answer the same value for the same input.

const root = path.resolve(__dirname, "../../..")

const bundle = async (source: string) => {
  const warnings: Array<string> = []
  const out = await esbuild.build({
    stdin: { contents: source, resolveDir: root, loader: "ts" },
    bundle: true,
    platform: "node",
    format: "cjs",
    write: false,
    logLevel: "silent",
    plugins: [memoiseDependencies({ root, warn: (m: string) => warnings.push(m) })]
  })
  const module = { exports: {} as Record<string, unknown> }
  new Function("module", "exports", "require", out.outputFiles[0]!.text)(module, module.exports, createRequire(path.join(root, "package.json")))
  return { exports: module.exports, warnings }
}

describe("memoised dependencies", () => {
  it("@effect/ai builds a toolkit's response schema once, not on every model call", async () => {
    const { exports, warnings } = await bundle(`
      import { Response, Tool, Toolkit } from "@effect/ai"
      export const run = () => {
        const kit = Toolkit.make(Tool.make("a"), Tool.make("b"))
        const other = Toolkit.make(Tool.make("a"))
        return { same: Response.Part(kit) === Response.Part(kit), apart: Response.Part(kit) !== Response.Part(other) }
      }`)
    expect(warnings).toEqual([])
    expect((exports.run as () => unknown)()).toEqual({ same: true, apart: true })
  }, 60_000)

  it("HttpApiClient keeps one response decoder per schema", async () => {
    const { warnings } = await bundle(`import "@effect/platform/HttpApiClient"`)
    expect(warnings).toEqual([])
  }, 60_000)
})
