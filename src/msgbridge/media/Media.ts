import { Data, Duration, Effect, Either, Stream } from "effect"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import type { BridgeClientApi } from "../bridge/calls.js"
import type { BridgeError } from "../bridge/errors.js"
import type { BridgeAttachment } from "../bridge/schemas.js"

// Inbound media: the attachments (and stickers) of an inbound message, streamed from the bridge server into
// files under the state directory, capped at mediaMaxMb. A file over the cap is skipped, never buffered:
// at once when the attachment declares its size, else when the stream passes the cap (the client aborts the
// request there). Any failure of one attachment (too large, 404, bridge unreachable, disk full) skips that
// attachment with a human reason for the agent's context; it never fails the message.
//
// Each download goes to a hidden temp file (`.<random>.part`, 0600) and is published under its final name
// with link(2), which refuses to replace an existing file: names are unique and nothing is overwritten, and
// a crash mid-download leaves only a `.part` file that pruneMedia removes.
//
// Stickers: a message is a sticker when `isStickerMessage` says so (see there); the integrator passes
// `isSticker` and the media are tagged `kind: "sticker"`.

export interface InboundMedia {
  readonly guid: string
  /** The saved file: absolute when `dir` is. */
  readonly path: string
  readonly mimeType: string | undefined
  /** The name the sender gave (transferName), cleaned for display; not the file name on disk. */
  readonly name: string
  /** Bytes saved. */
  readonly size: number
  readonly kind: "attachment" | "sticker"
}

export interface SkippedMedia {
  readonly guid: string
  readonly name: string
  /** Human readable, e.g. "IMG_0421.HEIC is 12.3 MB, over the 8 MB limit (channels.msgbridge.mediaMaxMb)". */
  readonly reason: string
}

export interface FetchInboundMediaOptions {
  readonly client: BridgeClientApi
  /** Where the files go, e.g. `msgbridgeMediaDir(paths.mediaDir, accountId, now)`; created 0700. */
  readonly dir: string
  readonly attachments: ReadonlyArray<BridgeAttachment>
  /** The cap per attachment, `mediaMaxBytes(mediaMaxMb)`. */
  readonly maxBytes: number
  readonly isSticker?: boolean
  /** Downloads at a time (default MEDIA_DOWNLOAD_CONCURRENCY). */
  readonly concurrency?: number
  /** Give up on a download that sends nothing for this long (default MEDIA_IDLE_TIMEOUT). */
  readonly idleTimeout?: Duration.DurationInput
}

/** The cap used when channels.msgbridge.mediaMaxMb is not set. */
export const MEDIA_MAX_MB_DEFAULT = 8
/** Downloads of one message at a time: the bridge runs on a personal Mac, keep it gentle. */
export const MEDIA_DOWNLOAD_CONCURRENCY = 3
/** The client's timeout covers the response headers only; this bounds a body that stalls. */
export const MEDIA_IDLE_TIMEOUT = Duration.seconds(30)

export const mediaMaxBytes = (mediaMaxMb: number = MEDIA_MAX_MB_DEFAULT): number => Math.floor(mediaMaxMb * 1024 * 1024)

const safeSegment = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, "_")

/** `<mediaDir>/msgbridge/<account>`: the root pruneMedia keeps bounded. */
export const msgbridgeMediaRoot = (mediaDir: string, accountId = "default"): string =>
  path.join(mediaDir, "msgbridge", safeSegment(accountId))

/** `<mediaDir>/msgbridge/<account>/<YYYY-MM-DD>` (UTC date of `at`, epoch ms): where one message's media go. */
export const msgbridgeMediaDir = (mediaDir: string, accountId: string, at: number): string =>
  path.join(msgbridgeMediaRoot(mediaDir, accountId), new Date(at).toISOString().slice(0, 10))

// ---- stickers ----

