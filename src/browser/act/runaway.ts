import { Effect } from "effect"
import type { CDPSession, Page } from "playwright-core"

// Code an agent runs in a page (evaluate, wait --fn) can loop forever. It then holds the page's main thread,
// and every later snapshot or navigation of the tab waits behind it. Chromium stops it with CDP
// `Runtime.terminateExecution`, but only through a session that was attached before the page got stuck
// (attaching needs the main thread; checked on Chromium 156), so a session is attached before such code runs.

/** What became of a page after its script timed out. */
export type Runaway = "stopped" | "stuck"

/** How long an idle page has to answer a trivial evaluation before it counts as stuck. */
const PROBE_MS = 500
/** All of settling (probe, stop, answer again): inside the 2 s an action gets beyond its timeout before it counts as hung. */
const SETTLE_MS = 1_800
const ATTACH_MS = 2_000

const within = <A>(promise: Promise<A>, ms: number): Promise<A | undefined> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const expiry = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms)
  })
  return Promise.race([promise, expiry]).finally(() => clearTimeout(timer))
}

/** A page answers when a trivial expression comes back; a busy main thread leaves it unanswered. */
const answers = (session: CDPSession, ms: number) =>
  within(
    session.send("Runtime.evaluate", { expression: "0", returnByValue: true }).then(() => true, () => false),
    ms
  ).then((r) => r === true)

export const makeRunawayGuard = () => {
  /** One session per page, kept while the page lives (Chromium detaches it when the tab closes). */
  const sessions = new WeakMap<Page, Promise<CDPSession | undefined>>()

  const sessionOf = (page: Page): Promise<CDPSession | undefined> => {
    const known = sessions.get(page)
    if (known !== undefined) return known
    const attached: Promise<CDPSession | undefined> = within(page.context().newCDPSession(page), ATTACH_MS)
      .catch(() => undefined)
      .then((session) => {
        const forget = () => {
          if (sessions.get(page) === attached) sessions.delete(page)
        }
        // No session (yet) is tried again at the next script; a closed one (the tab closed) is replaced.
        if (session === undefined) forget()
        else session.once("close", forget)
        return session
      })
    sessions.set(page, attached)
    return attached
  }

  /** Attach the session that can stop the page's script later; needs doing before the script runs. */
  const arm = (page: Page): Effect.Effect<void> => Effect.promise(() => sessionOf(page).then(() => undefined))

  /**
   * After a script step timed out: if the page no longer answers, its script is still running; stop it and
   * check that the page answers again. Undefined when the page was not stuck (a promise that never settled),
   * or when there is no session to ask.
   */
  const settle = (page: Page): Effect.Effect<Runaway | undefined> =>
    Effect.promise(async () => {
      if (page.isClosed()) return undefined
      const session = await sessions.get(page)
      if (session === undefined) return undefined
      const deadline = Date.now() + SETTLE_MS
      const left = () => Math.max(0, deadline - Date.now())
      // The probe waits in the page's queue behind the script, if there is one running.
      const probe = answers(session, SETTLE_MS)
      const first = await within(probe, PROBE_MS)
      if (first === true) return undefined
      if (first === false) {
        // The session itself failed (detached): nothing to tell; the next script attaches a new one.
        sessions.delete(page)
        return undefined
      }
      const terminated = await within(session.send("Runtime.terminateExecution").then(() => true, () => false), left())
      if (terminated !== true) return "stuck"
      // Should the script have ended on its own just before, the stop hit the probe instead: ask once more.
      return (await probe) || (await answers(session, left())) ? "stopped" : "stuck"
    })

  return { arm, settle } as const
}
