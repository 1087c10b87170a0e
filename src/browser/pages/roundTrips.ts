import type { Page } from "playwright-core"

// svc's own calls on each page's CDP session, numbered, so that what needs a round trip on that session
// after some moment (an action's last look at the browser, see SideEffects.finish) can use one of svc's
// calls issued since then instead of making one of its own.

export const makeRoundTrips = () => {
  /** Per page: how many calls were made, and the last one's round trip. */
  const sends = new WeakMap<Page, { seq: number; last: Promise<void> }>()

  /** Numbers a call on the page's own session; answers the call itself. */
  const sent = <A>(page: Page, call: Promise<A>): Promise<A> => {
    const s = sends.get(page) ?? { seq: 0, last: Promise.resolve() }
    s.seq++
    s.last = call.then(() => undefined, () => undefined)
    sends.set(page, s)
    return call
  }

  /** Where the page's own session is now: a round trip issued after this answers after anything before it. */
  const sendMark = (page: Page): number => sends.get(page)?.seq ?? 0

  /**
   * A round trip on the page's own session issued after `mark`: one of svc's calls since then, or `fresh`
   * made now. Events the browser sent before its answer (a tab the page opened) have been dispatched by then.
   */
  const barrier = (page: Page, mark: number, fresh: () => Promise<unknown> | undefined): Promise<void> => {
    const s = sends.get(page)
    if (s !== undefined && s.seq > mark) return s.last
    return fresh()?.then(() => undefined, () => undefined) ?? Promise.resolve()
  }

  return { sent, sendMark, barrier } as const
}
