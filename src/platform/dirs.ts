import * as fs from "node:fs"
import * as path from "node:path"

// `mkdir -p` without node's recursive mkdir, which never returns on a path under /proc (each mkdir there
// answers ENOENT for a parent that exists, and node tries the parent again, forever). Each missing folder
// is made on its own, from the deepest one that exists; a folder that cannot be made is an error at once.

/** Makes `dir` and any missing parents (owner-only unless `mode` says otherwise); throws with the reason. */
export const makeDirsSync = (dir: string, mode = 0o700): void => {
  const missing: Array<string> = []
  let at = path.resolve(dir)
  for (;;) {
    try {
      if (!fs.statSync(at).isDirectory()) throw new Error(`${at} is not a folder`)
      break
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e
    }
    missing.push(at)
    const parent = path.dirname(at)
    if (parent === at) break
    at = parent
  }
  for (const d of missing.reverse()) {
    try {
      fs.mkdirSync(d, { mode })
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST" && fs.statSync(d).isDirectory()) continue
      throw new Error(`cannot create the folder ${d}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)
    }
  }
}
