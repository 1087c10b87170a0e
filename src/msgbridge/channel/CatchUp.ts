import { Effect } from "effect"
import type { BridgeClientApi } from "../bridge/calls.js"
import type { BridgeError } from "../bridge/errors.js"
import type { BridgeMessage } from "../bridge/schemas.js"

// The bridge server never retries a webhook: what arrived while the gateway was down is fetched at
// start-up through the message query, from the persisted cursor. The query starts a little before the
// cursor (the cursor is persisted lazily, and webhooks of one moment may land out of order); the dedupe
// journal drops what was already seen.

export const CATCH_UP_OVERLAP_MS = 2 * 60_000
export const CATCH_UP_PAGE = 100
/** At most this many messages per start-up (a very long outage should not flood the agent). */
export const CATCH_UP_MAX_MESSAGES = 2_000

export interface CatchUpResult {
  readonly fetched: number
  readonly handed: number
  /** dateCreated of the newest message seen (undefined when none). */
  readonly newest: number | undefined
  /** Stopped at CATCH_UP_MAX_MESSAGES with more waiting. */
  readonly truncated: boolean
}

/**
 * Page through the messages since `cursor - overlap`, oldest first, handing each to `onMessage` (which
 * decides whether it is new). Progress is strictly forward even when many messages share one timestamp.
 */
export const catchUp = <E>(options: {
  readonly client: BridgeClientApi
  readonly cursor: number
  readonly onMessage: (message: BridgeMessage) => Effect.Effect<boolean, E>
  readonly overlapMs?: number
  readonly pageSize?: number
  readonly maxMessages?: number
}): Effect.Effect<CatchUpResult, BridgeError | E> =>
  Effect.gen(function*() {
    const pageSize = options.pageSize ?? CATCH_UP_PAGE
    const max = options.maxMessages ?? CATCH_UP_MAX_MESSAGES
    let after = Math.max(0, options.cursor - (options.overlapMs ?? CATCH_UP_OVERLAP_MS))
    let fetched = 0
    let handed = 0
    let newest: number | undefined
    const seenThisRun = new Set<string>()
    while (fetched < max) {
      const page = yield* options.client.messagesSince({ after, limit: pageSize })
      let progressed = false
      for (const m of page) {
        if (seenThisRun.has(m.guid)) continue
        seenThisRun.add(m.guid)
        progressed = true
        fetched++
        if (typeof m.dateCreated === "number") newest = Math.max(newest ?? m.dateCreated, m.dateCreated)
        if (yield* options.onMessage(m)) handed++
        if (fetched >= max) break
      }
      if (page.length < pageSize || !progressed) return { fetched, handed, newest, truncated: false }
      const last = page[page.length - 1]!.dateCreated
      if (typeof last !== "number") return { fetched, handed, newest, truncated: false }
      // Re-ask from one millisecond before the last one (messages sharing its timestamp), but never backwards.
      after = Math.max(after + 1, last - 1)
    }
    return { fetched, handed, newest, truncated: true }
  })