/**
 * Whether an inbound message is a sticker. Decided on the message, not the attachment (the attachment
 * objects carry nothing reliable):
 * - `associatedMessageType` "sticker" (what the bridge sends for a sticker placed on a bubble) or 1000 /
 *   "1000" (the host's numeric code for the same, sent by server versions that pass numbers through);
 * - `balloonBundleId` naming a sticker extension (contains "sticker", any case): a sticker sent on its own.
 * Check it before treating the message as a tapback: Inbound.toInboundMessage reports a placed sticker as a
 * tapback with reaction "sticker" (`isStickerMessage({ associatedMessageType: tapback.reaction })` works).
 */
export const isStickerMessage = (m: {
  readonly associatedMessageType?: string | number | null | undefined
  readonly balloonBundleId?: string | null | undefined
}): boolean => {
  const t = m.associatedMessageType
  if (t !== null && t !== undefined && /^(sticker|1000)$/i.test(String(t).trim())) return true
  return typeof m.balloonBundleId === "string" && /sticker/i.test(m.balloonBundleId)
}

// ---- names ----

// C0/C1 controls, and the invisible direction marks that can disguise an extension ("gpj.exe" shown reversed).
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g
const NAME_MAX_BYTES = 120

/** The transferName cleaned for the agent's context: no control characters, one line, bounded. */
export const displayName = (attachment: Pick<BridgeAttachment, "guid" | "transferName">): string => {
  const cleaned = (attachment.transferName ?? "").replace(INVISIBLE, " ").replace(/\s+/g, " ").trim()
  const bounded = cleaned.length > 200 ? `${cleaned.slice(0, 199)}…` : cleaned
  return bounded === "" ? `attachment ${attachment.guid}` : bounded
}

const truncateBytes = (s: string, maxBytes: number): string => {
  let out = ""
  let bytes = 0
  for (const ch of s) {
    const n = Buffer.byteLength(ch)
    if (bytes + n > maxBytes) break
    out += ch
    bytes += n
  }
  return out
}

const splitExt = (name: string): { readonly base: string; readonly ext: string } => {
  const m = /^(.+?)(\.[A-Za-z0-9]{1,10})$/.exec(name)
  return m === null ? { base: name, ext: "" } : { base: m[1]!, ext: m[2]! }
}

/**
 * A file name that stays in its directory: path separators and reserved characters become "_", control and
 * direction characters go, runs of dots become one, no leading dot (no "..", no hidden file), at most
 * 120 UTF-8 bytes with the extension kept. Never empty (`fallback`).
 */
