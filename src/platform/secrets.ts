import * as crypto from "node:crypto"

const digest = (s: string) => crypto.createHash("sha256").update(s, "utf8").digest()

/** Constant-time equality of secrets: both sides are hashed first so their lengths never leak through timing. */
export const secretEquals = (given: string, expected: string): boolean =>
  crypto.timingSafeEqual(digest(given), digest(expected))
