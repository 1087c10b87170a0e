import { Duration, Effect, Schedule } from "effect"
import { NotFound } from "../../domain/errors.js"
import { protocolToUnavailable, tabsHint, targetError } from "./messages.js"
import type { Connection } from "./socket/connection.js"

// Tabs are the browser's page targets: listed, opened, brought to front and closed over the browser socket.

export interface CdpTarget {
  readonly targetId: string
  readonly title: string
  readonly url: string
  readonly type: string
}

const toTarget = (t: { targetId: string; title: string; url: string; type: string }): CdpTarget => ({
  targetId: t.targetId,
  title: t.title,
  url: t.url,
  type: t.type
})

const listTargets = (conn: Connection) =>
  conn.send("Target.getTargets").pipe(
    Effect.mapError(protocolToUnavailable(conn.endpoint)),
    Effect.map((r) => r.targetInfos)
  )

/** The target, if it is a tab (page); NotFound otherwise. */
export const requireTab = (conn: Connection, targetId: string) =>
  conn.send("Target.getTargetInfo", { targetId }).pipe(
    Effect.mapError(targetError(conn.endpoint, targetId)),
    Effect.flatMap(({ targetInfo }) =>
      targetInfo.type === "page"
        ? Effect.succeed(targetInfo)
        : Effect.fail(
          new NotFound({
            message: `targetId ${JSON.stringify(targetId)} is a ${targetInfo.type}, not a tab; ${tabsHint}`
          })
        )
    )
  )

/** The page targets, in the browser's order. */
export const listTabs = (conn: Connection) =>
  Effect.map(listTargets(conn), (targets) => targets.filter((t) => t.type === "page").map(toTarget))

/** A new tab on `url` (already normalised). */
export const openTab = (conn: Connection, url: string) =>
  Effect.gen(function*() {
    const { targetId } = yield* conn.send("Target.createTarget", { url }).pipe(
      Effect.mapError(protocolToUnavailable(conn.endpoint))
    )
    if (url === "about:blank") return { targetId, title: "", url, type: "page" } satisfies CdpTarget
    return yield* conn.send("Target.getTargetInfo", { targetId }).pipe(
      Effect.map((r) => toTarget(r.targetInfo)),
      Effect.orElseSucceed((): CdpTarget => ({ targetId, title: "", url, type: "page" }))
    )
  })

export const activateTab = (conn: Connection, targetId: string) =>
  Effect.zipRight(
    requireTab(conn, targetId),
    conn.send("Target.activateTarget", { targetId }).pipe(Effect.mapError(targetError(conn.endpoint, targetId)))
  )

const spacedForAWhile = Schedule.spaced(Duration.millis(25)).pipe(Schedule.upTo(Duration.seconds(2)))

export const closeTab = (conn: Connection, targetId: string) =>
  Effect.gen(function*() {
    yield* requireTab(conn, targetId)
    yield* conn.send("Target.closeTarget", { targetId }).pipe(Effect.mapError(targetError(conn.endpoint, targetId)))
    // Closing runs the page's unload handlers first: wait (briefly) until the tab is really gone, so a
    // listing right after does not show it.
    const gone = listTargets(conn).pipe(
      Effect.map((ts) => !ts.some((t) => t.targetId === targetId)),
      Effect.orElseSucceed(() => true)
    )
    yield* gone.pipe(
      Effect.repeat({ until: (g) => g, schedule: spacedForAWhile }),
      Effect.ignore
    )
  })
