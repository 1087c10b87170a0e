import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeDirsSync } from "../../platform/dirs.js"
import { nodeIdOf, signedText } from "../protocol.js"

// A node host's identity: an Ed25519 key pair in `<state dir>/node/identity.json` (owner-only), made on the
// first run. The gateway knows the node by its public key (its id is the key's hash), so the approval
// survives restarts, and a process without the private key cannot claim the id.

export interface NodeIdentity {
  readonly id: string
  /** SPKI DER, base64. */
  readonly publicKey: string
  readonly sign: (nonce: string) => string
  readonly file: string
}

export const identityFile = (stateDir: string) => path.join(stateDir, "node", "identity.json")

export const loadOrCreateIdentity = (stateDir: string): NodeIdentity => {
  const file = identityFile(stateDir)
  let stored: { publicKey: string; privateKey: string } | undefined
  try {
    stored = JSON.parse(fs.readFileSync(file, "utf8")) as { publicKey: string; privateKey: string }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") {
      throw new Error(`cannot read the node identity ${file}: ${(e as Error).message}; move it away to make a new one (the node must then be approved again)`)
    }
  }
  if (stored === undefined) {
    const pair = crypto.generateKeyPairSync("ed25519")
    stored = {
      publicKey: pair.publicKey.export({ format: "der", type: "spki" }).toString("base64"),
      privateKey: pair.privateKey.export({ format: "der", type: "pkcs8" }).toString("base64")
    }
    makeDirsSync(path.dirname(file))
    fs.writeFileSync(file, JSON.stringify(stored, null, 2) + "\n", { mode: 0o600, flag: "wx" })
  }
  const privateKey = crypto.createPrivateKey({ key: Buffer.from(stored.privateKey, "base64"), format: "der", type: "pkcs8" })
  const publicKey = stored.publicKey
  return {
    id: nodeIdOf(publicKey),
    publicKey,
    sign: (nonce) => crypto.sign(null, signedText(nonce, publicKey), privateKey).toString("base64"),
    file
  }
}
