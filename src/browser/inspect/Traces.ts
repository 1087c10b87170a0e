import { Effect } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import type { BrowserContext, Page } from "playwright-core"
import { Conflict, InternalError } from "../../domain/errors.js"
import { errorText, withTimeout } from "../pages/promises.js"

// Traces of the automation library: one per profile (the page's browser context), started and stopped
// through the library and written where the caller says. A trace dies with the connection to the browser.

export interface TraceStarted {
  readonly profile: string
  readonly startedAt: string
  readonly screenshots: boolean
  readonly snapshots: boolean
}

export interface TraceFile {
  readonly path: string
  readonly bytes: number
}

const TRACE_START_MS = 15_000
const TRACE_STOP_MS = 60_000

/** The traces of one Observe service: start, stop and whether one is running, by profile. */
export const makeTraces = () => {
  const traces = new Map<string, { readonly context: BrowserContext; readonly started: TraceStarted }>()

  const contextAlive = (context: BrowserContext) => context.browser()?.isConnected() ?? false

  const traceStart = (
    profile: string,
    page: Page,
    options: { readonly screenshots?: boolean | undefined; readonly snapshots?: boolean | undefined } = {}
  ) =>
    Effect.gen(function*() {
      const running = traces.get(profile)
      if (running !== undefined && contextAlive(running.context)) {
        return yield* new Conflict({
          message: `a trace of profile "${profile}" is already running (since ${running.started.startedAt}); stop it ` +
            "first with `svc browser trace stop`"
        })
      }
      traces.delete(profile)
      const context = page.context()
      const started: TraceStarted = {
        profile,
        startedAt: new Date().toISOString(),
        screenshots: options.screenshots ?? true,
        snapshots: options.snapshots ?? true
      }
      // Reserve the slot before the first await so a concurrent start is the Conflict, not a library error.
      traces.set(profile, { context, started })
      yield* Effect.tryPromise({
        try: () =>
          withTimeout(
            context.tracing.start({ screenshots: started.screenshots, snapshots: started.snapshots, sources: false }),
            TRACE_START_MS,
            "starting the trace"
          ),
        catch: (e) => {
          traces.delete(profile)
          const text = errorText(e)
          return /already started/i.test(text)
            ? new Conflict({
              message: `a trace is already recording in this browser (started by another client of the automation ` +
                `library: ${text}); stop it there, or reconnect the gateway to the browser`
            })
            : new InternalError({ message: `could not start a trace of profile "${profile}": ${text}` })
        }
      })
      return started
    })

  const traceStop = (profile: string, _page: Page, destPath: string) =>
    Effect.gen(function*() {
      const running = traces.get(profile)
      if (running === undefined) {
        return yield* new Conflict({
          message: `no trace of profile "${profile}" is running; start one with \`svc browser trace start\`, do the ` +
            "actions to record, then stop it"
        })
      }
      traces.delete(profile)
      if (!contextAlive(running.context)) {
        return yield* new Conflict({
          message: `the trace of profile "${profile}" started at ${running.started.startedAt} was lost: the connection to ` +
            "the browser closed since (browser restarted or stopped). Start a new trace."
        })
      }
      return yield* Effect.tryPromise({
        try: async () => {
          await fs.mkdir(path.dirname(destPath), { recursive: true, mode: 0o700 })
          await withTimeout(running.context.tracing.stop({ path: destPath }), TRACE_STOP_MS, "writing the trace")
          // A trace holds the pages, their requests and what was typed: owner-only, like every file svc writes.
          await fs.chmod(destPath, 0o600)
          const stat = await fs.stat(destPath)
          return { path: destPath, bytes: stat.size } satisfies TraceFile
        },
        catch: (e) => new InternalError({ message: `could not write the trace of profile "${profile}" to ${destPath}: ${errorText(e)}` })
      })
    })

  /** Whether a trace of the profile is recording (for status). */
  const traceRunning = (profile: string) =>
    Effect.sync(() => {
      const running = traces.get(profile)
      return running !== undefined && contextAlive(running.context) ? running.started : undefined
    })

  return { traceStart, traceStop, traceRunning } as const
}
