// Inbound media against the real fake bridge server on loopback (real HTTP, real files).

import { NodeHttpClient } from "@effect/platform-node"
import { it } from "@effect/vitest"
import { Effect, Fiber, Schedule, Stream } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect } from "vitest"
import { makeBridgeClient } from "../../../src/msgbridge/bridge/BridgeClient.js"
import type { BridgeClientApi } from "../../../src/msgbridge/bridge/calls.js"
import { BridgeUnreachable } from "../../../src/msgbridge/bridge/errors.js"
import { pruneDir } from "../../../src/platform/pruneDir.js"
import {
  displayName,
  fetchInboundMedia,
  formatBytes,
  inboundMimeType,
  isStickerMessage,
  mediaMaxBytes,
  mediaNote,
  msgbridgeMediaDir,
  msgbridgeMediaRoot,
  safeFileName,
  sniffMimeType
} from "../../../src/msgbridge/media/Media.js"
import { type FakeBridge, fakeBridge } from "../../support/fakeBridge.js"

const MB = 1024 * 1024
const tmpDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "svc-media-"))
/** A directory that does not exist yet: fetchInboundMedia creates it. */
const mediaDir = () => msgbridgeMediaDir(tmpDir(), "acct", Date.UTC(2026, 0, 2, 10))

const clientFor = (bridge: FakeBridge) =>
  makeBridgeClient({ serverUrl: bridge.url, password: bridge.password }).pipe(Effect.provide(NodeHttpClient.layer))

/** Every file under dir, relative, including hidden ones. */
const listAll = (dir: string): Array<string> =>
  fs.existsSync(dir) ? (fs.readdirSync(dir, { recursive: true }) as Array<string>).filter((f) => fs.statSync(path.join(dir, f)).isFile()).sort() : []

