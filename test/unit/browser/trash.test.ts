import { describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll } from "vitest"
import { Cause, Effect, Exit } from "effect"
import { moveToTrashWith, Trash, type TrashEnv, trashInfo } from "../../../src/browser/launch/Trash.js"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "svc-trash-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))
let n = 0

/** A fake home and state dir, and a profile dir with some content to trash. */
const world = (platform: NodeJS.Platform = "linux") => {
  const base = fs.mkdtempSync(path.join(root, `w${++n}-`))
  const home = path.join(base, "home")
  const stateDir = path.join(base, "state")
  fs.mkdirSync(home, { recursive: true })
  const makeProfile = (name = "work") => {
    const dir = path.join(stateDir, "browser", name, "user-data")
    fs.mkdirSync(path.join(dir, "Default"), { recursive: true })
    fs.writeFileSync(path.join(dir, "Default", "Preferences"), `{"n":"${name}"}`)
    fs.symlinkSync("vm-123", path.join(dir, "SingletonLock"))
    return path.join(stateDir, "browser", name)
  }
  const tenv: TrashEnv = {
    platform,
    env: {},
    homedir: home,
    now: () => new Date(2025, 0, 2, 3, 4, 5),
    rename: (a, b) => fs.promises.rename(a, b)
  }
  return { base, home, stateDir, makeProfile, tenv }
}

const failureMessage = <A>(exit: Exit.Exit<A, { readonly message: string }>): string => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const f = Cause.failureOption(exit.cause)
  if (f._tag === "None") throw new Error(Cause.pretty(exit.cause))
  return f.value.message
}

const expectMovedProfile = (dest: string, src: string, name = "work") => {
  expect(fs.existsSync(src)).toBe(false)
  expect(fs.readFileSync(path.join(dest, "user-data", "Default", "Preferences"), "utf8")).toBe(`{"n":"${name}"}`)
  expect(fs.readlinkSync(path.join(dest, "user-data", "SingletonLock"))).toBe("vm-123")
}

