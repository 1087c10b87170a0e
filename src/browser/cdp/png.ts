// The size of a PNG, read from its header (screenshots report it without decoding the image).

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

/** Width and height from a PNG's IHDR chunk, or undefined when the bytes are not a PNG. */
export const pngSize = (png: Uint8Array): { readonly width: number; readonly height: number } | undefined => {
  if (png.length < 24 || PNG_SIGNATURE.some((b, i) => png[i] !== b)) return undefined
  if (String.fromCharCode(png[12]!, png[13]!, png[14]!, png[15]!) !== "IHDR") return undefined
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength)
  return { width: view.getUint32(16), height: view.getUint32(20) }
}
