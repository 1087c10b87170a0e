import { Effect, Either } from "effect"
import * as fsSync from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import type { Download, FileChooser, Page } from "playwright-core"
import { BrowserUnavailable, Conflict, InternalError, InvalidRequest, NotFound } from "../../domain/errors.js"
import { classifyPlaywrightError } from "../act/failures.js"
import { MAX_TIMEOUT_MS } from "../act/inputs.js"
import { describeActionError, formatDuration } from "../act/messages.js"
import type { ActionTarget } from "../act/target.js"
import { chooseBase, confineNew, ensureRoots, SafePaths } from "./SafePaths.js"

// Downloads saved into the downloads root and uploads read from the uploads root, nowhere else. Every name
// is confined before the page is touched. A download is saved under a temporary name in the destination's
// folder, then hard-linked to its name (which fails if the name exists), so a file appears whole or not
// at all and an existing file is never replaced: a taken name is refused with 409.
//
// Delivery over connectOverCDP: the library's default context accepts downloads and has the browser
// (Browser.setDownloadBehavior allowAndName) put them in the library's own temporary folder, where
// Download.saveAs copies them from; nothing more is needed here. The copy there is deleted once saved.

export type FilesError = InvalidRequest | NotFound | Conflict | BrowserUnavailable | InternalError

export const DEFAULT_DOWNLOAD_START_MS = 15_000
/** How long saving a download that has started may take (it may still be arriving). */
export const DEFAULT_DOWNLOAD_SAVE_MS = 120_000
export const DEFAULT_CLICK_MS = 8_000
export const MAX_UPLOAD_FILES = 100

export interface DownloadResult {
  /** Where the file is, inside the downloads root. */
  readonly path: string
  /** The name the server or page suggested. */
  readonly suggestedFilename: string
  readonly bytes: number
  readonly url: string
}

export interface DownloadOptions {
  /** How long to wait for the download to start. Default 15 s. */
  readonly timeoutMs?: number
}

export interface ArmedChooser {
  /** Real paths inside the uploads root that the next file chooser of the tab receives. */
  readonly paths: ReadonlyArray<string>
  /** Whether an earlier, unused arming of the tab was replaced. */
  readonly replaced: boolean
}

export interface InputFilesResult {
  readonly paths: ReadonlyArray<string>
  readonly target: string
}

const checkStartTimeout = (timeoutMs: number | undefined): Either.Either<number, InvalidRequest> => {
  if (timeoutMs === undefined) return Either.right(DEFAULT_DOWNLOAD_START_MS)
  if (Number.isInteger(timeoutMs) && timeoutMs >= 1 && timeoutMs <= MAX_TIMEOUT_MS) return Either.right(timeoutMs)
  return Either.left(
    new InvalidRequest({
      message: `download: timeoutMs must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS} (got ${timeoutMs})`
    })
  )
}

const errorCode = (e: unknown): string | undefined =>
  typeof e === "object" && e !== null && "code" in e ? String((e as { code: unknown }).code) : undefined

const taken = (dest: string) =>
  new Conflict({
    message: `${dest} already exists and is never overwritten; give another file name, or remove the old file first`
  })

/** Refuses a destination that already exists (before the click; the final link checks again). */
const notTaken = (dest: string) =>
  Effect.flatMap(
    Effect.promise(() => fs.lstat(dest).then(() => true, () => false)),
    (exists) => (exists ? Effect.fail(taken(dest)) : Effect.void)
  )

/** Waits for the next download of the page, bounded; the promise is made at once so no event is missed. */
const nextDownload = (page: Page, timeoutMs: number) => {
  const p = page.waitForEvent("download", { timeout: timeoutMs })
  p.catch(() => undefined)
  return p
}

const awaitDownload = (promise: Promise<Download>, timeoutMs: number, hint: string) =>
  Effect.tryPromise({
    try: () => promise,
    catch: (e): FilesError => {
      const f = classifyPlaywrightError(e)
      if (f.kind === "closed") {
        return new BrowserUnavailable({ message: "download: the tab or the browser was closed while waiting for the download" })
      }
      if (f.timedOut) return new Conflict({ message: `no download started within ${formatDuration(timeoutMs)}; ${hint}` })
      return new InternalError({ message: `waiting for the download failed: ${f.detail}` })
    }
  })

/** Whether `p` is `root` or inside it. */
const inside = (root: string, p: string) => p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep)

/**
 * Links the finished file into the destination's folder, opened once without following a symlink and
 * checked to be inside the root: the link is made through that open folder (`/proc/self/fd/<n>/<name>`),
 * so a folder swapped for a symlink after the check still gets nothing outside the root. Where the system
 * has no /proc, by path after a last check.
 */
