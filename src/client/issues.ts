import { issuesByField, type PathIssue } from "../platform/decodeIssues.js"

// Decode issues as one short line that names each field (the CLI's failures and the MCP tools' bad arguments).

/** A decode issue as @effect/platform's HttpApiDecodeError and Schema's ArrayFormatter give them. */
export type DecodeIssue = PathIssue

const expectedActual = /^Expected (.+), actual (.+)$/s

/**
 * Decode issues as one short line naming each field: `limit: expected a whole number from 1 to 10000000,
 * got 0`. The members an optional field's union adds (`Expected undefined, actual 0`) only lend the value.
 */
export const describeIssues = (issues: ReadonlyArray<DecodeIssue>): string => {
  const parts: Array<string> = []
  for (const [key, { messages }] of issuesByField(issues)) {
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
