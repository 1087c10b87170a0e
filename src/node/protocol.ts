import * as crypto from "node:crypto"

// What a node host and the gateway say to each other over the node socket (a WebSocket the node dials on the
// gateway port). Text frames carry JSON messages; a forwarded request's answer is one binary frame holding
// its header, its body and the files the node produced, so a screenshot travels as bytes, not base64.
//
//   gateway → node  {type: "challenge", nonce}
//   node → gateway  {type: "hello", publicKey, signature, name, version, capabilities, profiles, defaultProfile}
//   gateway → node  {type: "welcome", id, status, message}     (and {type: "approved"} once it is)
//   gateway → node  {type: "request", id, method, path, headers, body}
//   node → gateway  binary: u32 header length, header {type: "response", id, status, headers, bodyBytes, files}, body, files

/** The WebSocket path on the gateway port. */
export const NODE_SOCKET_PATH = "/node"

/** Names the protocol (and what a signature is for, so it is never valid for anything else). */
export const PROTOCOL = "svc-node-1"

export interface Challenge {
  readonly type: "challenge"
  readonly nonce: string
}

export interface Hello {
  readonly type: "hello"
  readonly protocol: string
  /** Ed25519 public key, SPKI DER in base64. */
  readonly publicKey: string
  /** Ed25519 signature of signedText(nonce, publicKey), base64. */
  readonly signature: string
  readonly name: string
  readonly version: string
  readonly capabilities: ReadonlyArray<string>
  readonly profiles: ReadonlyArray<string>
  readonly defaultProfile?: string | undefined
}

export interface Welcome {
  readonly type: "welcome"
  readonly id: string
  readonly status: "pending" | "approved"
  readonly message: string
}

export interface Approved {
  readonly type: "approved"
}

export interface ForwardedRequest {
  readonly type: "request"
  readonly id: number
  readonly method: string
  /** Path and query, as the control server received it (without `node=`). */
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  /** The body, base64 (requests are small JSON). */
  readonly body: string
}

export interface FileHeader {
  /** The path in the node's answer, which the gateway replaces with its own copy's. */
  readonly path: string
  readonly bytes: number
}

export interface ResponseHeader {
  readonly type: "response"
  readonly id: number
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly bodyBytes: number
  readonly files: ReadonlyArray<FileHeader>
}

export type GatewayMessage = Challenge | Welcome | Approved | ForwardedRequest
export type NodeMessage = Hello

/** What a node signs to prove it holds the key of its id: bound to this protocol, this nonce and this key. */
export const signedText = (nonce: string, publicKey: string): Buffer =>
  Buffer.from(`${PROTOCOL}\nhello\n${nonce}\n${publicKey}`, "utf8")

/** A node's id: the first 16 hex digits of SHA-256 over its public key (SPKI DER). */
export const nodeIdOf = (publicKeyB64: string): string =>
  crypto.createHash("sha256").update(Buffer.from(publicKeyB64, "base64")).digest("hex").slice(0, 16)

/** Whether `signature` is the key's Ed25519 signature of signedText(nonce, publicKey). */
export const verifyHello = (hello: Pick<Hello, "publicKey" | "signature">, nonce: string): boolean => {
  try {
    const key = crypto.createPublicKey({ key: Buffer.from(hello.publicKey, "base64"), format: "der", type: "spki" })
    if (key.asymmetricKeyType !== "ed25519") return false
    return crypto.verify(null, signedText(nonce, hello.publicKey), key, Buffer.from(hello.signature, "base64"))
  } catch {
    return false
  }
}

/** A response as one binary frame. */
export const encodeResponse = (
  header: Omit<ResponseHeader, "type" | "bodyBytes" | "files">,
  body: Uint8Array,
  files: ReadonlyArray<{ readonly path: string; readonly data: Uint8Array }>
): Buffer => {
  const head = Buffer.from(
    JSON.stringify({
      type: "response",
      ...header,
      bodyBytes: body.byteLength,
      files: files.map((f) => ({ path: f.path, bytes: f.data.byteLength }))
    } satisfies ResponseHeader),
    "utf8"
  )
  const length = Buffer.alloc(4)
  length.writeUInt32BE(head.byteLength)
  return Buffer.concat([length, head, body, ...files.map((f) => f.data)])
}

export interface DecodedResponse {
  readonly header: ResponseHeader
  readonly body: Uint8Array
  readonly files: ReadonlyArray<{ readonly path: string; readonly data: Uint8Array }>
}

/** A binary frame back into its parts; undefined when it is not one of ours. */
export const decodeResponse = (frame: Uint8Array): DecodedResponse | undefined => {
  try {
    const buf = Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength)
    const headLength = buf.readUInt32BE(0)
    const header = JSON.parse(buf.subarray(4, 4 + headLength).toString("utf8")) as ResponseHeader
    if (header.type !== "response" || typeof header.id !== "number" || !Array.isArray(header.files)) return undefined
    let at = 4 + headLength
    const body = buf.subarray(at, at + header.bodyBytes)
    at += header.bodyBytes
    const files = header.files.map((f) => {
      const data = buf.subarray(at, at + f.bytes)
      at += f.bytes
      return { path: f.path, data }
    })
    if (at !== buf.byteLength) return undefined
    return { header, body, files }
  } catch {
    return undefined
  }
}

/** A JSON text frame as a message, or undefined. */
export const parseMessage = <A extends { readonly type: string }>(text: string): A | undefined => {
  try {
    const value = JSON.parse(text) as A
    return typeof value === "object" && value !== null && typeof value.type === "string" ? value : undefined
  } catch {
    return undefined
  }
}

/** Keys of an answer whose string values are files the node produced (screenshot, PDF, download, trace, labels). */
export const FILE_KEYS = new Set(["path", "labelsPath"])

/** Every string under a FILE_KEYS key of `value`, walked through objects and arrays. */
export const filePathsIn = (value: unknown, out: Set<string> = new Set()): Set<string> => {
  if (Array.isArray(value)) for (const v of value) filePathsIn(v, out)
  else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (FILE_KEYS.has(k) && typeof v === "string") out.add(v)
      else filePathsIn(v, out)
    }
  }
  return out
}

/** `value` with each FILE_KEYS string that `map` knows replaced by its mapping. */
export const replacePaths = (value: unknown, map: ReadonlyMap<string, string>): unknown => {
  if (Array.isArray(value)) return value.map((v) => replacePaths(v, map))
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, FILE_KEYS.has(k) && typeof v === "string" ? (map.get(v) ?? v) : replacePaths(v, map)])
    )
  }
  return value
}