describe("moveToTrash", () => {
  it.effect("with a freedesktop trash, the dir goes to Trash/files with a .trashinfo naming where it was", () =>
    Effect.gen(function* () {
      const w = world()
      const trashDir = path.join(w.home, ".local", "share", "Trash")
      fs.mkdirSync(trashDir, { recursive: true })
      const src = w.makeProfile()
      const dest = yield* moveToTrashWith(src, { stateDir: w.stateDir }, w.tenv)
      expect(dest).toBe(path.join(trashDir, "files", "work"))
      expectMovedProfile(dest, src)
      const info = fs.readFileSync(path.join(trashDir, "info", "work.trashinfo"), "utf8")
      expect(info).toBe(`[Trash Info]\nPath=${src}\nDeletionDate=2025-01-02T03:04:05\n`)
    })
  )

  it.effect("XDG_DATA_HOME decides where the freedesktop trash is", () =>
    Effect.gen(function* () {
      const w = world()
      const dataHome = path.join(w.base, "xdg")
      fs.mkdirSync(path.join(dataHome, "Trash"), { recursive: true })
      const src = w.makeProfile()
      const dest = yield* moveToTrashWith(src, { stateDir: w.stateDir }, { ...w.tenv, env: { XDG_DATA_HOME: dataHome } })
      expect(dest).toBe(path.join(dataHome, "Trash", "files", "work"))
    })
  )

  it.effect("a name already in the trash gets a numbered one, each with its own .trashinfo", () =>
    Effect.gen(function* () {
      const w = world()
      const trashDir = path.join(w.home, ".local", "share", "Trash")
      fs.mkdirSync(path.join(trashDir, "files", "work"), { recursive: true })
      // A stale info file without its data still reserves its name.
      fs.mkdirSync(path.join(trashDir, "info"), { recursive: true })
      fs.writeFileSync(path.join(trashDir, "info", "work.2.trashinfo"), "[Trash Info]\n")
      const first = yield* moveToTrashWith(w.makeProfile(), { stateDir: w.stateDir }, w.tenv)
      const second = yield* moveToTrashWith(w.makeProfile(), { stateDir: w.stateDir }, w.tenv)
      expect(first).toBe(path.join(trashDir, "files", "work.3"))
      expect(second).toBe(path.join(trashDir, "files", "work.4"))
      expect(fs.existsSync(path.join(trashDir, "info", "work.3.trashinfo"))).toBe(true)
      expect(fs.existsSync(path.join(trashDir, "info", "work.4.trashinfo"))).toBe(true)
      expect(fs.readdirSync(path.join(trashDir, "files", "work"))).toEqual([])
    })
  )

  it.effect("without a desktop trash, the dir goes under <stateDir>/trash with a timestamp", () =>
    Effect.gen(function* () {
      const w = world()
      const src = w.makeProfile()
      const dest = yield* moveToTrashWith(src, { stateDir: w.stateDir }, w.tenv)
      expect(path.dirname(dest)).toBe(path.join(w.stateDir, "trash"))
      expect(path.basename(dest)).toMatch(/^work-2025-01-0\dT\d\d-\d\d-\d\d-\d{3}Z$/)
      expectMovedProfile(dest, src)
      // The freedesktop trash is not created just because we could have used it.
      expect(fs.existsSync(path.join(w.home, ".local", "share", "Trash"))).toBe(false)
    })
  )

  it.effect("two trashings of the same name in the same instant do not overwrite each other", () =>
    Effect.gen(function* () {
      const w = world()
      const first = yield* moveToTrashWith(w.makeProfile(), { stateDir: w.stateDir }, w.tenv)
      const second = yield* moveToTrashWith(w.makeProfile(), { stateDir: w.stateDir }, w.tenv)
      expect(second).toBe(`${first}-2`)
      expect(fs.readFileSync(path.join(first, "user-data", "Default", "Preferences"), "utf8")).toBe('{"n":"work"}')
      expect(fs.readFileSync(path.join(second, "user-data", "Default", "Preferences"), "utf8")).toBe('{"n":"work"}')
    })
  )

  it.effect("on macOS the dir goes to ~/.Trash", () =>
    Effect.gen(function* () {
      const w = world("darwin")
      fs.mkdirSync(path.join(w.home, ".Trash"))
      fs.mkdirSync(path.join(w.home, ".Trash", "work"))
      const src = w.makeProfile()
      const dest = yield* moveToTrashWith(src, { stateDir: w.stateDir }, w.tenv)
      expect(path.dirname(dest)).toBe(path.join(w.home, ".Trash"))
      expect(dest).not.toBe(path.join(w.home, ".Trash", "work"))
      expectMovedProfile(dest, src)
    })
  )

  it.effect("on Windows (no desktop trash we can use) the state dir's trash is used", () =>
    Effect.gen(function* () {
      const w = world("win32")
      fs.mkdirSync(path.join(w.home, ".local", "share", "Trash"), { recursive: true })
      const dest = yield* moveToTrashWith(w.makeProfile(), { stateDir: w.stateDir }, w.tenv)
      expect(path.dirname(dest)).toBe(path.join(w.stateDir, "trash"))
    })
  )

  it.effect("across filesystems (EXDEV) the dir is copied, symlinks kept, then the original removed", () =>
    Effect.gen(function* () {
      const w = world()
      const src = w.makeProfile()
      const exdev = () => Promise.reject(Object.assign(new Error("cross-device link"), { code: "EXDEV" }))
      const dest = yield* moveToTrashWith(src, { stateDir: w.stateDir }, { ...w.tenv, rename: exdev })
      expectMovedProfile(dest, src)
    })
  )

  it.effect("a failed copy leaves the original in place and no partial copy behind", () =>
    Effect.gen(function* () {
      const w = world()
      const src = w.makeProfile()
      // Node's recursive copy refuses named pipes, which makes a real copy failure midway.
      execFileSync("mkfifo", [path.join(src, "user-data", "zz-pipe")])
      const exdev = () => Promise.reject(Object.assign(new Error("cross-device link"), { code: "EXDEV" }))
      const exit = yield* Effect.exit(moveToTrashWith(src, { stateDir: w.stateDir }, { ...w.tenv, rename: exdev }))
      expect(failureMessage(exit)).toContain(src)
      expect(fs.readFileSync(path.join(src, "user-data", "Default", "Preferences"), "utf8")).toBe('{"n":"work"}')
      expect(fs.existsSync(path.join(src, "user-data", "zz-pipe"))).toBe(true)
      expect(fs.readdirSync(path.join(w.stateDir, "trash"))).toEqual([])
    })
  )

  it.effect("a rename failure other than EXDEV fails with the reason and the source untouched", () =>
    Effect.gen(function* () {
      const w = world()
      const trashDir = path.join(w.home, ".local", "share", "Trash")
      fs.mkdirSync(trashDir, { recursive: true })
      const src = w.makeProfile()
      const eacces = () => Promise.reject(Object.assign(new Error("EACCES: permission denied"), { code: "EACCES" }))
      const message = failureMessage(
        yield* Effect.exit(moveToTrashWith(src, { stateDir: w.stateDir }, { ...w.tenv, rename: eacces }))
      )
      expect(message).toContain("could not move")
      expect(message).toContain("permission denied")
      expect(fs.existsSync(path.join(src, "user-data", "Default", "Preferences"))).toBe(true)
      // The reserved .trashinfo is withdrawn.
      expect(fs.readdirSync(path.join(trashDir, "info"))).toEqual([])
    })
  )

  it.effect("a missing dir, the home dir and a dir containing the trash are refused", () =>
    Effect.gen(function* () {
      const w = world()
      const opts = { stateDir: w.stateDir }
      expect(failureMessage(yield* Effect.exit(moveToTrashWith(path.join(w.base, "nope"), opts, w.tenv)))).toContain(
        "does not exist"
      )
      expect(failureMessage(yield* Effect.exit(moveToTrashWith(w.home, opts, w.tenv)))).toContain("refusing")
      fs.mkdirSync(w.stateDir, { recursive: true })
      expect(failureMessage(yield* Effect.exit(moveToTrashWith(w.stateDir, opts, w.tenv)))).toContain("inside it")
      expect(fs.existsSync(w.home)).toBe(true)
    })
  )

  it("percent-encodes the original path in the .trashinfo", () => {
    expect(trashInfo("/tmp/a b/%x/é", new Date(2025, 11, 31, 23, 59, 58))).toBe(
      "[Trash Info]\nPath=/tmp/a%20b/%25x/%C3%A9\nDeletionDate=2025-12-31T23:59:58\n"
    )
  })

  // Pointed at a data home without a Trash, so the test never fills the real desktop trash.
  it.effect.runIf(process.platform === "linux")("the Trash service moves a real dir and answers where it went", () =>
    Effect.gen(function* () {
      const w = world()
      const src = w.makeProfile("svc")
      const saved = process.env.XDG_DATA_HOME
      process.env.XDG_DATA_HOME = path.join(w.base, "no-trash-here")
      const dest = yield* Effect.flatMap(Trash, (t) => t.moveToTrash(src, { stateDir: w.stateDir })).pipe(
        Effect.provide(Trash.Default),
        Effect.ensuring(
          Effect.sync(() => {
            if (saved === undefined) delete process.env.XDG_DATA_HOME
            else process.env.XDG_DATA_HOME = saved
          })
        )
      )
      expect(path.dirname(dest)).toBe(path.join(w.stateDir, "trash"))
      expect(fs.existsSync(src)).toBe(false)
      expect(fs.existsSync(path.join(dest, "user-data", "Default", "Preferences"))).toBe(true)
    })
  )
})