const placeInFolder = async (tmp: string, dest: string, root: string): Promise<"taken" | number> => {
  const dir = path.dirname(dest)
  const realRoot = await fs.realpath(root)
  let fd: number
  try {
    fd = fsSync.openSync(dir, fsSync.constants.O_RDONLY | fsSync.constants.O_DIRECTORY | fsSync.constants.O_NOFOLLOW)
  } catch (e) {
    const code = errorCode(e)
    if (code === "ELOOP" || code === "ENOTDIR") throw new Error(`${dir} is no longer a folder (a symlink?); nothing was saved`)
    throw e
  }
  try {
    let opened: string | undefined
    try {
      opened = fsSync.readlinkSync(`/proc/self/fd/${fd}`)
    } catch {
      opened = undefined // no /proc: by path, after a last check
    }
    const where = opened ?? (await fs.realpath(dir))
    if (!inside(realRoot, where)) throw new Error(`${dir} now leads outside ${root} (to ${where}); nothing was saved`)
    const target = opened !== undefined ? `/proc/self/fd/${fd}/${path.basename(dest)}` : dest
    try {
      // link fails with EEXIST when the name is taken: the check and the creation are one step.
      await fs.link(tmp, target)
    } catch (e) {
      const code = errorCode(e)
      if (code === "EEXIST") return "taken"
      if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EXDEV") throw e
      // A file system without hard links: rename, after a last check.
      if (await fs.lstat(target).then(() => true, () => false)) return "taken"
      await fs.rename(tmp, target)
    }
    return (await fs.stat(target)).size
  } finally {
    fsSync.closeSync(fd)
  }
}

const internal = (what: string) => (e: unknown) =>
  new InternalError({ message: `saving a file: ${what}: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}` })

/**
 * Puts a new file at `dest` (confined already), whole or not at all: `fill` writes it first into a private
 * folder of the root, owner-only; it is then linked into place (placeInFolder), never over an existing file.
 * Answers its size.
 */
const placeNew = <E>(dest: string, root: string, fill: (tmp: string) => Effect.Effect<void, E>) =>
  Effect.gen(function*() {
    const dir = path.dirname(dest)
    yield* Effect.tryPromise({ try: () => fs.mkdir(dir, { recursive: true, mode: 0o700 }), catch: internal(`cannot create ${dir}`) })
    const stage = yield* Effect.tryPromise({
      try: () => fs.mkdtemp(path.join(root, ".saving-")),
      catch: internal(`cannot create a folder to save into in ${root}`)
    })
    const tmp = path.join(stage, "file.part")
    const placed = yield* fill(tmp).pipe(
      Effect.flatMap(() =>
        Effect.tryPromise({
          try: async () => {
            await fs.chmod(tmp, 0o600)
            return await placeInFolder(tmp, dest, root)
          },
          catch: internal(`cannot move the file into place at ${dest}`)
        })
      ),
      Effect.ensuring(Effect.promise(() => fs.rm(stage, { recursive: true, force: true }).catch(() => undefined)))
    )
    if (placed === "taken") return yield* taken(dest)
    return placed
  })

/**
 * Saves `bytes` as `name` in the downloads root of this machine's svc (for a process beside the gateway: the
 * MCP server saving a tool's answer), confined and placed as every file svc writes there.
 */
export const saveInDownloads = (name: string, bytes: Uint8Array) =>
  Effect.gen(function*() {
    const roots = yield* ensureRoots(chooseBase())
    const dest = yield* confineNew(roots.downloads, name)
    yield* placeNew(dest, roots.downloads, (tmp) =>
      Effect.tryPromise({ try: () => fs.writeFile(tmp, bytes, { mode: 0o600, flag: "wx" }), catch: internal(`cannot write ${tmp}`) }))
    return dest
  })

/** Saves a started download to `dest` (confined already), as placeNew puts any file. */
const save = (download: Download, dest: string, root: string) =>
  Effect.gen(function*() {
    const bytes = yield* placeNew(dest, root, (tmp) =>
      Effect.tryPromise({
        try: () => download.saveAs(tmp),
        catch: (e): FilesError => {
          const f = classifyPlaywrightError(e)
          return f.kind === "closed"
            ? new BrowserUnavailable({ message: "download: the browser went away before the download finished" })
            : new Conflict({ message: `the download from ${download.url()} failed: ${f.detail}` })
        }
      }).pipe(
        Effect.timeoutFail({
          duration: DEFAULT_DOWNLOAD_SAVE_MS,
          onTimeout: () =>
            new Conflict({
              message: `the download from ${download.url()} did not finish within ${formatDuration(DEFAULT_DOWNLOAD_SAVE_MS)}; it was cancelled`
            })
        }),
        Effect.tapError(() => Effect.promise(() => download.cancel().catch(() => undefined)))
      )).pipe(Effect.ensuring(Effect.promise(() => download.delete().catch(() => undefined))))
    const result: DownloadResult = {
      path: dest,
      suggestedFilename: download.suggestedFilename(),
      bytes,
      url: download.url()
    }
    return result
  })

