// Decode issues as one short line that names each field (the CLI's failures and the MCP tools' bad arguments).

/** A decode issue as @effect/platform's HttpApiDecodeError and Schema's ArrayFormatter give them. */
export interface DecodeIssue {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

const pathText = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>(
    (text, key) => typeof key === "number" ? `${text}[${key}]` : text === "" ? String(key) : `${text}.${String(key)}`,
    ""
  )

const expectedActual = /^Expected (.+), actual (.+)$/s

/**
 * Decode issues as one short line naming each field: `limit: expected a whole number from 1 to 10000000,
 * got 0`. The members an optional field's union adds (`Expected undefined, actual 0`) only lend the value.
 */
export const describeIssues = (issues: ReadonlyArray<DecodeIssue>): string => {
  const byPath = new Map<string, Array<string>>()
  for (const issue of issues) {
    const key = pathText(issue.path)
    const list = byPath.get(key) ?? []
    if (!list.includes(issue.message)) list.push(issue.message)
    byPath.set(key, list)
  }
  // An optional field whose value fails deeper (`headers[0]: …`) also fails its union's `undefined` at the
  // field itself, which says nothing: that one is left out when the deeper one is there.
  for (const [key, messages] of [...byPath]) {
    const deeper = [...byPath.keys()].some((k) => k !== key && (key === "" || k.startsWith(`${key}[`) || k.startsWith(`${key}.`)))
    if (deeper && messages.every((m) => expectedActual.exec(m)?.[1] === "undefined")) byPath.delete(key)
  }
  const parts: Array<string> = []
  for (const [key, messages] of byPath) {
    let got: string | undefined
    const expected: Array<string> = []
    const other: Array<string> = []
    for (const message of messages) {
      const m = expectedActual.exec(message)
      if (m !== null) {
        got = m[2]
        if (m[1] !== "undefined") expected.push(m[1]!)
      } else other.push(message.split("\n")[0]!)
    }
    const what = [
      ...(expected.length > 0 ? [`expected ${expected.join(" | ")}`] : []),
      ...other
    ]
    if (what.length === 0 && got !== undefined) what.push("expected nothing here")
    const text = what.join("; ") + (got !== undefined && !what.some((w) => w.includes(" actual ")) ? `, got ${got}` : "")
    parts.push(key === "" ? text : text === "is missing" ? `${key} is missing` : `${key}: ${text}`)
  }
  return parts.length === 0 ? "the request does not match the control API's schema" : parts.join("; ")
}
