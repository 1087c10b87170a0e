// Is a host name or address this machine? One answer for the listeners' Host checks, the webhook's
// client check, CDP websocket rewriting and the scheme a bare local host gets.

const LOOPBACK_NAMES = new Set(["127.0.0.1", "localhost", "[::1]", "::1"])

/** A loopback name or address (lower-case): localhost, *.localhost, 127.0.0.0/8, ::1 (bracketed or not). */
export const isLoopbackHostname = (hostname: string): boolean =>
  LOOPBACK_NAMES.has(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname) || hostname.endsWith(".localhost")

const UNSPECIFIED = new Set(["0.0.0.0", "[::]", "::"])

/**
 * A loopback host, or the unspecified address (0.0.0.0, ::) that a server bound to every interface
 * advertises and that reaches this machine when dialled. Never use it to admit a request.
 */
export const isLocalHostname = (hostname: string): boolean => {
  const h = hostname.toLowerCase()
  return isLoopbackHostname(h) || UNSPECIFIED.has(h)
}

/** A socket's remote address on loopback; IPv4-mapped IPv6 (`::ffff:127.0.0.1`) included. */
export const isLoopbackAddress = (address: string): boolean => isLoopbackHostname(address.replace(/^::ffff:/, ""))

/** The hostname of a Host header (`name[:port]`, `[v6]:port`), lower-cased. */
export const hostnameOf = (host: string): string => {
  const h = host.trim().toLowerCase()
  if (h.startsWith("[")) {
    const end = h.indexOf("]")
    return end < 0 ? h : h.slice(0, end + 1)
  }
  const colon = h.lastIndexOf(":")
  return colon < 0 ? h : h.slice(0, colon)
}
