import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Either, Exit } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll } from "vitest"
import {
  chooseBase,
  confineExisting,
  confineExistingSync,
  confineNew,
  confineNewSync,
  ensureRoots,
  SafePaths
} from "../../../src/browser/inspect/SafePaths.js"

// Every way out of a root an agent might try, and the roots themselves: owner-only, with a fallback when
// the preferred base cannot be trusted. A refusal writes and reads nothing.

const top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "svc-safepaths-")))
afterAll(() => fs.rmSync(top, { recursive: true, force: true }))
let n = 0

/** A fresh base with its roots, a secret outside them, and a listing of everything for "nothing written". */
const world = () => {
  const dir = path.join(top, `w${++n}`)
  fs.mkdirSync(dir)
  const outside = path.join(dir, "outside")
  fs.mkdirSync(outside)
  fs.writeFileSync(path.join(outside, "secret.txt"), "secret")
  const roots = Either.getOrThrow(ensureRoots(path.join(dir, "svc")))
  const listing = () => {
    const out: Array<string> = []
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name)
        out.push(p)
        if (e.isDirectory()) walk(p)
      }
    }
    walk(dir)
    return out.sort()
  }
  return { dir, outside, roots, listing }
}

const refusal = (e: Either.Either<string, { readonly _tag: string; readonly message: string }>) => {
  if (Either.isRight(e)) throw new Error(`expected a refusal, got ${e.right}`)
  expect(e.left._tag).toBe("InvalidRequest")
  return e.left.message
}

