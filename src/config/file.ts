import * as fs from "node:fs"

// The raw svc.json on disk, as JSON (keys this version does not know included), and dotted key paths
// into it. Writing it is edit.ts's.

export type RawConfig = { [key: string]: unknown }

export const readConfigText = (file: string): string => {
  try {
    return fs.readFileSync(file, "utf8")
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return ""
    throw e
  }
}

export const parseRaw = (text: string): RawConfig => {
  if (text.trim() === "") return {}
  const raw = JSON.parse(text) as unknown
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new Error("expected a JSON object")
  return raw as RawConfig
}

/** The value at a dotted key path (`browser.profiles.work.color`), or undefined. */
export const getPath = (raw: RawConfig, key: string): unknown =>
  key.split(".").reduce<unknown>(
    (node, k) => (typeof node === "object" && node !== null ? (node as RawConfig)[k] : undefined),
    raw
  )

/** Set (or with `undefined`, remove) the value at a dotted key path, creating objects on the way. */
export const setPath = (raw: RawConfig, key: string, value: unknown): void => {
  const parts = key.split(".")
  let node = raw
  for (const k of parts.slice(0, -1)) {
    const next = node[k]
    if (typeof next !== "object" || next === null || Array.isArray(next)) node[k] = {}
    node = node[k] as RawConfig
  }
  const last = parts[parts.length - 1]!
  if (value === undefined) delete node[last]
  else node[last] = value
}