export const safeFileName = (raw: string | null | undefined, fallback = "attachment"): string => {
  const cleaned = (raw ?? "")
    .normalize("NFC")
    .replace(INVISIBLE, "")
    .replace(/[/\\:*?"<>|]/g, "_")
    .replace(/\.{2,}/g, ".")
    .replace(/\s+/g, " ")
    .replace(/^[\s._]+/, "")
    .replace(/[\s.]+$/, "")
  const name = cleaned === "" ? fallback : cleaned
  const { base, ext } = splitExt(name)
  // room for a "-999" uniqueness suffix
  const kept = truncateBytes(base, NAME_MAX_BYTES - Buffer.byteLength(ext) - 4).replace(/[\s.]+$/, "")
  return `${kept === "" ? fallback : kept}${ext}`
}

// ---- mime types ----

const MIME_BY_EXT: Record<string, string> = {
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  png: "image/png",
  gif: "image/gif",
  webp: "image/webp",
  heic: "image/heic",
  heif: "image/heif",
  tif: "image/tiff",
  tiff: "image/tiff",
  mov: "video/quicktime",
  mp4: "video/mp4",
  m4v: "video/mp4",
  m4a: "audio/mp4",
  aac: "audio/aac",
  caf: "audio/x-caf",
  mp3: "audio/mpeg",
  wav: "audio/wav",
  ogg: "audio/ogg",
  pdf: "application/pdf",
  txt: "text/plain",
  vcf: "text/vcard",
  zip: "application/zip"
}

const EXT_BY_MIME: Record<string, string> = { "image/jpeg": ".jpg", "audio/aac": ".aac" }

/** What the bridge turns a type into on download (BRIDGE-API.md: HEIC → JPEG, CAF → AAC). */
const convertedByBridge = (mime: string): string => {
  const m = mime.toLowerCase()
  if (m === "image/heic" || m === "image/heif" || m === "image/heic-sequence") return "image/jpeg"
  if (m === "audio/x-caf" || m === "audio/caf") return "audio/aac"
  return m
}

const mimeOfName = (name: string): string | undefined => {
  const ext = splitExt(name).ext.slice(1).toLowerCase()
  return ext === "" ? undefined : MIME_BY_EXT[ext]
}

const ascii = (bytes: Uint8Array, from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to))

/** The type of a file from its first bytes, for the few formats the bridge delivers; undefined otherwise. */
export const sniffMimeType = (head: Uint8Array): string | undefined => {
  const b = head
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg"
  if (b.length >= 8 && ascii(b, 0, 8) === "\x89PNG\r\n\x1a\n") return "image/png"
  if (b.length >= 4 && ascii(b, 0, 4) === "GIF8") return "image/gif"
  if (b.length >= 12 && ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 12) === "WEBP") return "image/webp"
  if (b.length >= 12 && ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 12) === "WAVE") return "audio/wav"
  if (b.length >= 5 && ascii(b, 0, 5) === "%PDF-") return "application/pdf"
  if (b.length >= 4 && ascii(b, 0, 4) === "caff") return "audio/x-caf"
  if (b.length >= 4 && ascii(b, 0, 4) === "OggS") return "audio/ogg"
  if (b.length >= 3 && ascii(b, 0, 3) === "ID3") return "audio/mpeg"
  if (b.length >= 12 && ascii(b, 4, 8) === "ftyp") {
    const brand = ascii(b, 8, 12)
    if (/^(heic|heix|hevc|heim|heis|hevm|hevs)$/.test(brand)) return "image/heic"
    if (brand === "mif1" || brand === "msf1") return "image/heif"
    if (brand === "M4A " || brand === "M4B ") return "audio/mp4"
    if (brand === "qt  ") return "video/quicktime"
    return "video/mp4"
  }
  if (b.length >= 2 && b[0] === 0xff && (b[1]! & 0xf6) === 0xf0) return "audio/aac" // ADTS
  if (b.length >= 2 && b[0] === 0xff && (b[1]! & 0xe0) === 0xe0 && (b[1]! & 0x06) !== 0) return "audio/mpeg"
  return undefined
}

/**
 * The type the saved file has. The client does not expose the response's content-type, so: the bytes
 * themselves when recognisable, else the attachment's mimeType, else the name's extension, the last two
 * mapped through the bridge's conversions (an attachment announced as HEIC arrives as JPEG).
 */
export const inboundMimeType = (attachment: Pick<BridgeAttachment, "mimeType" | "transferName">, head?: Uint8Array): string | undefined => {
  const sniffed = head === undefined ? undefined : sniffMimeType(head)
  if (sniffed !== undefined) return sniffed
  const declared = attachment.mimeType?.trim()
  if (declared !== undefined && declared !== "" && declared.toLowerCase() !== "application/octet-stream") {
    return convertedByBridge(declared)
  }
  const byName = mimeOfName(attachment.transferName ?? "")
  return byName === undefined ? undefined : convertedByBridge(byName)
}

/** The file name on disk: safe, and with the extension of what the file will really be (IMG.HEIC → IMG.jpg). */
const diskNameFor = (attachment: BridgeAttachment, mimeType: string | undefined): string => {
  const safe = safeFileName(attachment.transferName)
  const { base, ext } = splitExt(safe)
  const extMime = mimeOfName(safe)
  const wanted = mimeType === undefined ? undefined : EXT_BY_MIME[mimeType]
  return extMime !== undefined && mimeType !== undefined && extMime !== mimeType && wanted !== undefined && ext !== ""
    ? `${base}${wanted}`
    : safe
}

// ---- sizes ----

const oneDecimal = (n: number) => String(Math.round(n * 10) / 10)

