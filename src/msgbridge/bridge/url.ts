// The bridge server's address, and keeping its password out of sight. The password rides in the query
// string of every call (the server reads it nowhere else), so any text that may hold a URL or the server's
// echo of one goes through a redactor before it reaches a message or a log line.

/** "mac.local:1234/" → "http://mac.local:1234". */
export const normaliseServerUrl = (serverUrl: string): string => {
  const trimmed = serverUrl.trim().replace(/\/+$/, "")
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`
}

/**
 * A function that masks, in any text, the values of password/guid/token query parameters and the password
 * itself in each form it can take in a URL (as is, percent-encoded, form-encoded).
 */
export const redactor = (password: string): (text: string) => string => {
  const forms = [...new Set([password, encodeURIComponent(password), new URLSearchParams({ p: password }).toString().slice(2)])]
    .filter((form) => form.length > 0)
  return (text) => {
    let out = text.replace(/([?&](?:password|guid|token)=)[^&\s"']*/gi, "$1***")
    for (const form of forms) out = out.split(form).join("***")
    return out
  }
}
