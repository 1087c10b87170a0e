// Small helpers for calls into the automation library, which speaks promises and multi-line errors.

/** The first line of an error's message (the library appends call logs below it). */
export const errorText = (e: unknown): string => (e instanceof Error ? e.message.split("\n")[0]! : String(e))

/** Whether a navigation's failure (its first line) is the library saying the URL answered with a file. */
export const becameDownload = (text: string): boolean => /Download is starting/.test(text)

/**
 * Resolves when a waker in `wakers` is called (whoever has the set calls them all on news), or after `ms`;
 * its waker leaves the set either way.
 */
export const untilWoken = (wakers: Set<() => void>, ms: number): Promise<void> =>
  new Promise<void>((resolve) => {
    const wake = () => {
      clearTimeout(timer)
      wakers.delete(wake)
      resolve()
    }
    const timer = setTimeout(wake, ms)
    wakers.add(wake)
  })

/** The rejection of withTimeout. */
export class TimedOut extends Error {}

/** Whether an error is withTimeout's rejection. */
export const isTimeout = (e: unknown): boolean => e instanceof TimedOut

/** The promise, or a rejection (TimedOut) naming what did not finish within ms. */
export const withTimeout = <A>(p: Promise<A>, ms: number, what: string): Promise<A> =>
  new Promise<A>((resolve, reject) => {
    const timer = setTimeout(() => reject(new TimedOut(`${what} did not finish within ${ms} ms`)), ms)
    p.then(
      (a) => {
        clearTimeout(timer)
        resolve(a)
      },
      (e: unknown) => {
        clearTimeout(timer)
        reject(e)
      }
    )
  })
