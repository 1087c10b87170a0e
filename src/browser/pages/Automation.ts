import { Effect } from "effect"
import { createRequire } from "node:module"
import * as path from "node:path"
import { AUTOMATION_UNAVAILABLE_MESSAGE } from "./Playwright.js"

export interface AutomationAvailability {
  readonly available: boolean
  readonly library: string
  readonly reason?: string
}

declare const __filename: string | undefined

/** Where module resolution starts: this file in the source tree, or the bundle under dist/. */
const here = (): string => {
  if (typeof __filename === "string") return __filename
  return path.join(process.cwd(), "package.json")
}

/**
 * Whether the automation library (playwright-core) can be loaded by this gateway. Only resolution is
 * checked at start-up, so the gateway does not pay the library's load time before it is used.
 */
export const probeAutomation = Effect.sync((): AutomationAvailability => {
  const require = createRequire(here())
  // The same order the loader (Playwright.ts) tries them in.
  for (const library of ["playwright-core", "playwright"]) {
    try {
      require.resolve(library)
      return { available: true, library }
    } catch {
      // try the next
    }
  }
  return { available: false, library: "playwright-core", reason: AUTOMATION_UNAVAILABLE_MESSAGE }
})
