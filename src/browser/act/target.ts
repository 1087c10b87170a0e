import type { Locator } from "playwright-core"
import type { QuickAccess } from "./quickAccess.js"

// What every action acts on: a ref from a snapshot, already resolved by the Refs module.

/** A snapshot ref resolved to a locator. */
export interface ActionTarget {
  readonly locator: Locator
  /** What the ref points at, for messages: `button "Save"`. */
  readonly description: string
  /** The ref as the agent wrote it: `12`, `e3`, `f1e2`. */
  readonly ref: string
  /**
   * The ref's element, checked the fast way, reached in one page call: to act on it without the library's
   * waits where that is safe (quickAccess.ts). Undefined where the ref was found another way.
   */
  readonly quick?: QuickAccess | undefined
}
