import type { CDPSession, Frame, Page } from "playwright-core"

// The library reads an iframe in the frame's main world, where the frame's own scripts can change what a
// read sees (a getter that hides a password's value, for one). svc reads iframes in an isolated world
// instead, with the DOM's own prototypes, out of the frame's scripts' reach. An iframe that shares its
// page's process is read in the library's utility world of the frame, over the page's own session. An
// iframe of another site runs in a process of its own (an out-of-process iframe), out of that session's
// reach: svc makes a world of its own in it, over a CDP session on the frame's target, one per frame and
// document, kept while the frame shows that document.

/** The isolated world's name (one per frame document; the name only labels it in DevTools). */
const WORLD_NAME = "__svc_isolated_read"

interface FrameWorld {
  readonly url: string
  /** The world's execution context; undefined: the frame is not out of process (read it another way). */
  readonly context: Promise<{ readonly session: CDPSession; readonly contextId: number } | undefined>
}

/** A value read by `expression` in the frame's own isolated world; undefined: no such world (the caller reads the frame another way). */
export type FrameWorldRead = (frame: Frame, expression: string) => Promise<{ readonly value: unknown } | undefined>

const openWorld = async (frame: Frame): Promise<{ readonly session: CDPSession; readonly contextId: number } | undefined> => {
  let session: CDPSession
  try {
    // The library refuses a session on a frame that shares its parent's process: those are read from the page.
    session = await frame.page().context().newCDPSession(frame)
  } catch {
    return undefined
  }
  try {
    const { targetInfo } = await session.send("Target.getTargetInfo")
    const { executionContextId } = await session.send("Page.createIsolatedWorld", {
      frameId: targetInfo.targetId,
      worldName: WORLD_NAME,
      grantUniveralAccess: true
    })
    return { session, contextId: executionContextId }
  } catch {
    void session.detach().catch(() => undefined)
    return undefined
  }
}

/**
 * Values read by `expression` in each iframe that shares its page's process, in the library's utility world
 * of the frame over the page's own session (the page's session reaches those frames; the library makes that
 * world in every document): one per frame; frames that could not be read are left out.
 */
export type LocalFramesRead = (page: Page, expression: string) => Promise<ReadonlyArray<unknown>>

/** Iframes in one page process: at most this many are read (a page of ad frames is not worth more). */
const MAX_LOCAL_FRAMES = 50

/**
 * The reader, over the page's session (`pageSession`) and its evaluate in a given world (`evaluateIn`, which
 * rejects with the page's exception).
 */
export const makeLocalFrameWorlds = <S extends { readonly frameUtilities: ReadonlyArray<readonly [string, number]> }>(
  pageSession: (page: Page) => Promise<S | undefined>,
  evaluateIn: (page: Page, session: S, expression: string, contextId: number) => Promise<unknown>
): LocalFramesRead =>
async (page, expression) => {
  const own = await pageSession(page).catch(() => undefined)
  if (own === undefined) return []
  const values = await Promise.all(own.frameUtilities.slice(0, MAX_LOCAL_FRAMES).map(([, contextId]) =>
    evaluateIn(page, own, expression, contextId).then((v) => [v], () => [])
  ))
  return values.flat()
}

export const makeFrameWorlds = (): FrameWorldRead => {
  const worlds = new WeakMap<Frame, FrameWorld>()

  const worldOf = (frame: Frame): FrameWorld => {
    const url = frame.url()
    const known = worlds.get(frame)
    if (known !== undefined && known.url === url) return known
    if (known !== undefined) void known.context.then((c) => c?.session.detach()).catch(() => undefined)
    const world: FrameWorld = { url, context: openWorld(frame) }
    worlds.set(frame, world)
    return world
  }

  return async (frame, expression) => {
    if (frame.isDetached() || frame.parentFrame() === null) return undefined
    const world = worldOf(frame)
    const context = await world.context
    if (context === undefined) return undefined
    try {
      const r = await context.session.send("Runtime.evaluate", { expression, contextId: context.contextId, returnByValue: true })
      if (r.exceptionDetails !== undefined) throw new Error(r.exceptionDetails.text)
      return { value: r.result.value }
    } catch {
      // The document went (its world with it), or the frame: a world is made anew for the next read.
      if (worlds.get(frame) === world) worlds.delete(frame)
      void context.session.detach().catch(() => undefined)
      return undefined
    }
  }
}