/** 12.3 MB, 512 KB, 700 bytes. */
export const formatBytes = (bytes: number): string =>
  bytes >= 1024 * 1024
    ? `${oneDecimal(bytes / (1024 * 1024))} MB`
    : bytes >= 1024
    ? `${oneDecimal(bytes / 1024)} KB`
    : `${bytes} bytes`

const LIMIT_KEY = "channels.msgbridge.mediaMaxMb"

const overDeclaredReason = (name: string, size: number, maxBytes: number): string => {
  const s = formatBytes(size)
  const m = formatBytes(maxBytes)
  return s === m
    ? `${name} is ${size} bytes, over the ${m} limit of ${maxBytes} bytes (${LIMIT_KEY})`
    : `${name} is ${s}, over the ${m} limit (${LIMIT_KEY})`
}

// ---- download ----

class MediaWriteError extends Data.TaggedError("MediaWriteError")<{ readonly message: string }> {}
class MediaStalled extends Data.TaggedError("MediaStalled")<{ readonly message: string }> {}

type DownloadError = BridgeError | MediaWriteError | MediaStalled

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e))

const fsTry = <A>(what: string, f: () => A) =>
  Effect.try({ try: f, catch: (e) => new MediaWriteError({ message: `${what}: ${errorText(e)}` }) })

const fsPromise = <A>(what: string, f: () => Promise<A>) =>
  Effect.tryPromise({ try: f, catch: (e) => new MediaWriteError({ message: `${what}: ${errorText(e)}` }) })

const errnoCode = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | undefined)?.code

/** Give `tmp` the name `name` (or name-1, name-2 …) in `dir` without ever replacing a file; the final path. */
const publish = (tmp: string, dir: string, name: string): string => {
  const { base, ext } = splitExt(name)
  for (let i = 0; i < 1000; i++) {
    const candidate = path.join(dir, i === 0 ? name : `${base}-${i}${ext}`)
    try {
      fs.linkSync(tmp, candidate)
      return candidate
    } catch (e) {
      const code = errnoCode(e)
      if (code === "EEXIST") continue
      if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "EXDEV") throw e
      // A file system without hard links: an exclusive copy refuses to overwrite just the same.
      try {
        fs.copyFileSync(tmp, candidate, fs.constants.COPYFILE_EXCL)
        fs.chmodSync(candidate, 0o600)
        return candidate
      } catch (e2) {
        if (errnoCode(e2) === "EEXIST") continue
        throw e2
      }
    }
  }
  const last = path.join(dir, `${base}-${crypto.randomBytes(4).toString("hex")}${ext}`)
  fs.linkSync(tmp, last)
  return last
}

const HEAD_BYTES = 32

const download = (
  options: FetchInboundMediaOptions,
  attachment: BridgeAttachment,
  name: string
): Effect.Effect<InboundMedia, DownloadError> => {
  const dir = options.dir
  const tmp = path.join(dir, `.${crypto.randomBytes(6).toString("hex")}.part`)
  const idle = Duration.decode(options.idleTimeout ?? MEDIA_IDLE_TIMEOUT)
  return Effect.gen(function*() {
    yield* fsTry(`cannot create ${dir}`, () => fs.mkdirSync(dir, { recursive: true, mode: 0o700 }))
    let size = 0
    let head = new Uint8Array(0)
    yield* Effect.scoped(Effect.gen(function*() {
      const handle = yield* Effect.acquireRelease(
        fsPromise(`cannot create a file in ${dir}`, () => fs.promises.open(tmp, "wx", 0o600)),
        (h) => Effect.promise(() => h.close().catch(() => undefined))
      )
      yield* options.client.downloadAttachment(attachment.guid, options.maxBytes).pipe(
        Stream.timeoutFail(
          () => new MediaStalled({ message: `the bridge server sent nothing for ${Duration.format(idle)}` }),
          idle
        ),
        Stream.runForEach((chunk) => {
          if (head.length < HEAD_BYTES) {
            const next = new Uint8Array(Math.min(HEAD_BYTES, head.length + chunk.length))
            next.set(head)
            next.set(chunk.subarray(0, next.length - head.length), head.length)
            head = next
          }
          size += chunk.length
          return fsPromise(`cannot write ${dir}`, async () => {
            let at = 0
            while (at < chunk.length) at += (await handle.write(chunk, at, chunk.length - at)).bytesWritten
          })
        })
      )
    }))
    const mimeType = inboundMimeType(attachment, head)
    const file = yield* fsTry(`cannot save into ${dir}`, () => publish(tmp, dir, diskNameFor(attachment, mimeType)))
    return { guid: attachment.guid, path: file, mimeType, name, size, kind: options.isSticker === true ? "sticker" : "attachment" } as const
  }).pipe(
    Effect.ensuring(Effect.sync(() => {
      try {
        fs.rmSync(tmp, { force: true })
      } catch {
        // pruneMedia removes a stale .part file later
      }
    }))
  )
}

