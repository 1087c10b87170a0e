import { Effect, Either, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { InternalError, InvalidRequest } from "../../domain/errors.js"

// Where the browser may write (downloads, traces) and read (uploads) on this machine, and where storage
// states are saved and read back: owner-only roots, and two checks that keep every name an agent gives inside its root. A refused name is refused
// before anything is written or read; only metadata (lstat, realpath) is looked at.

export const PREFERRED_BASE = "/tmp/svc"
export const MAX_SEGMENT_BYTES = 255
const CONTROL = /[\u0000-\u001f\u007f]/

export interface FileRoots {
  /** Owner-only base; traces are written here. */
  readonly base: string
  readonly traces: string
  readonly downloads: string
  readonly uploads: string
  /** Saved storage states (cookies and local storage), written and read back here. */
  readonly states: string
}

export interface SafePathsOptions {
  /** Use this base as it is (tests); no fallback is tried. */
  readonly base?: string
  /** What os.tmpdir() would say (tests). */
  readonly tmpdir?: string
  /** The preferred base, `/tmp/svc` unless told (tests). */
  readonly preferred?: string
}

const errorCode = (e: unknown): string | undefined =>
  typeof e === "object" && e !== null && "code" in e ? String((e as { code: unknown }).code) : undefined

const lstatOrUndefined = (p: string): fs.Stats | undefined => {
  try {
    return fs.lstatSync(p)
  } catch (e) {
    if (errorCode(e) === "ENOENT") return undefined
    throw e
  }
}

const uid = (): number | undefined => (typeof process.getuid === "function" ? process.getuid() : undefined)

/** Whether `child` is `parent` or lies under it (both absolute and normalised). */
const within = (parent: string, child: string): boolean => {
  const rel = path.relative(parent, child)
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel))
}

/** Why a directory cannot serve as (part of) a root, or undefined when it can. */
const unusableDir = (dir: string): string | undefined => {
  let st: fs.Stats | undefined
  try {
    st = lstatOrUndefined(dir)
  } catch (e) {
    return `cannot inspect it (${errorCode(e) ?? String(e)})`
  }
  if (st === undefined) {
    try {
      fs.accessSync(path.dirname(dir), fs.constants.W_OK | fs.constants.X_OK)
      return undefined
    } catch {
      return `${path.dirname(dir)} is not writable`
    }
  }
  if (st.isSymbolicLink()) return "it is a symlink"
  if (!st.isDirectory()) return "it is not a directory"
  const me = uid()
  if (me !== undefined && st.uid !== me) return `it belongs to another user (uid ${st.uid})`
  return undefined
}

