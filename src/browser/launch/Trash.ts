import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import { InternalError } from "../../domain/errors.js"

// Deleting a profile moves its data to a trash, never unlinks it: the desktop's trash where there is one
// (freedesktop home trash, macOS ~/.Trash), else <stateDir>/trash. A move across filesystems is a copy
// followed by removing the original, and the original is only removed once the copy is complete.

export interface TrashEnv {
  readonly platform: NodeJS.Platform
  readonly env: Readonly<Record<string, string | undefined>>
  readonly homedir: string
  readonly now: () => Date
  /** fs.rename; injectable so a test can simulate a cross-device move. */
  readonly rename: (from: string, to: string) => Promise<void>
}

export interface TrashOptions {
  readonly stateDir: string
}

export type TrashKind = "freedesktop" | "macos" | "state"

const errnoCode = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | undefined)?.code

const pathExists = async (p: string): Promise<boolean> => {
  try {
    await fs.lstat(p)
    return true
  } catch (e) {
    if (errnoCode(e) === "ENOENT") return false
    throw e
  }
}

const isDir = async (p: string): Promise<boolean> => {
  try {
    return (await fs.stat(p)).isDirectory()
  } catch {
    return false
  }
}

/** The freedesktop home trash: $XDG_DATA_HOME/Trash, or ~/.local/share/Trash. */
export const freedesktopTrashDir = (env: Readonly<Record<string, string | undefined>>, homedir: string): string => {
  const dataHome = env.XDG_DATA_HOME
  return path.join(
    dataHome !== undefined && path.isAbsolute(dataHome) ? dataHome : path.join(homedir, ".local", "share"),
    "Trash"
  )
}

const pad = (n: number): string => String(n).padStart(2, "0")

/** DeletionDate per the trash spec: local time, YYYY-MM-DDThh:mm:ss. */
export const trashInfoDate = (d: Date): string =>
  `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`

/** The .trashinfo body for an absolute original path (percent-encoded, slashes kept). */
export const trashInfo = (originalPath: string, deletedAt: Date): string =>
  `[Trash Info]\nPath=${originalPath.split("/").map(encodeURIComponent).join("/")}\nDeletionDate=${trashInfoDate(deletedAt)}\n`

const stamp = (d: Date): string => d.toISOString().replace(/[:.]/g, "-")

/** Moves (rename, or copy then remove across devices). On failure the source is intact. */
const move = async (from: string, to: string, rename: TrashEnv["rename"]): Promise<void> => {
  try {
    await rename(from, to)
    return
  } catch (e) {
    if (errnoCode(e) !== "EXDEV") throw e
  }
  try {
    await fs.cp(from, to, {
      recursive: true,
      errorOnExist: true,
      force: false,
      preserveTimestamps: true,
      verbatimSymlinks: true
    })
  } catch (e) {
    await fs.rm(to, { recursive: true, force: true }).catch(() => undefined)
    throw e
  }
  await fs.rm(from, { recursive: true, force: true })
}

const toFreedesktop = async (src: string, trashDir: string, tenv: TrashEnv): Promise<string> => {
  const filesDir = path.join(trashDir, "files")
  const infoDir = path.join(trashDir, "info")
  await fs.mkdir(filesDir, { recursive: true, mode: 0o700 })
  await fs.mkdir(infoDir, { recursive: true, mode: 0o700 })
  const base = path.basename(src)
  const deletedAt = tenv.now()
  for (let n = 1; n < 10_000; n++) {
    const name = n === 1 ? base : `${base}.${n}`
    if (await pathExists(path.join(filesDir, name))) continue
    const infoFile = path.join(infoDir, `${name}.trashinfo`)
    // Creating the info file exclusively is what reserves the name (per the spec).
    let handle: fs.FileHandle
    try {
      handle = await fs.open(infoFile, "wx", 0o600)
    } catch (e) {
      if (errnoCode(e) === "EEXIST") continue
      throw e
    }
    try {
      await handle.writeFile(trashInfo(src, deletedAt))
    } finally {
      await handle.close()
    }
    const dest = path.join(filesDir, name)
    try {
      await move(src, dest, tenv.rename)
    } catch (e) {
      await fs.rm(infoFile, { force: true }).catch(() => undefined)
      throw e
    }
    return dest
  }
  throw new Error(`no free name for ${base} in ${filesDir}`)
}