const skipReason = (name: string, e: DownloadError): string => {
  switch (e._tag) {
    case "BridgeTooLarge":
      return `${name} is larger than the ${formatBytes(e.maxBytes)} limit (${LIMIT_KEY}); the download was stopped there`
    case "BridgeHttpError":
      return e.status === 404
        ? `${name} could not be downloaded: the bridge server does not have it (404)`
        : `${name} could not be downloaded: ${e.message}`
    case "MediaWriteError":
      return `${name} could not be saved: ${e.message}`
    default:
      return `${name} could not be downloaded: ${e.message}`
  }
}

const fetchOne = (
  options: FetchInboundMediaOptions,
  attachment: BridgeAttachment
): Effect.Effect<Either.Either<InboundMedia, SkippedMedia>> => {
  const name = displayName(attachment)
  const skipped = (reason: string) => Either.left<SkippedMedia>({ guid: attachment.guid, name, reason })
  const declared = attachment.totalBytes
  if (typeof declared === "number" && Number.isFinite(declared) && declared > options.maxBytes) {
    return Effect.succeed(skipped(overDeclaredReason(name, declared, options.maxBytes)))
  }
  return download(options, attachment, name).pipe(
    Effect.map((m) => Either.right(m)),
    Effect.catchAll((e) =>
      Effect.as(
        // Over the cap is the user's setting at work; anything else is worth the operator's attention.
        e._tag === "BridgeTooLarge" ? Effect.void : Effect.logWarning(`msgbridge: attachment ${attachment.guid} skipped: ${e.message}`),
        skipped(skipReason(name, e))
      )
    ),
    // one attachment must never fail the message, not even through a bug
    Effect.catchAllDefect((d) =>
      Effect.as(Effect.logError(`msgbridge: attachment ${attachment.guid} skipped after an unexpected error`, d), skipped(`${name} could not be downloaded (unexpected error)`))
    )
  )
}

/** Download the attachments of one inbound message; each one is either saved or skipped with a reason. */
export const fetchInboundMedia = Effect.fn("msgbridge.fetchInboundMedia")(function*(options: FetchInboundMediaOptions) {
  const results = yield* Effect.forEach(options.attachments, (a) => fetchOne(options, a), {
    concurrency: Math.max(1, options.concurrency ?? MEDIA_DOWNLOAD_CONCURRENCY)
  })
  const media: Array<InboundMedia> = []
  const skipped: Array<SkippedMedia> = []
  for (const r of results) {
    if (Either.isRight(r)) media.push(r.right)
    else skipped.push(r.left)
  }
  return { media, skipped } as { readonly media: ReadonlyArray<InboundMedia>; readonly skipped: ReadonlyArray<SkippedMedia> }
})

/** The line for the agent's context about what was not downloaded; undefined when nothing was skipped. */
export const mediaNote = (skipped: ReadonlyArray<SkippedMedia>): string | undefined => {
  if (skipped.length === 0) return undefined
  const head = skipped.length === 1 ? "1 attachment was not downloaded" : `${skipped.length} attachments were not downloaded`
  return `${head}: ${skipped.map((s) => s.reason).join("; ")}.`
}