describe("fetchInboundMedia", () => {
  it.scopedLive("saves a small attachment whole, with the right bytes, mode 0600 in a 0700 directory", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge({ attachments: { A1: 200_000 } })
      const client = yield* clientFor(bridge)
      const dir = mediaDir()
      const { media, skipped } = yield* fetchInboundMedia({
        client,
        dir,
        maxBytes: mediaMaxBytes(8),
        attachments: [{ guid: "A1", transferName: "IMG_0421.HEIC", mimeType: "image/heic", totalBytes: 200_000 }]
      })
      expect(skipped).toEqual([])
      expect(media).toHaveLength(1)
      const m = media[0]!
      // the bridge converts HEIC to JPEG on download: the type and the file name say so
      expect(m).toMatchObject({ guid: "A1", name: "IMG_0421.HEIC", size: 200_000, mimeType: "image/jpeg", kind: "attachment" })
      expect(m.path).toBe(path.join(dir, "IMG_0421.jpg"))
      const bytes = fs.readFileSync(m.path)
      expect(bytes.length).toBe(200_000)
      expect(bytes.every((b) => b === 7)).toBe(true) // what the fake serves
      expect(fs.statSync(m.path).mode & 0o777).toBe(0o600)
      expect(fs.statSync(dir).mode & 0o777).toBe(0o700)
      expect(listAll(dir)).toEqual(["IMG_0421.jpg"]) // no temp file left behind
      expect(bridge.downloads[0]).toMatchObject({ guid: "A1", finished: true, aborted: false })
    }))

  it.scopedLive("a sticker is tagged as one; metadata mime type is used when the bytes say nothing", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge({ attachments: { S1: 1000 } })
      const client = yield* clientFor(bridge)
      const { media } = yield* fetchInboundMedia({
        client,
        dir: mediaDir(),
        maxBytes: MB,
        isSticker: true,
        attachments: [{ guid: "S1", transferName: "sticker.png", mimeType: "image/png" }]
      })
      expect(media[0]).toMatchObject({ kind: "sticker", mimeType: "image/png", size: 1000 })
      expect(path.basename(media[0]!.path)).toBe("sticker.png")
    }))

  it.scopedLive("an attachment declared over the cap is skipped without downloading", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge({ attachments: { BIG: 12.3 * MB, OK: 10 } })
      const client = yield* clientFor(bridge)
      const dir = mediaDir()
      const { media, skipped } = yield* fetchInboundMedia({
        client,
        dir,
        maxBytes: mediaMaxBytes(8),
        attachments: [
          { guid: "BIG", transferName: "IMG_0421.HEIC", totalBytes: Math.round(12.3 * MB) },
          { guid: "OK", transferName: "note.txt", totalBytes: 10 }
        ]
      })
      expect(skipped).toEqual([
        { guid: "BIG", name: "IMG_0421.HEIC", reason: "IMG_0421.HEIC is 12.3 MB, over the 8 MB limit (channels.msgbridge.mediaMaxMb)" }
      ])
      expect(media.map((m) => m.guid)).toEqual(["OK"])
      expect(bridge.downloads.map((d) => d.guid)).toEqual(["OK"])
      expect(bridge.callsTo("/api/v1/attachment/BIG/download")).toEqual([])
    }))

  it.scopedLive("a chunked download passing the cap is aborted mid-stream and its partial file removed", () =>
    Effect.gen(function*() {
      const size = 64 * MB
      const bridge = yield* fakeBridge({ attachments: { BIG: size } })
      bridge.downloadContentLength = false
      const client = yield* clientFor(bridge)
      const dir = mediaDir()
      const { media, skipped } = yield* fetchInboundMedia({
        client,
        dir,
        maxBytes: MB,
        attachments: [{ guid: "BIG", transferName: "movie.mov" }] // no totalBytes: only the stream can tell
      })
      expect(media).toEqual([])
      expect(skipped).toEqual([
        { guid: "BIG", name: "movie.mov", reason: "movie.mov is larger than the 1 MB limit (channels.msgbridge.mediaMaxMb); the download was stopped there" }
      ])
      expect(listAll(dir)).toEqual([])
      yield* Effect.sleep("200 millis") // the server notices the closed connection
      const rec = bridge.downloads.find((d) => d.guid === "BIG")!
      expect(rec.aborted).toBe(true)
      expect(rec.finished).toBe(false)
      expect(rec.bytesWritten).toBeLessThan(size / 4)
    }))

  it.scopedLive("a 404 or an unreachable bridge skips with the reason, the other attachments still arrive", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge({ attachments: { A1: 500 } })
      const client = yield* clientFor(bridge)
      const dir = mediaDir()
      const { media, skipped } = yield* fetchInboundMedia({
        client,
        dir,
        maxBytes: MB,
        attachments: [{ guid: "GONE", transferName: "old.pdf" }, { guid: "A1", transferName: "new.pdf" }]
      })
      expect(media.map((m) => m.name)).toEqual(["new.pdf"])
      expect(skipped).toEqual([{ guid: "GONE", name: "old.pdf", reason: "old.pdf could not be downloaded: the bridge server does not have it (404)" }])

      const unreachable: BridgeClientApi = {
        ...client,
        downloadAttachment: () =>
          Stream.fail(new BridgeUnreachable({ url: "http://mac.local:1234", message: "no bridge server answers at http://mac.local:1234" }))
      }
      const r = yield* fetchInboundMedia({ client: unreachable, dir, maxBytes: MB, attachments: [{ guid: "X", transferName: null }] })
      expect(r.skipped).toEqual([
        { guid: "X", name: "attachment X", reason: "attachment X could not be downloaded: no bridge server answers at http://mac.local:1234" }
      ])
      expect(listAll(dir)).toEqual(["new.pdf"])
    }))

  it.scopedLive("a download that stalls is given up after the idle timeout", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge()
      const client = yield* clientFor(bridge)
      const dir = mediaDir()
      const stalled: BridgeClientApi = {
        ...client,
        downloadAttachment: () => Stream.concat(Stream.make(new Uint8Array([1, 2, 3])), Stream.never)
      }
      const r = yield* fetchInboundMedia({ client: stalled, dir, maxBytes: MB, idleTimeout: "100 millis", attachments: [{ guid: "S", transferName: "a.bin" }] })
      expect(r.skipped[0]!.reason).toBe("a.bin could not be downloaded: the bridge server sent nothing for 100ms")
      expect(listAll(dir)).toEqual([])
    }))

  it.scopedLive("interrupted mid-download (the message's handling cancelled): no partial file stays", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge()
      const client = yield* clientFor(bridge)
      const dir = mediaDir()
      const endless: BridgeClientApi = {
        ...client,
        downloadAttachment: () => Stream.repeatValue(new Uint8Array(1024)).pipe(Stream.schedule(Schedule.spaced("5 millis")))
      }
      const fiber = yield* Effect.fork(fetchInboundMedia({ client: endless, dir, maxBytes: 100 * MB, attachments: [{ guid: "E", transferName: "e.bin" }] }))
      yield* Effect.sleep("100 millis")
      expect(listAll(dir).length).toBe(1) // the hidden .part file being written
      yield* Fiber.interrupt(fiber)
      expect(listAll(dir)).toEqual([])
    }))

  it.scopedLive("hostile transfer names stay inside the directory; same names never overwrite", () =>
    Effect.gen(function*() {
      const guids = ["H1", "H2", "H3", "H4", "D1", "D2", "D3"]
      const bridge = yield* fakeBridge({ attachments: Object.fromEntries(guids.map((g, i) => [g, 100 + i])) })
      const client = yield* clientFor(bridge)
      const root = tmpDir()
      const dir = path.join(root, "media")
      const { media, skipped } = yield* fetchInboundMedia({
        client,
        dir,
        maxBytes: MB,
        concurrency: 4,
        attachments: [
          { guid: "H1", transferName: "../../etc/passwd" },
          { guid: "H2", transferName: "a/b" },
          { guid: "H3", transferName: "\u0000x" },
          { guid: "H4", transferName: "..\\..\\win.ini\r\n" },
          { guid: "D1", transferName: "photo.jpg" },
          { guid: "D2", transferName: "photo.jpg" },
          { guid: "D3", transferName: "photo.jpg" }
        ]
      })
      expect(skipped).toEqual([])
      for (const m of media) {
        expect(path.dirname(m.path)).toBe(dir)
        expect(fs.readFileSync(m.path).length).toBe(m.size)
      }
      const byGuid = Object.fromEntries(media.map((m) => [m.guid, path.basename(m.path)]))
      expect(byGuid.H1).toBe("etc_passwd")
      expect(byGuid.H2).toBe("a_b")
      expect(byGuid.H3).toBe("x")
      expect(byGuid.H4).toBe("win.ini")
      expect(new Set([byGuid.D1, byGuid.D2, byGuid.D3])).toEqual(new Set(["photo.jpg", "photo-1.jpg", "photo-2.jpg"]))
      // each file holds its own download (sizes differ per guid)
      expect(new Set(media.filter((m) => m.guid.startsWith("D")).map((m) => m.size))).toEqual(new Set([104, 105, 106]))
      expect(listAll(root).every((f) => f.startsWith("media" + path.sep))).toBe(true)
      // the name shown to the agent is one clean line
      expect(media.find((m) => m.guid === "H4")!.name).toBe("..\\..\\win.ini")

      // a second message with the same name still does not overwrite
      const again = yield* fetchInboundMedia({ client, dir, maxBytes: MB, attachments: [{ guid: "D1", transferName: "photo.jpg" }] })
      expect(path.basename(again.media[0]!.path)).toBe("photo-3.jpg")
    }))
})

