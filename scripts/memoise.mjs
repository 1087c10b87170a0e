import * as fs from "node:fs"
import * as path from "node:path"

// Per-run work in dependencies that depends only on immutable, module-level values, memoised in the lean
// CLI bundle so that the start-up snapshot carries the results of the warm-up
// (src/entry/snapshotWarmUp.ts) and a run does not redo it.
// - HttpApiClient.make builds a response decoder (a Schema transformation and its parser) for every
//   endpoint and status each time it is called, once per CLI run: about 6 ms of CPU. A decoder depends only
//   on the schema's AST, which for the control API is built once, at module level.
// - @effect/ai's LanguageModel builds the schema of a response's parts (Response.Part) from the toolkit on
//   every model call, a Schema class per tool and part kind, and a decoder for it: 3-5 ms of CPU per call
//   for the gateway agent's dozen tools, every tool round. The schema depends only on the toolkit's tools
//   (immutable), so it is kept per tools record: a turn's later rounds reuse its first round's.
// (Measured and left out: @effect/cli's help computation on every parse, which costs nothing once warm.)
// If a dependency no longer has the expected shape, its file is bundled unchanged and the build says so.
const MEMOISE = [
  {
    file: /@effect[\\/]platform[\\/]dist[\\/]esm[\\/]HttpApiClient\.js$/,
    edits: [["const schemaToResponse = ast => {", "const schemaToResponse = ast => memo(ast, memo, schemaToResponseUncached);\nconst schemaToResponseUncached = ast => {"]]
  },
  {
    file: /@effect[\\/]ai[\\/]dist[\\/]esm[\\/]Response\.js$/,
    edits: [["export const Part = toolkit => {", "export const Part = toolkit => memo(toolkit.tools, memo, () => PartUncached(toolkit));\nconst PartUncached = toolkit => {"]]
  }
]
const MEMO_HELPER = `
const memoCache = new WeakMap();
function memo(a, b, f) {
  let inner = memoCache.get(a);
  if (inner === undefined) memoCache.set(a, inner = new WeakMap());
  let value = inner.get(b);
  if (value === undefined) inner.set(b, value = f(a, b));
  return value;
}
`
export const memoiseDependencies = ({ root, warn }) => ({
  name: "memoise-dependencies",
  setup(build) {
    for (const { file, edits } of MEMOISE) {
      build.onLoad({ filter: file }, async (args) => {
        let contents = await fs.promises.readFile(args.path, "utf8")
        if (edits.some(([from]) => !contents.includes(from))) {
          warn(`${path.relative(root, args.path)} changed: bundled without its memoisation (scripts/build.mjs MEMOISE)`)
          return { contents, loader: "js" }
        }
        for (const [from, to] of edits) contents = contents.replace(from, to)
        return { contents: contents + MEMO_HELPER, loader: "js" }
      })
    }
  }
})
