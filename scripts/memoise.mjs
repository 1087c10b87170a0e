import * as fs from "node:fs"
import * as path from "node:path"

// Per-run work in dependencies that depends only on immutable, module-level values, memoised in the lean
// bundle so the start-up snapshot carries the results of the warm-up (src/entry/snapshotWarmUp.ts):
// - @effect/cli recomputes the help text of the whole command tree on every parse (to build the built-in
//   --help/--version options), whether or not help is asked for; command descriptors and the CLI config
//   are immutable;
// - HttpApiClient.make builds a response decoder for every endpoint and status each time; a decoder
//   depends only on the schema's AST.
// If a dependency no longer has the expected shape, its file is bundled unchanged and the build says so.
const MEMOISE = [
  {
    file: /@effect[\\/]cli[\\/]dist[\\/]esm[\\/]internal[\\/]commandDescriptor\.js$/,
    edits: [
      ["const getHelpInternal = (self, config) => {", "const getHelpInternal = (self, config) => memo(self, config, getHelpUncached);\nconst getHelpUncached = (self, config) => {"],
      ["const getUsageInternal = self => {", "const getUsageInternal = self => memo(self, memo, getUsageUncached);\nconst getUsageUncached = self => {"]
    ]
  },
  {
    file: /@effect[\\/]platform[\\/]dist[\\/]esm[\\/]HttpApiClient\.js$/,
    edits: [["const schemaToResponse = ast => {", "const schemaToResponse = ast => memo(ast, memo, schemaToResponseUncached);\nconst schemaToResponseUncached = ast => {"]]
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
