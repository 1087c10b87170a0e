import { Effect, type Scope } from "effect"
import {
  type AxNode,
  type AxTree,
  DEFAULT_SNAPSHOT_LIMIT,
  documentInfo,
  type FrameGap,
  frameGap,
  iframeOwners,
  MAX_SNAPSHOT_LIMIT,
  renderAriaSnapshot
} from "../snapshot/AriaFormat.js"
import { targetError } from "./messages.js"
import type { Connection } from "./socket/connection.js"
import { attach } from "./socket/session.js"
import { requireTab } from "./tabs.js"

// A tab's accessibility tree as an ARIA snapshot, with its iframes inlined: same-process frames from the
// page's own session, out-of-process ones from their own targets.

export interface AriaSnapshot {
  readonly snapshot: string
  readonly nodes: number
  readonly truncated: boolean
  readonly url: string
  readonly title: string
}

/** At most this many iframes are inlined into one snapshot; at most this deep. */
const MAX_FRAMES = 20
const MAX_FRAME_DEPTH = 3

/**
 * The frames inside `nodes`: same-process iframes through `getFullAXTree({ frameId })` on the same session,
 * out-of-process ones by attaching to their own target. Frames beyond the budget or depth become gaps.
 */
const collectFrames = (
  conn: Connection,
  sessionId: string,
  nodes: ReadonlyArray<AxNode>,
  depth: number,
  budget: { remaining: number }
): Effect.Effect<ReadonlyMap<number, AxTree | FrameGap>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const frames = new Map<number, AxTree | FrameGap>()
    for (const backendNodeId of iframeOwners(nodes)) {
      if (depth >= MAX_FRAME_DEPTH) {
        frames.set(backendNodeId, frameGap("nested too deep"))
        continue
      }
      if (budget.remaining <= 0) {
        frames.set(backendNodeId, frameGap(`more than ${MAX_FRAMES} frames`))
        continue
      }
      budget.remaining--
      const tree = yield* frameTree(conn, sessionId, backendNodeId, depth, budget).pipe(
        Effect.catchAll((reason) => Effect.succeed(frameGap(reason)))
      )
      frames.set(backendNodeId, tree)
    }
    return frames
  })

const frameTree = (
  conn: Connection,
  sessionId: string,
  backendNodeId: number,
  depth: number,
  budget: { remaining: number }
): Effect.Effect<AxTree | FrameGap, string, Scope.Scope> =>
  Effect.gen(function*() {
    const described = yield* conn.send("DOM.describeNode", { backendNodeId }, sessionId).pipe(
      Effect.mapError(() => "frame owner is gone")
    )
    const frameId = described.node.frameId
    if (frameId === undefined) return frameGap("no frame document")
    const local = yield* conn.send("Accessibility.getFullAXTree", { frameId }, sessionId).pipe(Effect.option)
    if (local._tag === "Some") {
      const frames = yield* collectFrames(conn, sessionId, local.value.nodes, depth + 1, budget)
      return { nodes: local.value.nodes, frames }
    }
    // An out-of-process iframe is its own target, whose id is the frame id. Chromium creates the DevTools
    // host of such a frame lazily: listing the targets makes it exist, so the attach below can find it.
    const listed = yield* conn.send("Target.getTargets").pipe(
      Effect.map((r) => r.targetInfos.some((t) => t.targetId === frameId)),
      Effect.orElseSucceed(() => false)
    )
    if (!listed) return frameGap("frame is not a reachable target")
    const child = yield* attach(conn, frameId).pipe(
      Effect.mapError((e) => `frame is not reachable: ${e.message}`)
    )
    const remote = yield* conn.send("Accessibility.getFullAXTree", {}, child).pipe(
      Effect.mapError(() => "frame did not give its accessibility tree")
    )
    const frames = yield* collectFrames(conn, child, remote.nodes, depth + 1, budget)
    return { nodes: remote.nodes, frames }
  })

/** The snapshot of tab `targetId`, at most `limit` nodes (clamped to the allowed range). */
export const ariaSnapshot = (conn: Connection, targetId: string, opts: { readonly limit?: number | undefined }) =>
  Effect.gen(function*() {
    const limit = Math.min(MAX_SNAPSHOT_LIMIT, Math.max(1, Math.floor(opts.limit ?? DEFAULT_SNAPSHOT_LIMIT)))
    const info = yield* requireTab(conn, targetId)
    const sessionId = yield* attach(conn, targetId)
    const { nodes } = yield* conn.send("Accessibility.getFullAXTree", {}, sessionId).pipe(
      Effect.mapError(targetError(conn.endpoint, targetId))
    )
    const frames = yield* collectFrames(conn, sessionId, nodes, 0, { remaining: MAX_FRAMES })
    const rendered = renderAriaSnapshot({ nodes, frames }, { limit })
    const doc = documentInfo(nodes)
    const result: AriaSnapshot = {
      snapshot: rendered.text,
      nodes: rendered.nodes,
      truncated: rendered.truncated,
      url: doc.url ?? info.url,
      title: doc.title ?? info.title
    }
    return result
  })
