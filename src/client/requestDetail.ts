import type { RequestDetail } from "../domain/browserState.js"

// One request in full, as the CLI and MCP answers show it: its line, then its headers both ways and the
// data it posted, one header a line.

const headerLines = (headers: Readonly<Record<string, string>>) =>
  Object.entries(headers)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, value]) => `  ${name}: ${value}`)

/** `#12 POST https://… => 200 (fetch, 34 ms)` and its parts. */
export const requestDetailText = (r: typeof RequestDetail.Type): string => {
  const outcome = r.state === "failed" ? `failed: ${r.failure ?? "?"}` : r.status !== null ? String(r.status) : "pending"
  return [
    `#${r.seq} ${r.method} ${r.url} => ${outcome} (${r.resourceType}${r.durationMs !== null ? `, ${Math.round(r.durationMs)} ms` : ""})`,
    "request headers:",
    ...headerLines(r.requestHeaders),
    ...(r.postData !== null ? ["posted data:", r.postData] : []),
    ...(r.responseHeaders !== null ? ["response headers:", ...headerLines(r.responseHeaders)] : ["no response yet"])
  ].join("\n")
}

/** One part of a request: its headers either way, or what it posted. */
export const requestPartText = (
  r: typeof RequestDetail.Type,
  part: "request-headers" | "request-body" | "response-headers"
): string =>
  part === "request-headers"
    ? headerLines(r.requestHeaders).map((l) => l.trim()).join("\n")
    : part === "request-body"
    ? r.postData ?? `#${r.seq} posted no data`
    : r.responseHeaders !== null
    ? headerLines(r.responseHeaders).map((l) => l.trim()).join("\n")
    : `#${r.seq} has no response yet`
