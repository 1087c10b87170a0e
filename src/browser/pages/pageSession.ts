import type { CDPSession, Page } from "playwright-core"
import type { RawSends } from "./rawSends.js"

// svc's own CDP session on each page of the library: the page's targetId, a counter of its main frame's
// cross-document navigations (what makes refs from an older document stale), and the library's utility
// world in each frame (where its snapshots run and refs are checked), so that svc can ask the page
// something in one raw round trip where the library would take several.

/** How the library names its utility world (an isolated world per frame; playwright-core 1.65). */
const UTILITY_WORLD = "__playwright_utility_world_"

/** The name of the library's utility world for `page` (its own page's guid follows the prefix); undefined if unknown. */
const utilityWorldOf = (page: Page): string | undefined => {
  const guid = (page as unknown as { readonly _guid?: unknown })._guid
  return typeof guid === "string" && guid.startsWith("page@") ? `${UTILITY_WORLD}${guid}` : undefined
}

export interface PageInfo {
  readonly targetId: string
  /** Cross-document navigations of the main frame since we first saw the page. */
  readonly navigations: number
  readonly session: CDPSession
  /**
   * A command on the same session put on the wire beside the library (rawSends.ts), where the connection
   * allows it: for what needs no ordering with the session's events. Undefined: use `session`.
   */
  readonly direct: ((method: string, params?: object) => Promise<any>) | undefined
  /** The execution context of the library's utility world in the main frame's document, while known. */
  readonly utility: number | undefined
  /** The same in the documents of the page's iframes that share its process (frame id, context), while known. */
  readonly frameUtilities: ReadonlyArray<readonly [string, number]>
  /** Resolves true once more than `count` navigations were counted, false after `ms` without. */
  readonly navigatedPast: (count: number, ms: number) => Promise<boolean>
}

/** `method` on svc's session of a page: beside the library where the connection allows, else through it. */
export const sendOnPage = (
  own: { readonly session: Pick<CDPSession, "send">; readonly direct?: PageInfo["direct"] },
  method: string,
  params?: object
): Promise<unknown> =>
  own.direct !== undefined ? own.direct(method, params) : (own.session.send as (m: string, p?: object) => Promise<unknown>)(method, params)

/**
 * Opens svc's session on `page` and starts keeping its PageInfo; rejects if the page closes meanwhile. With
 * `raw`, the session's id is learnt on the way (one more command among the first ones, answered at once).
 */
export const openPageSession = async (page: Page, raw?: RawSends): Promise<PageInfo> => {
  const session = await page.context().newCDPSession(page)
  let navigations = 0
  const waiters = new Set<() => void>()
  // Page.frameNavigated is cross-document only (pushState and anchors are navigatedWithinDocument).
  session.on("Page.frameNavigated", (event) => {
    if (event.frame.parentId !== undefined) return
    navigations++
    for (const wake of [...waiters]) wake()
  })
  const navigatedPast = (count: number, ms: number) =>
    new Promise<boolean>((resolve) => {
      if (navigations > count) return resolve(true)
      const done = (past: boolean) => {
        clearTimeout(timer)
        waiters.delete(wake)
        resolve(past)
      }
      const wake = () => {
        if (navigations > count) done(true)
      }
      const timer = setTimeout(() => done(false), ms)
      waiters.add(wake)
    })
  // The library's utility worlds by frame: kept from the start, as the target's id may arrive after them.
  // Each connection of the library names its worlds after its own page (another client on the same browser
  // has worlds of its own, which are not ours to use).
  const utility = new Map<string, number>()
  const worldName = utilityWorldOf(page)
  // The page's own (main world) contexts by frame, to find documents the library has no utility world in.
  const documents = new Map<string, number>()
  session.on("Runtime.executionContextCreated", ({ context }) => {
    const aux = context.auxData as { readonly frameId?: string; readonly isDefault?: boolean } | undefined
    if (aux?.frameId === undefined) return
    if (aux.isDefault === true) documents.set(aux.frameId, context.id)
    const ours = worldName !== undefined ? context.name === worldName : context.name.startsWith(UTILITY_WORLD)
    if (ours) utility.set(aux.frameId, context.id)
  })
  session.on("Runtime.executionContextDestroyed", (event) => {
    for (const [frame, id] of utility) if (id === event.executionContextId) utility.delete(frame)
    for (const [frame, id] of documents) if (id === event.executionContextId) documents.delete(frame)
  })
  session.on("Runtime.executionContextsCleared", () => {
    utility.clear()
    documents.clear()
  })
  const marker = raw?.markerFor()
  const [{ targetInfo }] = await Promise.all([
    session.send("Target.getTargetInfo"),
    session.send("Page.enable"),
    session.send("Runtime.enable"),
    marker !== undefined ? session.send("Runtime.evaluate", { expression: "0", objectGroup: marker, returnByValue: true }).catch(() => undefined) : undefined
  ])
  const targetId = targetInfo.targetId
  const sessionId = marker !== undefined ? raw?.sessionOf(marker) : undefined
  if (worldName !== undefined) giveMissingWorlds(session, worldName, documents, utility)
  return {
    targetId,
    session,
    direct: raw !== undefined && sessionId !== undefined ? (method, params) => raw.send(sessionId, method, params) : undefined,
    navigatedPast,
    get navigations() {
      return navigations
    },
    get utility() {
      return utility.get(targetId)
    },
    get frameUtilities() {
      return [...utility].filter(([frame]) => frame !== targetId)
    }
  }
}

/**
 * Creates the library's utility world in the documents that have none. The library asks for it in every new
 * document from its first commands to a page on, and creates it itself in the frames the page had then; an
 * iframe whose document was made between the two (a page that was already loading when the library took it
 * over: a tab opened with its URL, a popup) never gets one, and every snapshot and locator in that frame
 * then waits out its whole timeout. When svc's session starts, the library's own start is done, and the
 * contexts its Runtime.enable lists are every document there is: one without the world is such a document.
 * The world is made under the library's name, and the library, which hears of every context of the page,
 * takes it as its own.
 */
const giveMissingWorlds = (
  session: CDPSession,
  worldName: string,
  documents: ReadonlyMap<string, number>,
  utility: ReadonlyMap<string, number>
): void => {
  for (const frameId of documents.keys()) {
    if (utility.has(frameId)) continue
    void session.send("Page.createIsolatedWorld", { frameId, worldName, grantUniveralAccess: true }).catch(() => undefined)
  }
}
