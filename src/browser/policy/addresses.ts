import * as os from "node:os"

// Hosts as addresses: the forms the URL parser leaves (lower case, punycode, IPv4 in dotted decimal, IPv6
// compressed in brackets), read as numbers where they are IP literals, so that a host is recognised as this
// machine or a cloud metadata service however it was written.

/** A host as the URL parser writes it, without a trailing dot (`example.com.` is `example.com`). */
export const canonicalHost = (hostname: string): string => hostname.toLowerCase().replace(/\.$/, "")

/** The four bytes of a dotted IPv4 literal, or undefined. */
export const ipv4Bytes = (host: string): ReadonlyArray<number> | undefined => {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host)
  if (m === null) return undefined
  const bytes = m.slice(1).map(Number)
  return bytes.every((b) => b <= 255) ? bytes : undefined
}

/** The eight 16-bit groups of an IPv6 literal (with or without brackets), or undefined. */
export const ipv6Groups = (host: string): ReadonlyArray<number> | undefined => {
  let s = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host
  if (!s.includes(":") || !/^[0-9a-f:.]+$/i.test(s)) return undefined
  // A dotted IPv4 tail (`::ffff:127.0.0.1`) is two groups written another way.
  const v4 = /:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(s)
  if (v4 !== null) {
    const b = ipv4Bytes(v4[1]!)
    if (b === undefined) return undefined
    s = `${s.slice(0, -v4[1]!.length)}${((b[0]! << 8) | b[1]!).toString(16)}:${((b[2]! << 8) | b[3]!).toString(16)}`
  }
  const halves = s.split("::")
  if (halves.length > 2) return undefined
  const part = (p: string) => (p === "" ? [] : p.split(":"))
  const head = part(halves[0]!)
  const rest = halves.length === 2 ? part(halves[1]!) : []
  if ([...head, ...rest].some((g) => !/^[0-9a-f]{1,4}$/i.test(g))) return undefined
  const given = head.length + rest.length
  if (halves.length === 1 ? given !== 8 : given > 7) return undefined
  const zeros = new Array<number>(8 - given).fill(0)
  return [...head, ...(halves.length === 2 ? zeros.map(String) : []), ...rest].map((g) => parseInt(g, 16))
}

/** An IPv4 address an IPv6 literal maps (`::ffff:127.0.0.1`, written `[::ffff:7f00:1]` by the parser). */
const mappedIpv4 = (groups: ReadonlyArray<number>): ReadonlyArray<number> | undefined =>
  groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff
    ? [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff]
    : undefined

/**
 * One spelling per address: an IPv4 literal (or an IPv6 one that maps IPv4) as dotted decimal, another IPv6
 * literal as its eight groups in hex, a name as itself.
 */
export const addressKey = (host: string): string => {
  const h = canonicalHost(host)
  const v4 = ipv4Bytes(h)
  if (v4 !== undefined) return v4.join(".")
  const v6 = ipv6Groups(h)
  if (v6 === undefined) return h
  const mapped = mappedIpv4(v6)
  return mapped !== undefined ? mapped.join(".") : v6.map((g) => g.toString(16)).join(":")
}

/** The addresses of this machine's network interfaces, as address keys. */
export const interfaceAddresses = (): ReadonlySet<string> => {
  const keys = new Set<string>()
  try {
    for (const list of Object.values(os.networkInterfaces())) {
      for (const a of list ?? []) keys.add(addressKey(a.address.replace(/%.*$/, "")))
    }
  } catch {
    // No interfaces to read (a sandbox): loopback is still recognised by its ranges.
  }
  return keys
}

/**
 * Whether the host is this machine: localhost and *.localhost (Chromium resolves them to loopback itself),
 * 127.0.0.0/8, 0.0.0.0 (Linux connects it to loopback), ::1, ::, IPv4-mapped forms of those, and the
 * addresses of this machine's interfaces.
 */
export const isThisMachine = (host: string, interfaces: ReadonlySet<string>): boolean => {
  const h = canonicalHost(host)
  if (h === "localhost" || h.endsWith(".localhost")) return true
  const key = addressKey(h)
  if (interfaces.has(key)) return true
  const v4 = ipv4Bytes(key)
  if (v4 !== undefined) return v4[0] === 127 || v4[0] === 0
  return key === "0:0:0:0:0:0:0:1" || key === "0:0:0:0:0:0:0:0"
}

/**
 * Cloud instance metadata services (credentials of the machine's cloud role live there): AWS, GCP, Azure,
 * OpenStack and DigitalOcean at 169.254.169.254, AWS over IPv6 at fd00:ec2::254, ECS tasks at 169.254.170.2,
 * Alibaba at 100.100.100.200, and GCP's names.
 */
export const CLOUD_METADATA_HOSTS: ReadonlyArray<string> = [
  "169.254.169.254",
  "169.254.170.2",
  "100.100.100.200",
  "fd00:ec2::254",
  "metadata.google.internal",
  "metadata"
]
const METADATA = new Set(CLOUD_METADATA_HOSTS.map(addressKey))

export const isCloudMetadata = (host: string): boolean => METADATA.has(addressKey(host))
