// What a drop carried, as the CLI's and MCP's answers say it: `2 file(s) and text/plain, text/uri-list`.

export const droppedWhat = (
  paths: ReadonlyArray<string> | undefined,
  data: Readonly<Record<string, string>> | undefined
): string =>
  [
    ...(paths !== undefined && paths.length > 0 ? [`${paths.length} file(s)`] : []),
    ...(data !== undefined && Object.keys(data).length > 0 ? [Object.keys(data).join(", ")] : [])
  ].join(" and ") || "nothing"