/** Creates `dir` owner-only, or tightens the mode of ours; fails when it is not ours or not a directory. */
const ensureDir = (dir: string): void => {
  const why = unusableDir(dir)
  if (why !== undefined) throw new Error(`${dir} cannot be used: ${why}`)
  try {
    fs.mkdirSync(dir, { mode: 0o700 })
  } catch (e) {
    if (errorCode(e) !== "EEXIST") throw e
  }
  const st = fs.lstatSync(dir)
  if (st.isSymbolicLink() || !st.isDirectory()) throw new Error(`${dir} cannot be used: it changed under us`)
  if ((st.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700)
}

/**
 * The base: `/tmp/svc` when usable, else `<tmpdir>/svc`, else `<tmpdir>/svc-<uid>` (the per-user name also
 * covers a tmpdir that is /tmp itself, where `/tmp/svc` belongs to someone else or is a symlink).
 */
export const chooseBase = (options: SafePathsOptions = {}): string => {
  if (options.base !== undefined) return path.resolve(options.base)
  const preferred = options.preferred ?? PREFERRED_BASE
  const tmp = path.resolve(options.tmpdir ?? os.tmpdir())
  const me = uid()
  const candidates = [preferred, path.join(tmp, "svc"), path.join(tmp, `svc-${me ?? process.pid}`)]
  const seen = new Set<string>()
  for (const candidate of candidates) {
    if (seen.has(candidate)) continue
    seen.add(candidate)
    if (unusableDir(candidate) === undefined) return candidate
  }
  return candidates[candidates.length - 1]!
}

/** Creates (or checks) the base and its roots, owner-only. */
export const ensureRoots = (base: string): Either.Either<FileRoots, InternalError> => {
  const roots: FileRoots = {
    base,
    traces: base,
    downloads: path.join(base, "downloads"),
    uploads: path.join(base, "uploads"),
    states: path.join(base, "states")
  }
  try {
    fs.mkdirSync(path.dirname(base), { recursive: true, mode: 0o700 })
    ensureDir(base)
    ensureDir(roots.downloads)
    ensureDir(roots.uploads)
    ensureDir(roots.states)
    return Either.right(roots)
  } catch (e) {
    return Either.left(
      new InternalError({
        message: `the file roots under ${base} cannot be prepared: ${e instanceof Error ? e.message : String(e)}; ` +
          "it must be a directory owned by the gateway's user (remove or fix it and retry)"
      })
    )
  }
}

// ---------------------------------------------------------------------------------------------------------
// Confinement

const refuse = (message: string) => Either.left(new InvalidRequest({ message }))

/** A printable form of what the agent gave, for messages. */
const shown = (s: string): string => JSON.stringify(s.length > 120 ? `${s.slice(0, 117)}...` : s)

/** Problems of a raw name any check refuses: empty, control characters, over-long segments. */
const nameProblem = (name: string): string | undefined => {
  if (name.trim() === "") return "the name is empty"
  if (CONTROL.test(name)) return `${shown(name)} contains control characters`
  const long = name.split(/\/+/).find((seg) => Buffer.byteLength(seg, "utf8") > MAX_SEGMENT_BYTES)
  if (long !== undefined) {
    return `a path segment is ${Buffer.byteLength(long, "utf8")} bytes long (at most ${MAX_SEGMENT_BYTES} per name)`
  }
  return undefined
}

/** The deepest existing ancestor of `p` (p itself excluded), and what lies below it. */
const deepestExisting = (p: string): { readonly dir: string; readonly rest: ReadonlyArray<string> } => {
  const rest: Array<string> = []
  let dir = path.dirname(p)
  rest.unshift(path.basename(p))
  while (lstatOrUndefined(dir) === undefined) {
    const parent = path.dirname(dir)
    if (parent === dir) break
    rest.unshift(path.basename(dir))
    dir = parent
  }
  return { dir, rest }
}

/**
 * Where a file named `name` (a file name, a relative path, or an absolute path inside `root`) is to be
 * written under `root`. Refused: names that leave the root (`..`, absolute paths elsewhere, symlinks on the
 * way that point out), a symlink or a directory at the final name, control characters, empty names,
 * segments over 255 bytes. The answer is built on the root's real path; the file may or may not exist yet.
 */
export const confineNewSync = (root: string, name: string): Either.Either<string, InvalidRequest> => {
  const example = `a file name inside ${root} such as report.pdf (sub-folders allowed, no "..", no absolute paths elsewhere)`
  const problem = nameProblem(name)
  if (problem !== undefined) return refuse(`${problem}; give ${example}`)
  if (name.endsWith("/")) return refuse(`${shown(name)} names a folder, not a file; give ${example}`)
  const absRoot = path.resolve(root)
  const target = path.resolve(absRoot, name)
  if (!within(absRoot, target)) {
    return refuse(
      path.isAbsolute(name)
        ? `${shown(name)} is outside ${root}; give ${example}`
        : `${shown(name)} leaves ${root} (through ".."); give ${example}`
    )
  }
  if (target === absRoot) return refuse(`${shown(name)} names the folder ${root} itself, not a file; give ${example}`)
  try {
    const realRoot = fs.realpathSync(absRoot)
    const { dir, rest } = deepestExisting(target)
    const realDir = fs.realpathSync(dir)
    if (!within(realRoot, realDir)) {
      return refuse(`${shown(name)} goes through a symlink that points outside ${root}; give ${example}`)
    }
    const real = path.join(realDir, ...rest)
    if (!within(realRoot, real) || real === realRoot) return refuse(`${shown(name)} leaves ${root}; give ${example}`)
    const st = lstatOrUndefined(real)
    if (st?.isSymbolicLink() === true) {
      return refuse(`${shown(name)} is a symlink in ${root}; symlinks are never written through; give ${example}`)
    }
    if (st !== undefined && !st.isFile()) return refuse(`${shown(name)} exists in ${root} and is not a regular file; give ${example}`)
    return Either.right(real)
  } catch (e) {
    if (errorCode(e) === "ENOTDIR") return refuse(`${shown(name)} goes through a file as if it were a folder; give ${example}`)
    if (errorCode(e) === "ENOENT") return refuse(`${root} does not exist; the gateway creates it at first use, retry`)
    return refuse(`${shown(name)} cannot be checked (${errorCode(e) ?? String(e)}); give ${example}`)
  }
}

/**
 * The real path of an existing regular file `p` (absolute, or relative to `root`) that resolves, symlinks
 * followed, inside the real path of `root`. Anything else is refused without reading it.
 */
export const confineExistingSync = (root: string, p: string): Either.Either<string, InvalidRequest> => {
  const placeFirst = `copy the file into ${root} first, then give its name there (such as report.pdf) or its full path`
  const problem = nameProblem(p)
  if (problem !== undefined) return refuse(`${problem}; ${placeFirst}`)
  const absRoot = path.resolve(root)
  const candidate = path.resolve(absRoot, p)
  try {
    const realRoot = fs.realpathSync(absRoot)
    let real: string
    try {
      real = fs.realpathSync(candidate)
    } catch (e) {
      const code = errorCode(e)
      if (code === "ENOENT" || code === "ENOTDIR") {
        // A missing file named outside the root is refused for being outside first: that is what to change.
        const outside = !within(absRoot, candidate) && !within(realRoot, candidate)
        return refuse(
          outside
            ? `${shown(p)} is outside ${root} (and does not exist); files are read only from there: ${placeFirst}`
            : `${shown(p)} does not exist in ${root}; ${placeFirst}`
        )
      }
      throw e
    }
    if (!within(realRoot, real) || real === realRoot) {
      return refuse(`${shown(p)} resolves to a path outside ${root}; files are read only from there: ${placeFirst}`)
    }
    if (!fs.statSync(real).isFile()) return refuse(`${shown(p)} is not a regular file; ${placeFirst}`)
    return Either.right(real)
  } catch (e) {
    return refuse(`${shown(p)} cannot be checked (${errorCode(e) ?? String(e)}); ${placeFirst}`)
  }
}

export const confineNew = (root: string, name: string): Effect.Effect<string, InvalidRequest> =>
  Effect.suspend(() => confineNewSync(root, name))

export const confineExisting = (root: string, p: string): Effect.Effect<string, InvalidRequest> =>
  Effect.suspend(() => confineExistingSync(root, p))

// ---------------------------------------------------------------------------------------------------------
// The service

export const makeSafePaths = (options: SafePathsOptions = {}) =>
  Effect.sync(() => {
    const base = chooseBase(options)
    /** The roots, created or re-checked at each use (cheap: three lstats), so a removed folder comes back. */
    const roots = Effect.suspend(() => ensureRoots(base))
    const download = (name: string) => Effect.flatMap(roots, (r) => confineNew(r.downloads, name))
    const trace = (name: string) => Effect.flatMap(roots, (r) => confineNew(r.traces, name))
    const upload = (p: string) => Effect.flatMap(roots, (r) => confineExisting(r.uploads, p))
    /** A storage state to write (new), or one to read back (existing), in the states root. */
    const newState = (name: string) => Effect.flatMap(roots, (r) => confineNew(r.states, name))
    const savedState = (p: string) => Effect.flatMap(roots, (r) => confineExisting(r.states, p))
    /** Synchronous re-check of an upload path, for callbacks (a file chooser opening later). */
    const uploadSync = (p: string) => confineExistingSync(path.join(base, "uploads"), p)
    return { base, roots, download, trace, upload, uploadSync, newState, savedState } as const
  })

export class SafePaths extends Effect.Service<SafePaths>()("svc/SafePaths", {
  effect: makeSafePaths()
}) {
  /** The service on an explicit base (tests) or with other fallbacks. */
  static readonly layer = (options: SafePathsOptions): Layer.Layer<SafePaths> =>
    Layer.effect(SafePaths, Effect.map(makeSafePaths(options), (impl) => SafePaths.make(impl)))
}
