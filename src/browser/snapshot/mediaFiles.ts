import { Effect } from "effect"
import * as crypto from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { InternalError } from "../../domain/errors.js"

/** `<state dir>/media/browser/`: where screenshots, labels, element shots and PDFs go (and are pruned). */
export const browserMediaDir = (mediaDir: string) => path.join(mediaDir, "browser")

/**
 * Writes what the browser produced (screenshots, labels, PDFs) under `dir` (`<state dir>/media/browser/`),
 * owner-only, under a new name (`<prefix>-<time>-<random>.<ext>`; never overwriting); answers the path.
 */
export const writeMediaFile = (dir: string, prefix: string, ext: string, bytes: Uint8Array) =>
  Effect.tryPromise({
    try: async () => {
      const stamp = new Date().toISOString().replace(/[:.]/g, "-")
      const file = path.join(dir, `${prefix}-${stamp}-${crypto.randomBytes(3).toString("hex")}.${ext}`)
      await fs.mkdir(dir, { recursive: true, mode: 0o700 })
      await fs.writeFile(file, bytes, { mode: 0o600, flag: "wx" })
      return file
    },
    catch: (e) => new InternalError({ message: `cannot write a file under ${dir}: ${(e as Error).message}` })
  })
