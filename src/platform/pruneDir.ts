import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"

// Keeps a directory of produced files (inbound media, screenshots, PDFs) bounded in age and size.

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e))
const errnoCode = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | undefined)?.code

export interface PruneOptions {
  /** Files older than this (by modification time) go; default PRUNE_DEFAULTS.maxAgeMs. */
  readonly maxAgeMs?: number
  /** Then the oldest go until the rest fit; default PRUNE_DEFAULTS.maxTotalBytes. */
  readonly maxTotalBytes?: number
}

export interface PruneResult {
  readonly removedFiles: number
  readonly removedBytes: number
  readonly keptFiles: number
  readonly keptBytes: number
}

/**
 * 7 days, 512 MiB: media (inbound attachments, screenshots, PDFs) is for the agent's turn and the next few,
 * not an archive. Keep maxTotalBytes well above a single file's cap, or a fresh file can be pruned at once.
 */
export const PRUNE_DEFAULTS = { maxAgeMs: 7 * 24 * 60 * 60 * 1000, maxTotalBytes: 512 * 1024 * 1024 } as const

/** A `.part` file older than this is a leftover of a crash, not a download in progress. */
const STALE_PART_MS = 60 * 60 * 1000

interface PrunedFile {
  readonly file: string
  readonly size: number
  readonly mtimeMs: number
}

/**
 * Bound the disk used by the files under `dir`: remove files older than maxAgeMs, then the oldest until the
 * total is at most maxTotalBytes, then empty subdirectories (never `dir`). A hidden `.part` file is a
 * download in progress (removed only when stale). Symbolic links are neither followed nor counted.
 * Failures are logged (under `what`), never raised.
 */
export const pruneDir = (dir: string, what: string, options: PruneOptions = {}): Effect.Effect<PruneResult> =>
  Effect.gen(function*() {
    const maxAgeMs = options.maxAgeMs ?? PRUNE_DEFAULTS.maxAgeMs
    const maxTotalBytes = options.maxTotalBytes ?? PRUNE_DEFAULTS.maxTotalBytes
    const now = Date.now() // file times are wall-clock times
    const warnings: Array<string> = []
    const files: Array<PrunedFile> = []
    const dirs: Array<string> = []

    const walk = (d: string) => {
      let entries: Array<fs.Dirent>
      try {
        entries = fs.readdirSync(d, { withFileTypes: true })
      } catch (e) {
        if (errnoCode(e) !== "ENOENT") warnings.push(`cannot list ${d}: ${errorText(e)}`)
        return
      }
      for (const entry of entries) {
        const p = path.join(d, entry.name)
        if (entry.isDirectory()) {
          dirs.push(p)
          walk(p)
        } else if (entry.isFile()) {
          try {
            const st = fs.lstatSync(p)
            files.push({ file: p, size: st.size, mtimeMs: st.mtimeMs })
          } catch (e) {
            if (errnoCode(e) !== "ENOENT") warnings.push(`cannot stat ${p}: ${errorText(e)}`)
          }
        }
      }
    }
    walk(dir)

    let removedFiles = 0
    let removedBytes = 0
    const remove = (f: PrunedFile): boolean => {
      try {
        fs.rmSync(f.file, { force: true })
        removedFiles++
        removedBytes += f.size
        return true
      } catch (e) {
        warnings.push(`cannot remove ${f.file}: ${errorText(e)}`)
        return false
      }
    }

    const isPart = (f: PrunedFile) => path.basename(f.file).startsWith(".") && f.file.endsWith(".part")
    const kept: Array<PrunedFile> = []
    for (const f of files) {
      if (isPart(f)) {
        // a download in progress is neither pruned nor counted
        if (now - f.mtimeMs > STALE_PART_MS) remove(f)
      } else if (now - f.mtimeMs > maxAgeMs) {
        if (!remove(f)) kept.push(f)
      } else {
        kept.push(f)
      }
    }
    kept.sort((a, b) => a.mtimeMs - b.mtimeMs)
    let total = kept.reduce((n, f) => n + f.size, 0)
    let keptFiles = kept.length
    for (const f of kept) {
      if (total <= maxTotalBytes) break
      if (remove(f)) {
        total -= f.size
        keptFiles--
      }
    }

    // deepest first, so a date directory emptied above goes too
    for (const d of dirs.sort((a, b) => b.length - a.length)) {
      try {
        fs.rmdirSync(d)
      } catch {
        // not empty (or gone): keep it
      }
    }

    for (const w of warnings) yield* Effect.logWarning(`${what} pruning: ${w}`)
    return { removedFiles, removedBytes, keptFiles, keptBytes: total }
  })
