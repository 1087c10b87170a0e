import type { CDPSession } from "playwright-core"

// The tabs each tab opened, as the browser announces them: one browser-level session per connection with
// target discovery on, so an action's answer can name the tabs it opened without asking the browser for
// its whole target list afterwards. The browser announces a tab that a page opens while the page is still
// inside window.open (or the link's default action), so any round trip to that page issued after the action
// answers after the announcement: that round trip is all an action needs to know its new tabs.

export interface OpenedTab {
  readonly targetId: string
  readonly url: string
}

export interface OpenedTabs {
  /** The page tabs that `opener` opened and that are still open, oldest first. */
  readonly openedBy: (opener: string) => ReadonlyArray<OpenedTab>
}

/** How many opened tabs are remembered at most (a page that opens tabs without end does not grow this). */
const MAX_REMEMBERED = 10_000

interface TargetInfoLike {
  readonly targetId: string
  readonly type: string
  readonly url: string
  readonly openerId?: string
}

/**
 * Turns discovery on for `session` (a browser-level session of the library's connection) and keeps the page
 * targets that have an opener. Undefined when the browser refuses discovery there (an extension relay may).
 */
export const trackOpenedTabs = async (session: CDPSession): Promise<OpenedTabs | undefined> => {
  const opened = new Map<string, { readonly opener: string; url: string }>()
  const keep = (t: TargetInfoLike) => {
    if (t.type !== "page" || t.openerId === undefined) return
    const known = opened.get(t.targetId)
    if (known !== undefined) {
      known.url = t.url
      return
    }
    if (opened.size >= MAX_REMEMBERED) opened.delete(opened.keys().next().value!)
    opened.set(t.targetId, { opener: t.openerId, url: t.url })
  }
  session.on("Target.targetCreated", ({ targetInfo }) => keep(targetInfo))
  session.on("Target.targetInfoChanged", ({ targetInfo }) => {
    if (opened.has(targetInfo.targetId)) keep(targetInfo)
  })
  session.on("Target.targetDestroyed", ({ targetId }) => void opened.delete(targetId))
  try {
    await session.send("Target.setDiscoverTargets", { discover: true })
  } catch {
    return undefined
  }
  return {
    openedBy: (opener) => {
      const out: Array<OpenedTab> = []
      for (const [targetId, t] of opened) if (t.opener === opener) out.push({ targetId, url: t.url })
      return out
    }
  }
}
