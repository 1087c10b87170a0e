import { Effect } from "effect"
import { BrowserUnavailable, Conflict, InternalError, InvalidRequest } from "../../domain/errors.js"
import { classifyPlaywrightError } from "../act/failures.js"
import { formatDuration } from "../act/messages.js"

// One call into the automation library that is not an action on a ref (cookies, storage, emulation,
// download bookkeeping): bounded in time, its failure mapped onto an error the control API declares.

export type PageCallError = BrowserUnavailable | Conflict | InternalError | InvalidRequest

export const DEFAULT_PAGE_CALL_MS = 8_000

export const pageCall = <A>(
  what: string,
  run: () => Promise<A>,
  timeoutMs: number = DEFAULT_PAGE_CALL_MS
): Effect.Effect<A, PageCallError> =>
  Effect.tryPromise({
    try: run,
    catch: (e): PageCallError => {
      const f = classifyPlaywrightError(e)
      if (f.kind === "closed") {
        return new BrowserUnavailable({
          message: `${what}: the tab or the browser was closed; list tabs with \`svc browser tabs\`, or start the ` +
            "browser again with `svc browser start`"
        })
      }
      if (f.kind === "navigated") {
        return new Conflict({ message: `${what}: the page navigated while this ran; retry once it has loaded` })
      }
      // The browser refusing a value it was given ("Invalid locale name", "Invalid timezone ID") is bad input.
      const refused = /Protocol error \([\w.]+\): (Invalid[^\n]*)/.exec(f.detail)
      if (refused !== null) return new InvalidRequest({ message: `${what}: the browser refused the value: ${refused[1]}` })
      return new InternalError({ message: `${what} failed: ${f.detail}` })
    }
  }).pipe(
    Effect.timeoutFail({
      duration: timeoutMs,
      onTimeout: () =>
        new Conflict({
          message: `${what} did not finish within ${formatDuration(timeoutMs)}; the page may be busy (a long ` +
            "script or a dialog): check `svc browser errors`, then retry"
        })
    })
  )
