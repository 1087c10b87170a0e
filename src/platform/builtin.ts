/**
 * A node builtin, loaded on first use. Code that the CLI's V8 start-up snapshot holds cannot load
 * `node:http`, `node:readline`, `node:child_process` and friends at its top level (the snapshot is built
 * where they do not load), so it asks for them here, at run time.
 */
export const builtin = <T>(id: string): T =>
  (typeof process.getBuiltinModule === "function" ? process.getBuiltinModule(id) : require(id)) as T