const describeUploadError = (e: unknown, ref: string | undefined, description: string | undefined): FilesError => {
  const f = classifyPlaywrightError(e)
  if (f.kind === "wrongElement" || /Node is not an HTMLInputElement|not an input|Non-multiple file input/i.test(f.detail)) {
    return new InvalidRequest({
      message: `upload ${ref ?? ""}: ${f.detail}; --input-ref/--element set an <input type=file> (several files only ` +
        "when it has `multiple`); for a button that opens a file chooser, arm it with `svc browser upload <path>` and then click the button"
    })
  }
  return describeActionError(e, ref, "fill", description !== undefined ? { description } : {})
}

/** A file name from the name a server or page suggested: its last segment, without control characters. */
export const savedName = (suggested: string): string => {
  const base = path.basename(suggested.replace(/\\/g, "/")).replace(/[\u0000-\u001f\u007f]/g, "").trim()
  const name = base === "" || base === "." || base === ".." ? "download" : base
  // Leave room for " (99)" within the 255-byte limit of one segment.
  return Buffer.byteLength(name) <= 240 ? name : name.slice(0, 120)
}

/** `name`, then `name (1).ext`, `name (2).ext`, … */
const numbered = (name: string, n: number) => {
  if (n === 0) return name
  const ext = path.extname(name)
  const stem = ext === "" || ext === name ? name : name.slice(0, -ext.length)
  return `${stem} (${n})${ext === name ? "" : ext}`
}

const MAX_NAME_TRIES = 100

