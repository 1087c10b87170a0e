import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeDirsSync } from "./dirs.js"

// Replacing a file whole or not at all: the one way svc writes its state files (config, stores, the
// agent's conversations, the node approvals). A reader sees the old file or the new one, never half.

/** Temp files are `<file>.<pid>.<random>.tmp` beside the target; readers never look at them. */
export const tempPathFor = (file: string): string => `${file}.${process.pid}.${crypto.randomBytes(4).toString("hex")}.tmp`

const fsyncDir = (dir: string): void => {
  try {
    const fd = fs.openSync(dir, "r")
    try {
      fs.fsyncSync(fd)
    } finally {
      fs.closeSync(fd)
    }
  } catch {
    // Some platforms cannot fsync a directory; the rename is still atomic.
  }
}

/**
 * Writes `text` to a temp file beside `file` (its folders made owner-only when missing), syncs it, renames
 * it over `file` with `mode` (owner-only unless said otherwise, whatever the umask) and syncs the folder.
 */
export const writeFileAtomicSync = (file: string, text: string, mode = 0o600): void => {
  makeDirsSync(path.dirname(file))
  const tmp = tempPathFor(file)
  try {
    const fd = fs.openSync(tmp, "w", mode)
    try {
      fs.writeSync(fd, text)
      fs.fsyncSync(fd)
    } finally {
      fs.closeSync(fd)
    }
    fs.chmodSync(tmp, mode)
    fs.renameSync(tmp, file)
  } finally {
    fs.rmSync(tmp, { force: true })
  }
  fsyncDir(path.dirname(file))
}
