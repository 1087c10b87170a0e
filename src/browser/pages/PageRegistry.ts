import { Effect, type Scope } from "effect"
import type { BrowserContext, Page } from "playwright-core"
import type { TabRef } from "../act/Refs.js"

// Per-page state for observers (console and network logs, dialog handling): created when the page is first
// seen, found again by tab (profile + targetId), freed when the page closes. Pages are matched to tabs
// lazily: by the caller that knows both (attach), or by the targetId the automation library learnt when a
// request looked the page up (targetIdOf), so observing every page costs no CDP session per page.

export interface Attached<S> {
  readonly state: S
  readonly detach: () => void
}

interface Entry<S> extends Attached<S> {
  readonly profile: string
  readonly page: Page
  key: string | undefined
}

export interface PageRegistryOptions<S> {
  /** The page's state, and how to remove any listeners added on the page for it (synchronously). */
  readonly create: (page: Page) => Attached<S>
  /** Most pages held at once; beyond it the least recently used one is detached and forgotten. */
  readonly maxPages: number
  /** The targetId the library has for a page, when it knows it. */
  readonly targetIdOf: (page: Page) => Effect.Effect<string | undefined>
}

export const tabKey = (tab: TabRef) => `${tab.profile}\u0000${tab.targetId}`

export const makePageRegistry = <S>(options: PageRegistryOptions<S>) => {
  /** Insertion order is recency: the first entry is the least recently used. */
  const pages = new Map<Page, Entry<S>>()
  const byTab = new Map<string, Entry<S>>()

  const forget = (entry: Entry<S>) => {
    if (pages.get(entry.page) === entry) pages.delete(entry.page)
    if (entry.key !== undefined && byTab.get(entry.key) === entry) byTab.delete(entry.key)
    try {
      entry.detach()
    } catch {
      // the page is gone
    }
  }

  const touch = (entry: Entry<S>) => {
    pages.delete(entry.page)
    pages.set(entry.page, entry)
  }

  /** The page's entry, created (listeners added) on first sight. Undefined for a closed page. */
  const see = (profile: string, page: Page): Entry<S> | undefined => {
    const known = pages.get(page)
    if (known !== undefined) return known
    if (page.isClosed()) return undefined
    const attached = options.create(page)
    const entry: Entry<S> = { ...attached, profile, page, key: undefined }
    pages.set(page, entry)
    page.once("close", () => forget(entry))
    while (pages.size > options.maxPages) forget(pages.values().next().value!)
    return entry
  }

  const bind = (entry: Entry<S>, key: string) => {
    if (entry.key === key && byTab.get(key) === entry) return
    const previous = byTab.get(key)
    // Another page object for the same tab (a new library connection): the newest one is the tab.
    if (previous !== undefined && previous !== entry) previous.key = undefined
    if (entry.key !== undefined && byTab.get(entry.key) === entry) byTab.delete(entry.key)
    entry.key = key
    byTab.set(key, entry)
  }

  /** The observer to register with PlaywrightSessions.onPage. */
  const observe = (profile: string, page: Page) => void see(profile, page)

  /** The page's state (created on first sight); undefined for a closed page. */
  const stateFor = (profile: string, page: Page): S | undefined => see(profile, page)?.state

  /** The tab's state, attaching to the page now if no observer did before. */
  const attach = (tab: TabRef, page: Page): S | undefined => {
    const entry = see(tab.profile, page)
    if (entry === undefined) return undefined
    bind(entry, tabKey(tab))
    touch(entry)
    return entry.state
  }

  /** The tab's state if the tab was ever attached to (directly, or through a page the library matched). */
  const find = (tab: TabRef): Effect.Effect<S | undefined> =>
    Effect.gen(function*() {
      const key = tabKey(tab)
      const bound = byTab.get(key)
      if (bound !== undefined && !bound.page.isClosed()) {
        touch(bound)
        return bound.state
      }
      for (const entry of [...pages.values()]) {
        if (entry.profile !== tab.profile || entry.key !== undefined || entry.page.isClosed()) continue
        const targetId = yield* options.targetIdOf(entry.page)
        if (targetId === undefined) continue
        bind(entry, tabKey({ profile: entry.profile, targetId }))
        if (targetId === tab.targetId) {
          touch(entry)
          return entry.state
        }
      }
      return undefined
    })

  /** Detaches every page (the service's scope closes). */
  const clear = () => {
    for (const entry of [...pages.values()]) forget(entry)
  }

  return { observe, stateFor, attach, find, clear, size: () => pages.size } as const
}

export type PageRegistry<S> = ReturnType<typeof makePageRegistry<S>>

/**
 * Listen on every browser context the sessions see (those open at connect time and later ones), filing
 * each event under its page's state, and let the registry meet every page. Everything is removed when the
 * caller's scope closes.
 */
export const observeContexts = <S>(
  sessions: {
    readonly onContext: (observer: (profile: string, context: BrowserContext) => void) => Effect.Effect<void, never, Scope.Scope>
    readonly onPage: (observer: (profile: string, page: Page) => void) => Effect.Effect<void, never, Scope.Scope>
  },
  registry: PageRegistry<S>,
  listen: (context: BrowserContext, stateFor: (page: Page) => S | undefined) => () => void
) =>
  Effect.gen(function*() {
    const contexts = new Map<BrowserContext, () => void>()
    // On the context, not the page: events of a page that is still loading are caught too.
    yield* sessions.onContext((profile, context) => {
      if (contexts.has(context)) return
      contexts.set(context, listen(context, (page) => registry.stateFor(profile, page)))
      context.once("close", () => contexts.delete(context))
    })
    yield* sessions.onPage(registry.observe)
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        for (const stop of contexts.values()) stop()
        contexts.clear()
        registry.clear()
      })
    )
  })
