import * as fs from "node:fs"
import * as path from "node:path"
import { filePathsIn } from "../protocol.js"

// The files a node's answer names (screenshots, PDFs, downloads, traces), to be sent with it. Only regular
// files under the node's own roots (its media folder, its temp root) go: an answer that quotes any other
// path (a cookie's path, a page's text) never ships a file of the node's machine.

/** Bytes of files one answer carries at most (the gateway's socket takes frames up to 100 MiB). */
export const MAX_ANSWER_FILE_BYTES = 90 * 1024 * 1024

const within = (root: string, file: string) => {
  const rel = path.relative(root, file)
  return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel)
}

const realRoot = (root: string) => {
  try {
    return fs.realpathSync(root)
  } catch {
    return undefined
  }
}

export const answerFiles = (
  body: unknown,
  roots: ReadonlyArray<string>
): Array<{ readonly path: string; readonly data: Uint8Array }> => {
  const real = roots.map(realRoot).filter((r): r is string => r !== undefined)
  const out: Array<{ path: string; data: Uint8Array }> = []
  let total = 0
  for (const p of filePathsIn(body)) {
    if (!path.isAbsolute(p)) continue
    try {
      const resolved = fs.realpathSync(p)
      if (!real.some((root) => within(root, resolved))) continue
      const st = fs.statSync(resolved)
      if (!st.isFile() || total + st.size > MAX_ANSWER_FILE_BYTES) continue
      const data = fs.readFileSync(resolved)
      total += data.byteLength
      out.push({ path: p, data })
    } catch {
      // Gone or unreadable: the answer keeps the node's path.
    }
  }
  return out
}
