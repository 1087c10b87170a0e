import type { Locator } from "playwright-core"

// What every action acts on: a ref from a snapshot, already resolved by the Refs module.

/** A snapshot ref resolved to a locator. */
export interface ActionTarget {
  readonly locator: Locator
  /** What the ref points at, for messages: `button "Save"`. */
  readonly description: string
  /** The ref as the agent wrote it: `12`, `e3`, `f1e2`. */
  readonly ref: string
  /** Whether the element may be clicked without the library's waits (clickReady.ts); absent: it may not. */
  readonly readyToClick?: ReadyToClick | undefined
}

/** Whether the element may be clicked at once (clickReady.ts): false whenever that is not known in time. */
export type ReadyToClick = (timeoutMs: number) => Promise<boolean>
