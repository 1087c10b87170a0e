// What saving or loading a storage state did, as the CLI's, MCP's and the agent tool's answers say it.

interface StateCounts {
  readonly path: string
  readonly cookies: number
  readonly origins: number
}

const held = (r: StateCounts) => `${r.cookies} cookie(s) and the local storage of ${r.origins} origin(s)`

/** `saved 2 cookie(s) and the local storage of 1 origin(s) to /tmp/svc/states/x.json` */
export const savedStateLine = (r: StateCounts): string => `saved ${held(r)} to ${r.path}`

/** `cleared the profile's cookies and local storage, then loaded … from …` */
export const loadedStateLine = (r: StateCounts): string =>
  `cleared the profile's cookies and local storage, then loaded ${held(r)} from ${r.path}`