describe("names, types, sizes, stickers", () => {
  it("safeFileName", () => {
    expect(safeFileName("IMG_0421.HEIC")).toBe("IMG_0421.HEIC")
    expect(safeFileName("../../etc/passwd")).toBe("etc_passwd")
    expect(safeFileName("..")).toBe("attachment")
    expect(safeFileName(".hidden")).toBe("hidden")
    expect(safeFileName("")).toBe("attachment")
    expect(safeFileName(null)).toBe("attachment")
    expect(safeFileName("a\u202egpj.exe")).toBe("agpj.exe")
    expect(safeFileName("x...y. ")).toBe("x.y")
    const long = safeFileName(`${"é".repeat(300)}.jpeg`)
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(120)
    expect(long.endsWith(".jpeg")).toBe(true)
  })

  it("displayName is one bounded line", () => {
    expect(displayName({ guid: "g", transferName: "a\nb\u0000c" })).toBe("a b c")
    expect(displayName({ guid: "g", transferName: "x".repeat(500) })).toHaveLength(200)
    expect(displayName({ guid: "g" })).toBe("attachment g")
  })

  it("mime types: bytes first, then metadata and name through the bridge's conversions", () => {
    expect(sniffMimeType(new Uint8Array([0xff, 0xd8, 0xff, 0xe0]))).toBe("image/jpeg")
    expect(sniffMimeType(new TextEncoder().encode("\0\0\0\x18ftypheic"))).toBe("image/heic")
    expect(sniffMimeType(new TextEncoder().encode("\0\0\0\x18ftypM4A "))).toBe("audio/mp4")
    expect(sniffMimeType(new Uint8Array([0xff, 0xf1, 0x50]))).toBe("audio/aac")
    expect(sniffMimeType(new Uint8Array([7, 7, 7, 7]))).toBeUndefined()
    expect(inboundMimeType({ mimeType: "image/heic", transferName: "a.heic" })).toBe("image/jpeg")
    expect(inboundMimeType({ mimeType: null, transferName: "Audio Message.caf" })).toBe("audio/aac")
    expect(inboundMimeType({ mimeType: "application/octet-stream", transferName: "doc.pdf" })).toBe("application/pdf")
    expect(inboundMimeType({ transferName: "mystery" })).toBeUndefined()
    expect(inboundMimeType({ mimeType: "image/heic" }, new Uint8Array([0xff, 0xd8, 0xff]))).toBe("image/jpeg")
  })

  it("formatBytes and mediaMaxBytes", () => {
    expect(formatBytes(Math.round(12.3 * MB))).toBe("12.3 MB")
    expect(formatBytes(8 * MB)).toBe("8 MB")
    expect(formatBytes(512 * 1024)).toBe("512 KB")
    expect(formatBytes(700)).toBe("700 bytes")
    expect(mediaMaxBytes(8)).toBe(8 * MB)
    expect(mediaMaxBytes()).toBe(8 * MB)
  })

  it("isStickerMessage", () => {
    expect(isStickerMessage({ associatedMessageType: "sticker" })).toBe(true)
    expect(isStickerMessage({ associatedMessageType: 1000 })).toBe(true)
    expect(isStickerMessage({ associatedMessageType: "love" })).toBe(false)
    expect(isStickerMessage({ associatedMessageType: "2006" })).toBe(false)
    expect(isStickerMessage({ balloonBundleId: "com.apple.messages.MSMessageExtensionBalloonPlugin:0000000000:com.apple.Stickers.UserGenerated.MessagesExtension" })).toBe(true)
    expect(isStickerMessage({ balloonBundleId: "com.apple.messages.URLBalloonProvider" })).toBe(false)
    expect(isStickerMessage({})).toBe(false)
  })

  it("mediaNote", () => {
    expect(mediaNote([])).toBeUndefined()
    expect(mediaNote([{ guid: "a", name: "IMG_0421.HEIC", reason: "IMG_0421.HEIC is 12.3 MB, over the 8 MB limit (channels.msgbridge.mediaMaxMb)" }])).toBe(
      "1 attachment was not downloaded: IMG_0421.HEIC is 12.3 MB, over the 8 MB limit (channels.msgbridge.mediaMaxMb)."
    )
    expect(mediaNote([
      { guid: "a", name: "a.mov", reason: "a.mov is 20 MB, over the 8 MB limit (channels.msgbridge.mediaMaxMb)" },
      { guid: "b", name: "b.pdf", reason: "b.pdf could not be downloaded: the bridge server does not have it (404)" }
    ])).toBe(
      "2 attachments were not downloaded: a.mov is 20 MB, over the 8 MB limit (channels.msgbridge.mediaMaxMb); b.pdf could not be downloaded: the bridge server does not have it (404)."
    )
  })

  it("media directories", () => {
    expect(msgbridgeMediaRoot("/s/media", "work acct")).toBe(path.join("/s/media", "msgbridge", "work_acct"))
    expect(msgbridgeMediaDir("/s/media", "default", Date.UTC(2026, 0, 2, 23, 59))).toBe(path.join("/s/media", "msgbridge", "default", "2026-01-02"))
  })
})

