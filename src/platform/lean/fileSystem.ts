import { Error as PlatformError, FileSystem } from "@effect/platform"
import { Effect, Option, Stream } from "effect"
import type * as NodeFs from "node:fs"
import { builtin } from "../builtin.js"

// The FileSystem of the CLI's start-up snapshot: what the CLI and @effect/cli read, synchronously, with
// the errors @effect/platform-node gives (same reasons); the rest fails with a BadArgument that says so.

const fs = () => builtin<typeof NodeFs>("node:fs")

const errnoReason = (code: string | undefined): PlatformError.SystemErrorReason => {
  switch (code) {
    case "ENOENT":
      return "NotFound"
    case "EACCES":
      return "PermissionDenied"
    case "EEXIST":
      return "AlreadyExists"
    case "EISDIR":
    case "ENOTDIR":
    case "ELOOP":
      return "BadResource"
    case "EBUSY":
      return "Busy"
    default:
      return "Unknown"
  }
}

const systemError = (method: string, path: string, err: NodeJS.ErrnoException) =>
  new PlatformError.SystemError({
    reason: errnoReason(err.code),
    module: "FileSystem",
    method,
    pathOrDescriptor: path,
    ...(err.syscall !== undefined ? { syscall: err.syscall } : {}),
    description: err.message,
    cause: err
  })

const badArgument = (method: string, cause: unknown, description?: string) =>
  new PlatformError.BadArgument({
    module: "FileSystem",
    method,
    cause,
    ...(description !== undefined ? { description } : {})
  })

const unsupported = (method: string) =>
  badArgument(
    method,
    undefined,
    `FileSystem.${method} is not available in the lean CLI runtime (src/platform/lean/fileSystem.ts); add it there if the CLI needs it`
  )

/**
 * One synchronous node call as an effect: an errno error becomes the SystemError platform-node makes of
 * it, anything else a BadArgument. Synchronous because a CLI run reads a file or two, and the first
 * asynchronous call would start libuv's thread pool (four threads), which is most of what a read costs.
 */
const fsSync = <A>(method: string, path: string, call: (fs: typeof NodeFs) => A) =>
  Effect.suspend(() => {
    try {
      return Effect.succeed(call(fs()))
    } catch (err) {
      const e = err as NodeJS.ErrnoException
      return Effect.fail<PlatformError.PlatformError>(
        typeof e?.code === "string" && typeof e.syscall === "string"
          ? systemError(method, path, e)
          : badArgument(method, err)
      )
    }
  })

const toInfo = (stat: NodeFs.Stats): FileSystem.File.Info => ({
  type: stat.isFile()
    ? "File"
    : stat.isDirectory()
    ? "Directory"
    : stat.isSymbolicLink()
    ? "SymbolicLink"
    : stat.isBlockDevice()
    ? "BlockDevice"
    : stat.isCharacterDevice()
    ? "CharacterDevice"
    : stat.isFIFO()
    ? "FIFO"
    : stat.isSocket()
    ? "Socket"
    : "Unknown",
  mtime: Option.fromNullable(stat.mtime),
  atime: Option.fromNullable(stat.atime),
  birthtime: Option.fromNullable(stat.birthtime),
  dev: stat.dev,
  rdev: Option.fromNullable(stat.rdev),
  ino: Option.fromNullable(stat.ino),
  mode: stat.mode,
  nlink: Option.fromNullable(stat.nlink),
  uid: Option.fromNullable(stat.uid),
  gid: Option.fromNullable(stat.gid),
  size: FileSystem.Size(stat.size),
  blksize: Option.map(Option.fromNullable(stat.blksize), FileSystem.Size),
  blocks: Option.fromNullable(stat.blocks)
})

const unsupportedEffect = (method: string) => () => Effect.fail(unsupported(method))

/** What the CLI and @effect/cli read: access/exists, readFile/readFileString, stat, readDirectory, realPath. */
export const leanFileSystem: FileSystem.FileSystem = FileSystem.make({
  access: (path, options) =>
    fsSync("access", path, (fs) => {
      let mode = fs.constants.F_OK
      if (options?.readable) mode |= fs.constants.R_OK
      if (options?.writable) mode |= fs.constants.W_OK
      fs.accessSync(path, mode)
    }),
  readFile: (path) => fsSync("readFile", path, (fs): Uint8Array => fs.readFileSync(path)),
  stat: (path) => fsSync("stat", path, (fs) => toInfo(fs.statSync(path))),
  readDirectory: (path, options) =>
    fsSync("readDirectory", path, (fs) =>
      fs.readdirSync(path, { encoding: "utf8", recursive: options?.recursive ?? false })),
  realPath: (path) => fsSync("realPath", path, (fs) => fs.realpathSync(path)),
  chmod: unsupportedEffect("chmod"),
  chown: unsupportedEffect("chown"),
  copy: unsupportedEffect("copy"),
  copyFile: unsupportedEffect("copyFile"),
  link: unsupportedEffect("link"),
  makeDirectory: unsupportedEffect("makeDirectory"),
  makeTempDirectory: unsupportedEffect("makeTempDirectory"),
  makeTempDirectoryScoped: unsupportedEffect("makeTempDirectoryScoped"),
  makeTempFile: unsupportedEffect("makeTempFile"),
  makeTempFileScoped: unsupportedEffect("makeTempFileScoped"),
  open: unsupportedEffect("open"),
  readLink: unsupportedEffect("readLink"),
  remove: unsupportedEffect("remove"),
  rename: unsupportedEffect("rename"),
  symlink: unsupportedEffect("symlink"),
  truncate: unsupportedEffect("truncate"),
  utimes: unsupportedEffect("utimes"),
  watch: () => Stream.fail(unsupported("watch")),
  writeFile: unsupportedEffect("writeFile")
})
