import { Schema } from "effect"
import { redactSecrets } from "./redact.js"

/**
 * Text that leaves the gateway in an answer (a page's URL, an error's message): the URLs in it have their
 * secrets hidden as it is encoded (a password in the userinfo, token-like parameters: redact.ts);
 * it is read back as it came. Only for what the gateway answers, never for what it is sent: a URL to
 * navigate to must arrive whole.
 */
export const ShownText = Schema.transform(Schema.String, Schema.String, {
  strict: true,
  decode: (s) => s,
  encode: (s) => redactSecrets(s)
})
