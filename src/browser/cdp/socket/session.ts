import { Effect } from "effect"
import { targetError } from "../messages.js"
import type { Connection } from "./connection.js"

// A flat session: commands for one target travel over the browser's socket tagged with its sessionId.

/** A flat session on a target, detached when the scope closes. */
export const attach = (conn: Connection, targetId: string) =>
  Effect.acquireRelease(
    conn.send("Target.attachToTarget", { targetId, flatten: true }).pipe(
      Effect.map((r) => r.sessionId),
      Effect.mapError(targetError(conn.endpoint, targetId))
    ),
    (sessionId) => Effect.ignore(conn.send("Target.detachFromTarget", { sessionId }))
  )
