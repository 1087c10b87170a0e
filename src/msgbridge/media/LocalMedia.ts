// Local files the channel may send (attachments, group icons): only from under channels.msgbridge.mediaLocalRoots.
//
// The check is on real paths: the file and every root are resolved with realpath (symlinks followed, `..`
// collapsed), and the file must sit inside a root on a path-segment boundary (/a/b admits /a/b/c, never
// /a/bc). No roots means no local paths at all. The file is then opened without following a symlink and the
// open descriptor is checked to be the very file that was confined, so a swap between check and read is
// refused rather than read. Gateway-only (node:fs).

import { Data, Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"

export const MEDIA_ROOTS_KEY = "channels.msgbridge.mediaLocalRoots"

export type LocalMediaDeniedReason =
  /** mediaLocalRoots is empty: local paths are off. */
  | "no-roots"
  /** The path is not absolute. */
  | "not-absolute"
  /** The real path is not inside any root. */
  | "outside-roots"
  /** Nothing (readable) at a path that would be inside a root. */
  | "missing"
  /** Inside a root, but a directory, device, socket ... */
  | "not-a-file"
  /** The file changed between the check and the read. */
  | "changed"

export class LocalMediaDenied extends Data.TaggedError("LocalMediaDenied")<{
  readonly path: string
  readonly reason: LocalMediaDeniedReason
  readonly message: string
}> {}

export class LocalMediaTooLarge extends Data.TaggedError("LocalMediaTooLarge")<{
  readonly path: string
  /** Bytes seen (at least maxBytes + 1 when the file grew while being read). */
  readonly size: number
  readonly maxBytes: number
  readonly message: string
}> {}

export interface ConfinedMedia {
  readonly realPath: string
  readonly size: number
}

export interface LocalMedia extends ConfinedMedia {
  readonly data: Uint8Array
}

interface Confined extends ConfinedMedia {
  readonly dev: number
  readonly ino: number
}

const errnoCode = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | undefined)?.code

/** `child` is `root` or below it, on a path-segment boundary. Both must be normalised absolute paths. */
export const isWithin = (child: string, root: string): boolean => {
  if (child === root) return true
  const prefix = root.endsWith(path.sep) ? root : root + path.sep
  return child.startsWith(prefix)
}

const denied = (p: string, reason: LocalMediaDeniedReason, message: string) => new LocalMediaDenied({ path: p, reason, message })

/** Real paths of the roots that exist; a root that does not exist admits nothing. */
const realRoots = (roots: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<string>> =>
  Effect.forEach(
    roots,
    (root) =>
      Effect.promise(() =>
        fs.promises.realpath(path.resolve(root)).then(
          (real) => [real],
          () => []
        )
      ),
    { concurrency: 4 }
  ).pipe(Effect.map((lists) => lists.flat()))

const confine = (file: string, roots: ReadonlyArray<string>): Effect.Effect<Confined, LocalMediaDenied> =>
  Effect.gen(function*() {
    if (roots.length === 0) {
      return yield* denied(
        file,
        "no-roots",
        `local files cannot be sent: ${MEDIA_ROOTS_KEY} is empty; set it to the folders files may be sent from`
      )
    }
    if (!path.isAbsolute(file)) {
      return yield* denied(file, "not-absolute", `"${file}" is not an absolute path; give the full path of a file under ${MEDIA_ROOTS_KEY}`)
    }
    const outside = denied(
      file,
      "outside-roots",
      `${file} is outside ${MEDIA_ROOTS_KEY} (${roots.join(", ")}); only files under those folders can be sent (symlinks are followed to where they point)`
    )
    const reals = yield* realRoots(roots)
    const real = yield* Effect.promise(() =>
      fs.promises.realpath(file).then(
        (r) => ({ ok: true as const, real: r }),
        (e: unknown) => ({ ok: false as const, code: errnoCode(e) })
      )
    )
    if (!real.ok) {
      // Say "missing" only where the file would have been allowed: elsewhere, do not tell what exists.
      const lexical = path.resolve(file)
      const underRoot = reals.some((r) => isWithin(lexical, r)) || roots.some((r) => isWithin(lexical, path.resolve(r)))
      if (!underRoot) return yield* outside
      return yield* denied(file, "missing", `no readable file at ${file}${real.code !== undefined ? ` (${real.code})` : ""}`)
    }
    if (!reals.some((root) => isWithin(real.real, root))) return yield* outside
    const stat = yield* Effect.promise(() => fs.promises.stat(real.real).then((s) => s, () => undefined))
    if (stat === undefined) return yield* denied(file, "missing", `no readable file at ${file}`)
    if (!stat.isFile()) return yield* denied(file, "not-a-file", `${file} is not a regular file`)
    return { realPath: real.real, size: stat.size, dev: stat.dev, ino: stat.ino }
  })

/**
 * Check that `file` may be sent: an absolute path whose real path is a regular file inside one of `roots`
 * (themselves resolved to real paths). Empty roots deny every path.
 */
export const confineLocalMedia = (file: string, roots: ReadonlyArray<string>): Effect.Effect<ConfinedMedia, LocalMediaDenied> =>
  confine(file, roots).pipe(Effect.map(({ realPath, size }) => ({ realPath, size })))

const tooLarge = (file: string, size: number, maxBytes: number, grew = false) =>
  new LocalMediaTooLarge({
    path: file,
    size,
    maxBytes,
    message: `${file} is ${grew ? "more than " + maxBytes : size} bytes, over the ${maxBytes}-byte limit (channels.msgbridge.mediaMaxMb)`
  })

const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0
const CHUNK = 64 * 1024

/**
 * Confine `file` (see confineLocalMedia), then read it, never more than maxBytes: a file larger than that
 * fails with LocalMediaTooLarge before anything is read, and one that grows past it while being read fails
 * as soon as the extra byte arrives.
 */
export const readLocalMedia = (
  file: string,
  roots: ReadonlyArray<string>,
  maxBytes: number
): Effect.Effect<LocalMedia, LocalMediaDenied | LocalMediaTooLarge> =>
  Effect.gen(function*() {
    const confined = yield* confine(file, roots)
    if (confined.size > maxBytes) return yield* tooLarge(file, confined.size, maxBytes)
    const changed = denied(file, "changed", `${file} changed while it was being read; try again`)
    return yield* Effect.acquireUseRelease(
      Effect.tryPromise({
        try: () => fs.promises.open(confined.realPath, fs.constants.O_RDONLY | O_NOFOLLOW),
        catch: () => changed
      }),
      (handle) =>
        Effect.gen(function*() {
          const stat = yield* Effect.tryPromise({ try: () => handle.stat(), catch: () => changed })
          // The descriptor must be the file that was confined: not a symlink or another file swapped in since.
          if (!stat.isFile() || stat.dev !== confined.dev || stat.ino !== confined.ino) return yield* changed
          const parts: Array<Buffer> = []
          let total = 0
          for (;;) {
            const chunk = Buffer.allocUnsafe(CHUNK)
            const { bytesRead } = yield* Effect.tryPromise({
              try: () => handle.read(chunk, 0, CHUNK, null),
              catch: (e) => denied(file, "missing", `cannot read ${file}: ${(e as Error).message}`)
            })
            if (bytesRead === 0) break
            total += bytesRead
            if (total > maxBytes) return yield* tooLarge(file, total, maxBytes, true)
            parts.push(chunk.subarray(0, bytesRead))
          }
          const data: Uint8Array = Buffer.concat(parts, total)
          return { realPath: confined.realPath, size: total, data }
        }),
      (handle) => Effect.promise(() => handle.close().catch(() => undefined))
    )
  })