describe("pruneDir (inbound media)", () => {
  const write = (file: string, size: number, ageMs: number) => {
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, Buffer.alloc(size))
    const t = (Date.now() - ageMs) / 1000
    fs.utimesSync(file, t, t)
  }
  const HOUR = 3600_000

  it.live("removes files past the age, then the oldest beyond the total, then empty date directories", () =>
    Effect.gen(function*() {
      const root = tmpDir()
      write(path.join(root, "2026-01-01", "ancient.jpg"), 10, 30 * 24 * HOUR)
      write(path.join(root, "2026-01-20", "old.jpg"), 400, 5 * HOUR)
      write(path.join(root, "2026-01-20", "older.jpg"), 400, 6 * HOUR)
      write(path.join(root, "2026-01-21", "new.jpg"), 400, 1 * HOUR)
      write(path.join(root, "2026-01-21", ".abc.part"), 50, 0) // a download in progress
      write(path.join(root, "2026-01-21", ".dead.part"), 50, 3 * HOUR) // a crash's leftover
      const r = yield* pruneDir(root, "msgbridge media", { maxAgeMs: 7 * 24 * HOUR, maxTotalBytes: 900 })
      expect(listAll(root)).toEqual([path.join("2026-01-20", "old.jpg"), path.join("2026-01-21", ".abc.part"), path.join("2026-01-21", "new.jpg")])
      expect(r).toEqual({ removedFiles: 3, removedBytes: 460, keptFiles: 2, keptBytes: 800 })
      expect(fs.existsSync(path.join(root, "2026-01-01"))).toBe(false)
      expect(fs.existsSync(root)).toBe(true)

      // defaults keep fresh, small media; a missing directory is nothing to do
      expect((yield* pruneDir(root, "msgbridge media")).removedFiles).toBe(0)
      expect(yield* pruneDir(path.join(root, "nope"), "msgbridge media")).toEqual({ removedFiles: 0, removedBytes: 0, keptFiles: 0, keptBytes: 0 })
    }))
})