describe("confineNew", () => {
  it("accepts plain names, sub-folders, harmless `..` and absolute paths inside the root", () => {
    const { roots } = world()
    expect(confineNewSync(roots.downloads, "report.pdf")).toEqual(Either.right(path.join(roots.downloads, "report.pdf")))
    expect(confineNewSync(roots.downloads, "2024/q1/report.pdf")).toEqual(
      Either.right(path.join(roots.downloads, "2024/q1/report.pdf"))
    )
    expect(confineNewSync(roots.downloads, "a/../b.txt")).toEqual(Either.right(path.join(roots.downloads, "b.txt")))
    expect(confineNewSync(roots.downloads, "..not-a-parent.txt")).toEqual(
      Either.right(path.join(roots.downloads, "..not-a-parent.txt"))
    )
    const abs = path.join(roots.downloads, "x.bin")
    expect(confineNewSync(roots.downloads, abs)).toEqual(Either.right(abs))
    // A symlinked folder that stays inside the root is fine.
    fs.mkdirSync(path.join(roots.downloads, "real"))
    fs.symlinkSync(path.join(roots.downloads, "real"), path.join(roots.downloads, "alias"))
    expect(confineNewSync(roots.downloads, "alias/f.txt")).toEqual(Either.right(path.join(roots.downloads, "real", "f.txt")))
  })

  it("refuses `..` that escapes, with what is allowed", () => {
    const { roots, listing } = world()
    const before = listing()
    for (const name of ["../x.txt", "../../etc/passwd", "a/../../x.txt", "..", "sub/../../uploads/x"]) {
      const message = refusal(confineNewSync(roots.downloads, name))
      expect(message).toContain(`a file name inside ${roots.downloads} such as report.pdf`)
    }
    expect(refusal(confineNewSync(roots.downloads, "../x.txt"))).toMatch(/leaves .* \(through "\.\."\)/)
    expect(listing()).toEqual(before)
  })

  it("refuses an absolute path outside the root", () => {
    const { roots, outside, listing } = world()
    const before = listing()
    expect(refusal(confineNewSync(roots.downloads, "/etc/passwd"))).toMatch(/is outside/)
    expect(refusal(confineNewSync(roots.downloads, path.join(outside, "new.txt")))).toMatch(/is outside/)
    expect(refusal(confineNewSync(roots.downloads, roots.uploads + "/x"))).toMatch(/is outside/)
    // A sibling whose name starts like the root is not inside it.
    expect(refusal(confineNewSync(roots.downloads, roots.downloads + "-evil/x"))).toMatch(/is outside/)
    expect(listing()).toEqual(before)
  })

  it("refuses a symlinked folder on the way that points out, even below missing folders", () => {
    const { roots, outside, listing } = world()
    fs.symlinkSync(outside, path.join(roots.downloads, "escape"))
    const before = listing()
    expect(refusal(confineNewSync(roots.downloads, "escape/new.txt"))).toMatch(/symlink that points outside/)
    expect(refusal(confineNewSync(roots.downloads, "escape/deeper/still/new.txt"))).toMatch(/symlink that points outside/)
    expect(refusal(confineNewSync(roots.downloads, "escape/secret.txt"))).toMatch(/symlink that points outside/)
    expect(listing()).toEqual(before)
    expect(fs.readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe("secret")
  })

  it("refuses a symlink at the final name, wherever it points", () => {
    const { roots, outside, listing } = world()
    fs.symlinkSync(path.join(outside, "secret.txt"), path.join(roots.downloads, "out.txt"))
    fs.writeFileSync(path.join(roots.downloads, "inside.txt"), "x")
    fs.symlinkSync(path.join(roots.downloads, "inside.txt"), path.join(roots.downloads, "in.txt"))
    fs.symlinkSync(path.join(outside, "missing.txt"), path.join(roots.downloads, "dangling.txt"))
    const before = listing()
    for (const name of ["out.txt", "in.txt", "dangling.txt"]) {
      expect(refusal(confineNewSync(roots.downloads, name))).toMatch(/is a symlink/)
    }
    expect(listing()).toEqual(before)
  })

  it("refuses control characters, empty names, long segments, folders and the root itself", () => {
    const { roots, listing } = world()
    fs.mkdirSync(path.join(roots.downloads, "folder"))
    const before = listing()
    for (const name of ["a\u0000b.txt", "line\nbreak.txt", "tab\t.txt", "esc\u001b[31m.txt", "del\u007f.txt"]) {
      expect(refusal(confineNewSync(roots.downloads, name))).toMatch(/control characters/)
    }
    expect(refusal(confineNewSync(roots.downloads, ""))).toMatch(/empty/)
    expect(refusal(confineNewSync(roots.downloads, "   "))).toMatch(/empty/)
    expect(refusal(confineNewSync(roots.downloads, "x".repeat(256)))).toMatch(/256 bytes long \(at most 255/)
    expect(refusal(confineNewSync(roots.downloads, `ok/${"é".repeat(128)}.txt`))).toMatch(/bytes long/)
    expect(confineNewSync(roots.downloads, "x".repeat(255))._tag).toBe("Right")
    expect(refusal(confineNewSync(roots.downloads, "sub/"))).toMatch(/names a folder/)
    expect(refusal(confineNewSync(roots.downloads, "."))).toMatch(/itself/)
    expect(refusal(confineNewSync(roots.downloads, roots.downloads))).toMatch(/itself/)
    expect(refusal(confineNewSync(roots.downloads, "folder"))).toMatch(/not a regular file/)
    expect(listing()).toEqual(before)
  })

  it.effect("as an effect, fails with InvalidRequest", () =>
    Effect.gen(function*() {
      const { roots } = world()
      const exit = yield* Effect.exit(confineNew(roots.downloads, "../x"))
      expect(Exit.isFailure(exit) && Cause.failureOption(exit.cause).pipe((o) => o._tag === "Some" && o.value._tag)).toBe(
        "InvalidRequest"
      )
    }))
})

describe("confineExisting", () => {
  it("accepts a regular file in the uploads root, by name or by absolute path, answering its real path", () => {
    const { roots } = world()
    fs.writeFileSync(path.join(roots.uploads, "a.txt"), "a")
    fs.mkdirSync(path.join(roots.uploads, "sub"))
    fs.writeFileSync(path.join(roots.uploads, "sub", "b.txt"), "b")
    fs.symlinkSync(path.join(roots.uploads, "a.txt"), path.join(roots.uploads, "link-in.txt"))
    expect(confineExistingSync(roots.uploads, "a.txt")).toEqual(Either.right(path.join(roots.uploads, "a.txt")))
    expect(confineExistingSync(roots.uploads, path.join(roots.uploads, "sub/b.txt"))).toEqual(
      Either.right(path.join(roots.uploads, "sub", "b.txt"))
    )
    expect(confineExistingSync(roots.uploads, "link-in.txt")).toEqual(Either.right(path.join(roots.uploads, "a.txt")))
  })

  it("refuses what resolves outside, what is missing, folders and bad names, saying to place the file first", () => {
    const { roots, outside } = world()
    fs.symlinkSync(path.join(outside, "secret.txt"), path.join(roots.uploads, "link-out.txt"))
    fs.symlinkSync(outside, path.join(roots.uploads, "dir-out"))
    fs.mkdirSync(path.join(roots.uploads, "folder"))
    const cases: Array<[string, RegExp]> = [
      [path.join(outside, "secret.txt"), /outside/],
      ["../outside/secret.txt", /does not exist|outside/],
      ["../../outside/secret.txt", /outside/],
      ["link-out.txt", /outside/],
      ["dir-out/secret.txt", /outside/],
      ["/etc/passwd", /outside/],
      ["missing.txt", /does not exist in/],
      [path.join(outside, "missing.txt"), /is outside .* \(and does not exist\)/],
      ["../../elsewhere/missing.txt", /is outside/],
      ["folder", /not a regular file/],
      [".", /outside/],
      ["", /empty/],
      ["a\nb", /control characters/]
    ]
    for (const [p, why] of cases) {
      const message = refusal(confineExistingSync(roots.uploads, p))
      expect(message, p).toMatch(why)
      expect(message, p).toContain(`copy the file into ${roots.uploads} first`)
    }
  })

  it.effect("as an effect, fails with InvalidRequest", () =>
    Effect.gen(function*() {
      const { roots } = world()
      const e = yield* Effect.flip(confineExisting(roots.uploads, "/etc/passwd"))
      expect(e._tag).toBe("InvalidRequest")
    }))
})

describe("roots", () => {
  it("are created owner-only, and a wider mode of ours is tightened", () => {
    const dir = path.join(top, `roots${++n}`)
    fs.mkdirSync(dir)
    const base = path.join(dir, "svc")
    fs.mkdirSync(base, { mode: 0o755 })
    fs.chmodSync(base, 0o755)
    const roots = Either.getOrThrow(ensureRoots(base))
    for (const d of [roots.base, roots.downloads, roots.uploads]) {
      expect(fs.statSync(d).isDirectory()).toBe(true)
      expect(fs.statSync(d).mode & 0o777).toBe(0o700)
    }
    expect(roots.traces).toBe(base)
  })

  it("refuse a base or a root that is a symlink or a file", () => {
    const dir = path.join(top, `roots${++n}`)
    fs.mkdirSync(path.join(dir, "elsewhere"), { recursive: true })
    fs.symlinkSync(path.join(dir, "elsewhere"), path.join(dir, "svc"))
    expect(Either.isLeft(ensureRoots(path.join(dir, "svc")))).toBe(true)
    fs.mkdirSync(path.join(dir, "svc2"))
    fs.symlinkSync(path.join(dir, "elsewhere"), path.join(dir, "svc2", "downloads"))
    const left = ensureRoots(path.join(dir, "svc2"))
    expect(Either.isLeft(left) && left.left.message).toMatch(/symlink/)
  })

  it("fall back from an unusable preferred base to <tmpdir>/svc, then to a per-user name", () => {
    const dir = path.join(top, `base${++n}`)
    const tmp = path.join(dir, "tmp")
    fs.mkdirSync(tmp, { recursive: true })
    fs.mkdirSync(path.join(dir, "target"))
    // The preferred base is a symlink (someone planted it): not used.
    const preferred = path.join(dir, "planted")
    fs.symlinkSync(path.join(dir, "target"), preferred)
    expect(chooseBase({ preferred, tmpdir: tmp })).toBe(path.join(tmp, "svc"))
    // A file where <tmpdir>/svc should be: the per-user name.
    fs.writeFileSync(path.join(tmp, "svc"), "")
    expect(chooseBase({ preferred, tmpdir: tmp })).toBe(path.join(tmp, `svc-${process.getuid!()}`))
    // A preferred base that is fine is used.
    expect(chooseBase({ preferred: path.join(dir, "good"), tmpdir: tmp })).toBe(path.join(dir, "good"))
    // A preferred base whose parent is not writable is not.
    if (process.getuid!() !== 0) {
      const ro = path.join(dir, "ro")
      fs.mkdirSync(ro, { mode: 0o500 })
      expect(chooseBase({ preferred: path.join(ro, "svc"), tmpdir: tmp })).not.toBe(path.join(ro, "svc"))
    }
  })

  it.effect("the service confines downloads and uploads under its base", () =>
    Effect.gen(function*() {
      const base = path.join(top, "svc-service")
      const safe = yield* SafePaths
      expect(safe.base).toBe(base)
      expect(yield* safe.download("a.txt")).toBe(path.join(base, "downloads", "a.txt"))
      expect((yield* Effect.flip(safe.download("../a.txt")))._tag).toBe("InvalidRequest")
      expect((yield* Effect.flip(safe.upload("/etc/passwd")))._tag).toBe("InvalidRequest")
      expect(fs.statSync(path.join(base, "uploads")).mode & 0o777).toBe(0o700)
    }).pipe(Effect.provide(SafePaths.layer({ base: path.join(top, "svc-service") }))))
})
