import * as crypto from "node:crypto"

// The extension's credential: derived from the gateway's secret (its token, else its password), so the user
// pastes one value into the extension's settings once and it changes when the gateway's secret does. The
// label keeps it from being usable as the gateway token itself.

const LABEL = "svc extension relay token v1"

export const relayToken = (gatewaySecret: string): string =>
  crypto.createHmac("sha256", gatewaySecret).update(LABEL, "utf8").digest("base64url")
