// The file a message action sends (sendAttachment, setGroupIcon): read from a confined local path or
// decoded from base64 under the size cap, typed by its extension, and checked to be MP3 or CAF audio when
// it is to go as a voice memo.

import { Effect, Either, Encoding } from "effect"
import * as path from "node:path"
import { type LocalMediaDenied, type LocalMediaTooLarge, readLocalMedia } from "../media/LocalMedia.js"
import type { ActionName } from "./ActionAvailability.js"
import { type ActionError, ActionInvalidParams, ActionMediaTooLarge, ActionPathDenied, invalidParams } from "./ActionErrors.js"

const MIME_TYPES: Readonly<Record<string, string>> = {
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".png": "image/png",
  ".gif": "image/gif",
  ".heic": "image/heic",
  ".webp": "image/webp",
  ".mp3": "audio/mpeg",
  ".caf": "audio/x-caf",
  ".m4a": "audio/mp4",
  ".mp4": "video/mp4",
  ".mov": "video/quicktime",
  ".pdf": "application/pdf",
  ".txt": "text/plain"
}
export const mimeTypeOf = (name: string): string | undefined => MIME_TYPES[path.extname(name).toLowerCase()]

type VoiceFormat = "mp3" | "caf"

/** By magic bytes: CAF starts "caff"; MP3 with an ID3 tag starts "ID3", without one with an MPEG frame sync. */
export const sniffVoiceFormat = (data: Uint8Array): VoiceFormat | undefined => {
  const ascii = (n: number) => String.fromCharCode(...data.subarray(0, n))
  if (data.length >= 4 && ascii(4) === "caff") return "caf"
  if (data.length >= 3 && ascii(3) === "ID3") return "mp3"
  if (data.length >= 2 && data[0] === 0xff && (data[1]! & 0xe0) === 0xe0 && (data[1]! & 0x06) !== 0) return "mp3"
  return undefined
}

export interface Media {
  readonly name: string
  readonly data: Uint8Array
}

/** The media of setGroupIcon / sendAttachment: a confined local path, or base64 bytes with a file name. */
export const loadMedia = (
  action: ActionName,
  p: { readonly path?: string; readonly media?: string; readonly buffer?: string; readonly filename?: string },
  localRoots: ReadonlyArray<string>,
  maxBytes: number
): Effect.Effect<Media, ActionError> =>
  Effect.gen(function*() {
    if (p.path !== undefined && p.media !== undefined) return yield* invalidParams(action, "media", "give path or media (the same thing), not both")
    const local = p.path ?? p.media
    const localField = p.path !== undefined ? "path" : "media"
    if (local !== undefined && p.buffer !== undefined) return yield* invalidParams(action, "buffer", "give either path (a local file) or buffer (base64 bytes), not both")
    if (local === undefined && p.buffer === undefined) {
      return yield* invalidParams(action, "path", "the file is missing: give path (an absolute path under channels.msgbridge.mediaLocalRoots) or buffer (base64 bytes) with filename")
    }
    const filename = p.filename === undefined ? undefined : path.basename(p.filename.trim())
    if (filename !== undefined && (filename === "" || filename === "." || filename === "..")) {
      return yield* invalidParams(action, "filename", `filename: expected a file name such as photo.jpg, got "${p.filename}"`)
    }
    if (local !== undefined) {
      const file = yield* readLocalMedia(local, localRoots, maxBytes).pipe(
        Effect.mapError((e: LocalMediaDenied | LocalMediaTooLarge): ActionError => {
          if (e._tag === "LocalMediaTooLarge") {
            return new ActionMediaTooLarge({ action, size: e.size, maxBytes: e.maxBytes, message: `${action}: ${e.message}` })
          }
          return e.reason === "no-roots" || e.reason === "outside-roots"
            ? new ActionPathDenied({ action, path: e.path, message: `${action}: ${e.message}` })
            : invalidParams(action, localField, `${localField}: ${e.message}`)
        })
      )
      return { name: filename ?? path.basename(local), data: file.data }
    }
    if (filename === undefined) return yield* invalidParams(action, "filename", "filename is missing: a buffer needs the file name the recipient sees, such as photo.jpg")
    const base64 = p.buffer!.replace(/^data:[^,]*;base64,/, "").replace(/\s+/g, "")
    // Refuse by the encoded length before decoding anything.
    const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0
    const size = Math.floor((base64.length * 3) / 4) - padding
    if (size > maxBytes) {
      return yield* new ActionMediaTooLarge({
        action,
        size,
        maxBytes,
        message: `${action}: the buffer holds ${size} bytes, over the ${maxBytes}-byte limit (channels.msgbridge.mediaMaxMb)`
      })
    }
    const data = Encoding.decodeBase64(base64)
    if (Either.isLeft(data)) return yield* invalidParams(action, "buffer", "buffer: expected the file's bytes as base64")
    return { name: filename, data: data.right }
  })

/** asVoice: the bytes must be MP3 or CAF, and the name must say so (the server picks its conversion by name). */
export const voiceMedia = (action: ActionName, media: Media): Effect.Effect<Media, ActionInvalidParams> => {
  const format = sniffVoiceFormat(media.data)
  const ext = path.extname(media.name).toLowerCase()
  if (format === undefined) {
    return Effect.fail(
      invalidParams(action, "asVoice", `asVoice needs an MP3 or CAF audio file; ${media.name} is ${ext === ".mp3" || ext === ".caf" ? `not one (its content is not ${ext.slice(1).toUpperCase()})` : "neither"}`)
    )
  }
  if (ext === `.${format}`) return Effect.succeed(media)
  if (ext === "") return Effect.succeed({ ...media, name: `${media.name}.${format}` })
  return Effect.fail(invalidParams(action, "asVoice", `asVoice needs an MP3 or CAF audio file; ${media.name} holds ${format.toUpperCase()} audio but is named ${ext}: name it .${format}`))
}
