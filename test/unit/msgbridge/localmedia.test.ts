// Local media confinement on a real file system: real paths, symlinks, `..`, segment boundaries, caps.

import { it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect } from "vitest"
import { confineLocalMedia, isWithin, readLocalMedia } from "../../../src/msgbridge/media/LocalMedia.js"

/**
 * <base>/media/photo.png, <base>/media/sub/deep.txt, <base>/media-other/x.png (shares the root's prefix),
 * <base>/private/secret.txt, symlinks inside media pointing out and in, and a symlinked root.
 */
const tree = () => {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "svc-localmedia-")))
  const root = path.join(base, "media")
  const w = (p: string, data: string | Buffer) => {
    fs.mkdirSync(path.dirname(p), { recursive: true })
    fs.writeFileSync(p, data)
  }
  w(path.join(root, "photo.png"), "PNGDATA")
  w(path.join(root, "sub", "deep.txt"), "deep")
  w(path.join(base, "media-other", "x.png"), "other")
  w(path.join(base, "private", "secret.txt"), "secret")
  fs.symlinkSync(path.join(base, "private", "secret.txt"), path.join(root, "out.txt"))
  fs.symlinkSync(path.join(base, "private"), path.join(root, "outdir"))
  fs.symlinkSync(path.join(root, "sub", "deep.txt"), path.join(root, "in.txt"))
  fs.symlinkSync(root, path.join(base, "media-link"))
  return { base, root }
}

const reasonOf = (p: string, roots: ReadonlyArray<string>) => Effect.flip(confineLocalMedia(p, roots)).pipe(Effect.map((e) => e.reason))

describe("isWithin", () => {
  it("admits the root and what is below it, on segment boundaries only", () => {
    expect(isWithin("/a/b", "/a/b")).toBe(true)
    expect(isWithin("/a/b/c", "/a/b")).toBe(true)
    expect(isWithin("/a/bc", "/a/b")).toBe(false)
    expect(isWithin("/a", "/a/b")).toBe(false)
    expect(isWithin("/anything", "/")).toBe(true)
  })
})

describe("confineLocalMedia", () => {
  it.effect("a file inside a root: its real path and size", () =>
    Effect.gen(function*() {
      const { root } = tree()
      expect(yield* confineLocalMedia(path.join(root, "photo.png"), [root])).toEqual({ realPath: path.join(root, "photo.png"), size: 7 })
      expect((yield* confineLocalMedia(path.join(root, "sub", "deep.txt"), [root])).size).toBe(4)
      // a symlink inside the root to a file inside it is fine, and reports the real path
      expect((yield* confineLocalMedia(path.join(root, "in.txt"), [root])).realPath).toBe(path.join(root, "sub", "deep.txt"))
      // a trailing slash on the root changes nothing
      expect((yield* confineLocalMedia(path.join(root, "photo.png"), [`${root}/`])).size).toBe(7)
    }))

  it.effect("outside every root: denied", () =>
    Effect.gen(function*() {
      const { base, root } = tree()
      const e = yield* Effect.flip(confineLocalMedia(path.join(base, "private", "secret.txt"), [root]))
      expect(e._tag).toBe("LocalMediaDenied")
      expect(e.reason).toBe("outside-roots")
      expect(e.message).toContain("is outside channels.msgbridge.mediaLocalRoots")
      expect(e.message).not.toContain("secret\n")
      expect(yield* reasonOf("/etc/passwd", [root])).toBe("outside-roots")
    }))

  it.effect("a symlink inside the root pointing out is denied (file or directory)", () =>
    Effect.gen(function*() {
      const { root } = tree()
      expect(yield* reasonOf(path.join(root, "out.txt"), [root])).toBe("outside-roots")
      expect(yield* reasonOf(path.join(root, "outdir", "secret.txt"), [root])).toBe("outside-roots")
    }))

  it.effect(".. escapes are denied", () =>
    Effect.gen(function*() {
      const { root } = tree()
      expect(yield* reasonOf(`${root}/../private/secret.txt`, [root])).toBe("outside-roots")
      expect(yield* reasonOf(`${root}/sub/../../private/secret.txt`, [root])).toBe("outside-roots")
      // .. that stays inside is fine
      expect((yield* confineLocalMedia(`${root}/sub/../photo.png`, [root])).realPath).toBe(path.join(root, "photo.png"))
    }))

  it.effect("a sibling sharing the root's prefix is not inside it", () =>
    Effect.gen(function*() {
      const { base, root } = tree()
      expect(yield* reasonOf(path.join(base, "media-other", "x.png"), [root])).toBe("outside-roots")
    }))

  it.effect("empty roots deny every local path and say which setting to set", () =>
    Effect.gen(function*() {
      const { root } = tree()
      const e = yield* Effect.flip(confineLocalMedia(path.join(root, "photo.png"), []))
      expect(e.reason).toBe("no-roots")
      expect(e.message).toBe(
        "local files cannot be sent: channels.msgbridge.mediaLocalRoots is empty; set it to the folders files may be sent from"
      )
    }))

  it.effect("a symlinked root admits the files under its target", () =>
    Effect.gen(function*() {
      const { base, root } = tree()
      expect((yield* confineLocalMedia(path.join(root, "photo.png"), [path.join(base, "media-link")])).realPath).toBe(path.join(root, "photo.png"))
      expect((yield* confineLocalMedia(path.join(base, "media-link", "photo.png"), [root])).realPath).toBe(path.join(root, "photo.png"))
    }))

  it.effect("relative paths, directories and missing files", () =>
    Effect.gen(function*() {
      const { base, root } = tree()
      expect(yield* reasonOf("media/photo.png", [root])).toBe("not-absolute")
      expect(yield* reasonOf(path.join(root, "sub"), [root])).toBe("not-a-file")
      expect(yield* reasonOf(path.join(root, "nope.png"), [root])).toBe("missing")
      // outside the roots, a missing file is not told apart from an existing one
      expect(yield* reasonOf(path.join(base, "private", "nope.txt"), [root])).toBe("outside-roots")
      // a root that does not exist admits nothing
      expect(yield* reasonOf(path.join(root, "photo.png"), [path.join(base, "gone")])).toBe("outside-roots")
    }))
})

describe("readLocalMedia", () => {
  it.effect("reads a confined file, up to the cap", () =>
    Effect.gen(function*() {
      const { root } = tree()
      const file = yield* readLocalMedia(path.join(root, "photo.png"), [root], 7)
      expect(Buffer.from(file.data).toString()).toBe("PNGDATA")
      expect(file.size).toBe(7)
      const e = yield* Effect.flip(readLocalMedia(path.join(root, "photo.png"), [root], 6))
      expect(e._tag).toBe("LocalMediaTooLarge")
      expect(e.message).toContain("is 7 bytes, over the 6-byte limit (channels.msgbridge.mediaMaxMb)")
    }))

  it.effect("a larger file is read in full; the confinement applies to reads too", () =>
    Effect.gen(function*() {
      const { root } = tree()
      const big = Buffer.alloc(200_000)
      for (let i = 0; i < big.length; i++) big[i] = i % 251
      fs.writeFileSync(path.join(root, "big.bin"), big)
      const file = yield* readLocalMedia(path.join(root, "big.bin"), [root], 200_000)
      expect(Buffer.from(file.data).equals(big)).toBe(true)
      expect((yield* Effect.flip(readLocalMedia(path.join(root, "out.txt"), [root], 100)))._tag).toBe("LocalMediaDenied")
    }))
})