const toPlainDir = async (src: string, root: string, firstName: string, tenv: TrashEnv): Promise<string> => {
  await fs.mkdir(root, { recursive: true })
  for (let n = 1; n < 10_000; n++) {
    const dest = path.join(root, n === 1 ? firstName : `${firstName}-${n}`)
    if (await pathExists(dest)) continue
    await move(src, dest, tenv.rename)
    return dest
  }
  throw new Error(`no free name for ${firstName} in ${root}`)
}

/** Which trash a move would use, and where it is. */
export const chooseTrash = async (
  opts: TrashOptions,
  tenv: TrashEnv
): Promise<{ readonly kind: TrashKind; readonly dir: string }> => {
  if (tenv.platform === "darwin") {
    const dir = path.join(tenv.homedir, ".Trash")
    if (await isDir(dir)) return { kind: "macos", dir }
  } else if (tenv.platform !== "win32") {
    const dir = freedesktopTrashDir(tenv.env, tenv.homedir)
    if (await isDir(dir)) return { kind: "freedesktop", dir }
  }
  return { kind: "state", dir: path.join(path.resolve(opts.stateDir), "trash") }
}

const isInside = (child: string, parent: string): boolean => {
  const rel = path.relative(parent, child)
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel))
}

/** Moves `dir` to a trash and answers where it went. */
export const moveToTrashWith = (
  dir: string,
  opts: TrashOptions,
  tenv: TrashEnv
): Effect.Effect<string, InternalError> =>
  Effect.tryPromise({
    try: async () => {
      const src = path.resolve(dir)
      if (src === path.parse(src).root || src === path.resolve(tenv.homedir)) {
        throw new Error(`refusing to trash ${src}`)
      }
      if (!(await pathExists(src))) throw new Error(`${src} does not exist`)
      const trash = await chooseTrash(opts, tenv)
      if (isInside(trash.dir, src)) throw new Error(`the trash (${trash.dir}) is inside it`)
      const name = path.basename(src)
      switch (trash.kind) {
        case "freedesktop":
          return await toFreedesktop(src, trash.dir, tenv)
        case "macos":
          return await toPlainDir(src, trash.dir, name, tenv).catch(async (e) => {
            // ~/.Trash may refuse us (macOS privacy protection); the state dir never does.
            if (errnoCode(e) !== "EPERM" && errnoCode(e) !== "EACCES") throw e
            return await toPlainDir(src, path.join(path.resolve(opts.stateDir), "trash"), `${name}-${stamp(tenv.now())}`, tenv)
          })
        case "state":
          return await toPlainDir(src, trash.dir, `${name}-${stamp(tenv.now())}`, tenv)
      }
    },
    catch: (e) =>
      new InternalError({
        message: `could not move ${dir} to the trash: ${e instanceof Error ? e.message : String(e)}`
      })
  })

export const nodeTrashEnv = (): TrashEnv => ({
  platform: process.platform,
  env: { ...process.env },
  homedir: os.homedir(),
  now: () => new Date(),
  rename: (from, to) => fs.rename(from, to)
})

export class Trash extends Effect.Service<Trash>()("svc/Trash", {
  sync: () => {
    const tenv = nodeTrashEnv()
    return {
      moveToTrash: (dir: string, opts: TrashOptions): Effect.Effect<string, InternalError> =>
        moveToTrashWith(dir, opts, tenv).pipe(Effect.withSpan("Trash.moveToTrash"))
    }
  }
}) {}
