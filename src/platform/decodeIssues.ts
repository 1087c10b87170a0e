// Schema's decode issues grouped by the field they are about: the one reading behind the control API's short
// 400 messages (http/decodeErrors.ts) and the CLI's and MCP's one-line failures (client/issues.ts).

/** One issue as Schema's ArrayFormatter (and @effect/platform's HttpApiDecodeError) gives it. */
export interface PathIssue {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

/** `fields[0].ref`; "" for the request itself. */
export const issuePath = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>(
    (text, key) => typeof key === "number" ? `${text}[${key}]` : text === "" ? String(key) : `${text}.${String(key)}`,
    ""
  )

/** What an optional field's union adds for its `undefined` member: it says nothing of what the field takes. */
const onlyUndefined = (messages: ReadonlyArray<string>) => messages.every((m) => /^Expected undefined, actual /.test(m))

/**
 * The issues by field, in order: the first issue of each and its distinct messages. An optional field whose
 * value fails deeper (`headers[0]: …`) also fails its `undefined` at the field itself; that one is left out
 * when the deeper one is there.
 */
export const issuesByField = <I extends PathIssue>(
  issues: ReadonlyArray<I>
): Map<string, { readonly first: I; readonly messages: Array<string> }> => {
  const byPath = new Map<string, { readonly first: I; readonly messages: Array<string> }>()
  for (const issue of issues) {
    const key = issuePath(issue.path)
    const entry = byPath.get(key)
    if (entry === undefined) byPath.set(key, { first: issue, messages: [issue.message] })
    else if (!entry.messages.includes(issue.message)) entry.messages.push(issue.message)
  }
  for (const [key, e] of [...byPath]) {
    const deeper = [...byPath.keys()].some((k) => k !== key && (key === "" || k.startsWith(`${key}[`) || k.startsWith(`${key}.`)))
    if (deeper && onlyUndefined(e.messages)) byPath.delete(key)
  }
  return byPath
}
