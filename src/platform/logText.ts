// Text from outside (a guid, a bridge's error, a page's message) made safe for one log line: control
// characters (a newline would start a forged line; NUL, escape sequences) shown escaped, and long text
// cut to its first line's worth.

export const MAX_LOG_TEXT = 400

export const logText = (text: string, max = MAX_LOG_TEXT): string => {
  const safe = text.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, (c) =>
    c === "\n" ? "\\n" : c === "\r" ? "\\r" : c === "\t" ? "\\t" : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`
  )
  return safe.length <= max ? safe : `${safe.slice(0, max)}… [${safe.length - max} more characters]`
}