export class Files extends Effect.Service<Files>()("svc/Files", {
  effect: Effect.gen(function*() {
    const safe = yield* SafePaths
    /** The pending arming of each tab's next file chooser, so a new arming replaces it. */
    const armed = new WeakMap<Page, (chooser: FileChooser) => void>()
    /** Tabs whose next download a `download` or `waitfordownload` request is waiting for (it saves that one). */
    const waiting = new WeakMap<Page, number>()
    const awaiting = <A, E>(page: Page, effect: Effect.Effect<A, E>) =>
      Effect.acquireUseRelease(
        Effect.sync(() => waiting.set(page, (waiting.get(page) ?? 0) + 1)),
        () => effect,
        () =>
          Effect.sync(() => {
            const n = (waiting.get(page) ?? 1) - 1
            if (n <= 0) waiting.delete(page)
            else waiting.set(page, n)
          })
      )

    const download = (page: Page, target: ActionTarget, filename: string, options: DownloadOptions = {}) =>
      Effect.gen(function*() {
        const dest = yield* safe.download(filename)
        const timeoutMs = yield* checkStartTimeout(options.timeoutMs)
        yield* notTaken(dest)
        return yield* awaiting(page, Effect.gen(function*() {
          const started = nextDownload(page, timeoutMs)
          yield* Effect.tryPromise({
            try: () => target.locator.click({ timeout: Math.min(DEFAULT_CLICK_MS, timeoutMs) }),
            catch: (e) => describeActionError(e, target.ref, "click", { description: target.description })
          })
          const got = yield* awaitDownload(
            started,
            timeoutMs,
            `clicking ${target.ref} (${target.description}) did not download a file: check in a snapshot that it is the ` +
              "download link or button; if the download starts later (a page that prepares the file), use " +
              "`svc browser waitfordownload <filename>` after the click"
          )
          return yield* save(got, dest, (yield* safe.roots).downloads)
        }))
      }).pipe(Effect.withSpan("Files.download"))

    const waitForDownload = (page: Page, filename: string, options: DownloadOptions = {}) =>
      Effect.gen(function*() {
        const dest = yield* safe.download(filename)
        const timeoutMs = yield* checkStartTimeout(options.timeoutMs)
        yield* notTaken(dest)
        const got = yield* awaiting(
          page,
          awaitDownload(
            nextDownload(page, timeoutMs),
            timeoutMs,
            "the page started none; do what starts it (click the download link) while waiting, or use " +
              "`svc browser download <ref> <filename>` to click and save in one step"
          )
        )
        return yield* save(got, dest, (yield* safe.roots).downloads)
      }).pipe(Effect.withSpan("Files.waitForDownload"))

    /**
     * Puts `bytes` at `dest` (confined to `root`, the downloads root unless told), whole or not at all, owner-only,
     * never over an existing file (placeNew refuses one, 409).
     */
    const placeFile = (dest: string, bytes: Uint8Array, root?: string) =>
      Effect.gen(function*() {
        yield* placeNew(dest, root ?? (yield* safe.roots).downloads, (tmp) =>
          Effect.tryPromise({ try: () => fs.writeFile(tmp, bytes, { mode: 0o600, flag: "wx" }), catch: internal(`cannot write ${tmp}`) }))
        return dest
      })

    /**
     * Where a file the browser makes (a screenshot, a PDF) goes: as `filename` in the downloads root when the agent
     * names it (refused now, before the work that makes it, when it leads outside the root or is taken), else
     * where `unnamed` puts it. Answers how to put its bytes there; the path is answered in turn.
     */
    const destination = <E>(filename: string | undefined, unnamed: (bytes: Uint8Array) => Effect.Effect<string, E>) =>
      filename === undefined
        ? Effect.succeed(unnamed)
        : Effect.map(
          Effect.tap(safe.download(filename), notTaken),
          (dest) => (bytes: Uint8Array) => placeFile(dest, bytes)
        )

    /** Whether a download request is waiting for the tab's next download (it saves it, nobody else). */
    const isAwaited = (page: Page) => Effect.sync(() => waiting.has(page))

    /**
     * Saves a download an action started, under the name the server suggested in the downloads root: a
     * taken name gets a number (`report (1).pdf`), an existing file is never replaced.
     */
    const saveStarted = (download: Download) =>
      Effect.gen(function*() {
        const name = savedName(download.suggestedFilename())
        for (let n = 0; n < MAX_NAME_TRIES; n++) {
          const dest = yield* safe.download(numbered(name, n))
          const exists = yield* Effect.promise(() => fs.lstat(dest).then(() => true, () => false))
          if (!exists) return yield* save(download, dest, (yield* safe.roots).downloads)
        }
        return yield* new Conflict({
          message: `${MAX_NAME_TRIES} files named like ${name} are already in the downloads root; remove some`
        })
      }).pipe(Effect.withSpan("Files.saveStarted"))

    const confineAll = (paths: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        if (paths.length === 0) {
          return yield* new InvalidRequest({ message: "upload: give at least one file (placed in the uploads root first)" })
        }
        if (paths.length > MAX_UPLOAD_FILES) {
          return yield* new InvalidRequest({ message: `upload: at most ${MAX_UPLOAD_FILES} files at once (got ${paths.length})` })
        }
        return yield* Effect.forEach(paths, (p) => safe.upload(p))
      })

    const armFileChooser = (page: Page, paths: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const real = yield* confineAll(paths)
        const previous = armed.get(page)
        if (previous !== undefined) page.off("filechooser", previous)
        const handler = (chooser: FileChooser) => {
          if (armed.get(page) === handler) armed.delete(page)
          // Checked again now: a file swapped for a symlink since arming is not read.
          const again = real.map((p) => safe.uploadSync(p))
          if (again.some(Either.isLeft)) return
          chooser.setFiles(again.map((e) => (Either.isRight(e) ? e.right : "")), { timeout: DEFAULT_CLICK_MS })
            .catch(() => undefined)
        }
        armed.set(page, handler)
        // The library intercepts file choosers only while a listener is registered; `once` removes it, so
        // a later chooser is left to the page.
        page.once("filechooser", handler)
        const result: ArmedChooser = { paths: real, replaced: previous !== undefined }
        return result
      }).pipe(Effect.withSpan("Files.armFileChooser"))

    const setInputFiles = (
      page: Page,
      target: ActionTarget | { readonly selector: string },
      paths: ReadonlyArray<string>
    ) =>
      Effect.gen(function*() {
        const real = yield* confineAll(paths)
        const isRef = "locator" in target
        const locator = isRef ? target.locator : page.locator(target.selector)
        const name = isRef ? target.ref : target.selector
        yield* Effect.tryPromise({
          try: () => locator.setInputFiles([...real], { timeout: DEFAULT_CLICK_MS }),
          catch: (e) => describeUploadError(e, name, isRef ? target.description : undefined)
        })
        const result: InputFilesResult = { paths: real, target: name }
        return result
      }).pipe(Effect.withSpan("Files.setInputFiles"))

    /** Whether the tab has an armed chooser not used yet. */
    const isArmed = (page: Page) => Effect.sync(() => armed.has(page))

    return {
      download,
      waitForDownload,
      isAwaited,
      saveStarted,
      confineAll,
      armFileChooser,
      setInputFiles,
      isArmed,
      destination,
      placeFile
    } as const
  }),
  dependencies: [SafePaths.Default]
}) {}
