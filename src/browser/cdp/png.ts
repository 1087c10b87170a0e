// The size of a screenshot, read from its header (screenshots report it without decoding the image): a
// PNG's IHDR chunk, or a JPEG's start-of-frame segment.

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

export interface ImageSize {
  readonly width: number
  readonly height: number
}

/** Width and height from a PNG's IHDR chunk, or undefined when the bytes are not a PNG. */
export const pngSize = (png: Uint8Array): ImageSize | undefined => {
  if (png.length < 24 || PNG_SIGNATURE.some((b, i) => png[i] !== b)) return undefined
  if (String.fromCharCode(png[12]!, png[13]!, png[14]!, png[15]!) !== "IHDR") return undefined
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength)
  return { width: view.getUint32(16), height: view.getUint32(20) }
}

/** Width and height from a JPEG's first start-of-frame segment (SOF0-SOF15 but DHT, JPG, DAC), or undefined. */
export const jpegSize = (jpeg: Uint8Array): ImageSize | undefined => {
  if (jpeg.length < 4 || jpeg[0] !== 0xff || jpeg[1] !== 0xd8) return undefined
  const view = new DataView(jpeg.buffer, jpeg.byteOffset, jpeg.byteLength)
  let at = 2
  while (at + 4 <= jpeg.length) {
    if (jpeg[at] !== 0xff) return undefined
    const marker = jpeg[at + 1]!
    // Fill bytes, and markers without a length (restart markers, start and end of image).
    if (marker === 0xff) {
      at++
      continue
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd9)) {
      at += 2
      continue
    }
    const length = view.getUint16(at + 2)
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (at + 9 > jpeg.length) return undefined
      return { width: view.getUint16(at + 7), height: view.getUint16(at + 5) }
    }
    at += 2 + length
  }
  return undefined
}

/** A screenshot's format: PNG (lossless) or JPEG (smaller, for photos and long pages). */
export type ImageType = "png" | "jpeg"

/** A file name's extension for an image of that type. */
export const imageExtension = (type: ImageType): string => (type === "jpeg" ? "jpg" : "png")

/** The size of an image of that type, or undefined when the bytes are not one. */
export const imageSize = (type: ImageType, bytes: Uint8Array): ImageSize | undefined =>
  type === "jpeg" ? jpegSize(bytes) : pngSize(bytes)
