import { Cause, Effect, Exit, Fiber, Option } from "effect"
import type { Download, Frame, Page, Request } from "playwright-core"
import type { ActionDialog, ActionDownload, ActionFileChooser, ActionNavigation, ActionNewTab } from "../../domain/browser.js"
import { actionDialog, Dialogs } from "../inspect/Dialogs.js"
import { Files } from "../inspect/Files.js"
import { HeldChoosers } from "../inspect/HeldChoosers.js"
import { PlaywrightSessions } from "../pages/Playwright.js"
import { untilWoken } from "../pages/promises.js"
import { Tabs } from "../pages/Tabs.js"
import type { TabRef } from "./Refs.js"

// What an action caused beside its own effect, so the agent hears of it in the action's answer: dialogs
// (and how they were answered), tabs it opened, files it downloaded (saved in the downloads root) and where
// the tab went. Watched from just before the action to just after it. One round trip to the browser on the
// library's connection ends the watch: the browser has then created any tab the action opened, and every
// event it sent before (a download starting) has been dispatched.

export interface ActionEffects {
  readonly dialogs?: ReadonlyArray<ActionDialog>
  readonly newTabs?: ReadonlyArray<ActionNewTab>
  readonly downloads?: ReadonlyArray<ActionDownload>
  readonly fileChooser?: ActionFileChooser
  readonly navigation?: ActionNavigation
}

/** How long the answer waits for a download to be saved; a longer one goes on saving and is reported in progress. */
export const DOWNLOAD_REPORT_MS = 10_000
/** How long the answer waits for a load the action started to become a document, a download or nothing. */
export const LOAD_OUTCOME_MS = 5_000
/** After a navigation the action caused, how long the answer waits for the new document's DOM (for its title). */
const NAVIGATION_SETTLE_MS = 3_000

export interface EffectsWatch {
  /**
   * Ends the watch and says what happened. Never fails. `mark` (PlaywrightSessions.sendMark, taken once the
   * action was done): a call svc made on the page's session since then serves as the round trip.
   */
  readonly finish: (mark: number, options?: FinishOptions) => Effect.Effect<ActionEffects>
}

export interface FinishOptions {
  /**
   * The action holds the dialogs it opens (Dialogs.holding). While one is held the page's thread waits in
   * it: what would be asked of the page (a round trip on its session, its title) is given up then.
   */
  readonly holdsDialogs?: boolean
}

interface StartedDownload {
  readonly download: Download
  readonly saved: Promise<Exit.Exit<{ readonly path: string; readonly bytes: number }, { readonly message: string }>>
}

/** A request's frame; none for a service worker's (the library throws there). */
const frameOf = (r: Request): Frame | undefined => {
  try {
    return r.frame()
  } catch {
    return undefined
  }
}

const failureText = (exit: Exit.Exit<unknown, { readonly message: string }>): string =>
  Exit.isFailure(exit)
    ? Option.match(Cause.failureOption(exit.cause), {
      onNone: () => "the download could not be saved",
      onSome: (e) => e.message
    })
    : ""

const withinMs = <A>(promise: Promise<A>, ms: number): Promise<A | undefined> =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms)
    void promise.then((a) => {
      clearTimeout(timer)
      resolve(a)
    })
  })

/** An effect that asks the page, or `fallback` once a dialog is held open on it (the page then waits in it). */
type UnlessHeld = <A, B>(effect: Effect.Effect<A>, fallback: B) => Effect.Effect<A | B>

export class SideEffects extends Effect.Service<SideEffects>()("svc/SideEffects", {
  effect: Effect.gen(function*() {
    const sessions = yield* PlaywrightSessions
    const dialogs = yield* Dialogs
    const files = yield* Files
    const choosers = yield* HeldChoosers
    const tabs = yield* Tabs
    /** Per page: the tabs it had opened at the end of its last watched action. */
    const knownChildren = new WeakMap<Page, ReadonlySet<string>>()

    const downloadReport = async (d: StartedDownload): Promise<ActionDownload> => {
      const base = { suggestedFilename: d.download.suggestedFilename(), url: d.download.url() }
      const exit = await withinMs(d.saved, DOWNLOAD_REPORT_MS)
      if (exit === undefined) return { ...base, inProgress: true }
      return Exit.isSuccess(exit)
        ? { ...base, path: exit.value.path, bytes: exit.value.bytes }
        : { ...base, error: failureText(exit) }
    }

    /** A download the page started, saving in the downloads root; none when a `download` request waits for it. */
    const saving = (download: Download): StartedDownload | undefined =>
      Effect.runSync(files.isAwaited(download.page())) ? undefined : { download, saved: Effect.runPromiseExit(files.saveStarted(download)) }

    /**
     * The downloads the tab's page starts until the scope ends (a navigation to a URL that answers with a
     * file). `report` says them, waiting up to `waitMs` for one to start when none has yet.
     */
    const downloadsDuring = (page: Page) =>
      Effect.gen(function*() {
        const started: Array<StartedDownload> = []
        // Heard of: one a `download` request waits for is its to save and say, not this one's.
        let heard = 0
        const wakers = new Set<() => void>()
        const onDownload = (download: Download) => {
          heard++
          const s = saving(download)
          if (s !== undefined) started.push(s)
          for (const w of [...wakers]) w()
        }
        page.on("download", onDownload)
        yield* Effect.addFinalizer(() => Effect.sync(() => page.off("download", onDownload)))
        const report = (waitMs: number) =>
          Effect.promise(async () => {
            if (heard === 0) await untilWoken(wakers, waitMs)
            return Promise.all(started.map(downloadReport))
          })
        return { report } as const
      })

    /** Starts watching the tab's page for what an action is about to cause, until `finish` or the scope's end. */
    const watch = (tab: TabRef, page: Page) =>
      Effect.gen(function*() {
        // The tabs this one opened before: as the browser announced them, else known from the last action's
        // look, else asked now (beside the action).
        const announced = sessions.openedBy(page)
        const knownBefore = announced !== undefined ? new Set(announced.map((t) => t.targetId)) : knownChildren.get(page)
        const targetsBefore = knownBefore === undefined ? yield* Effect.fork(sessions.pageTargets(page)) : undefined
        const dialogSeq = yield* dialogs.lastSeq(tab)
        const navigationsBefore = yield* sessions.navigations(page)
        const urlBefore = page.url()
        choosers.drop(page)
        const choosersBefore = choosers.count(page)
        const started: Array<StartedDownload> = []
        const opened: Array<Page> = []

        // Loads of the main frame the action started and that have not ended yet: each ends as a new document,
        // a download, or nothing (a 204, an error); the answer waits for that (bounded).
        const loading = new Set<Request>()
        const wakers = new Set<() => void>()
        const wake = () => {
          for (const w of [...wakers]) w()
        }
        // Loads of the main frame that may have brought a new document (a same-document move makes no request).
        // One that failed brought none: a download, a 204, a load cancelled by the next one. (A failure the
        // browser shows as its error page is a new document, and svc's session counts it.)
        const documentLoads = new Set<Request>()
        const onRequest = (r: Request) => {
          if (r.isNavigationRequest() && frameOf(r) === page.mainFrame()) {
            loading.add(r)
            documentLoads.add(r)
          }
        }
        const noDocumentFrom = (r: Request) => {
          for (let hop: Request | null = r; hop !== null; hop = hop.redirectedFrom()) documentLoads.delete(hop)
        }
        const onRequestEnd = (r: Request) => {
          if (loading.delete(r)) wake()
        }
        const onRequestFailed = (r: Request) => {
          noDocumentFrom(r)
          onRequestEnd(r)
        }
        const onFrame = (f: Frame) => {
          if (f === page.mainFrame()) {
            loading.clear()
            wake()
          }
        }
        const onDownload = (download: Download) => {
          // The main frame's load that became this download brought no document (its failure may come later).
          if (download.page() === page) for (const r of documentLoads) if (r.url() === download.url()) noDocumentFrom(r)
          loading.clear()
          wake()
          // A `download` request waiting for this tab's download saves it under the name it was given.
          const s = saving(download)
          if (s !== undefined) started.push(s)
        }
        const loadsEnded = Effect.promise(() =>
          loading.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => {
            const timer = setTimeout(done, LOAD_OUTCOME_MS)
            function done() {
              clearTimeout(timer)
              wakers.delete(check)
              resolve()
            }
            function check() {
              if (loading.size === 0) done()
            }
            wakers.add(check)
          })
        )
        const onPage = (p: Page) => {
          opened.push(p)
          p.on("download", onDownload)
        }
        const context = page.context()
        page.on("download", onDownload)
        // On the context: the library already delivers its requests (the network capture listens there), while
        // a listener on the page would switch its delivery on and off around every action.
        context.on("request", onRequest)
        context.on("requestfinished", onRequestEnd)
        context.on("requestfailed", onRequestFailed)
        page.on("framenavigated", onFrame)
        context.on("page", onPage)
        let stopped = false
        const stop = () => {
          if (stopped) return
          stopped = true
          page.off("download", onDownload)
          context.off("request", onRequest)
          context.off("requestfinished", onRequestEnd)
          context.off("requestfailed", onRequestFailed)
          page.off("framenavigated", onFrame)
          context.off("page", onPage)
          for (const p of opened) p.off("download", onDownload)
        }

        /** Tabs this tab opened (the browser names their opener) that were not there before the action. */
        const newTabs = (mark: number, unlessHeld: UnlessHeld) => Effect.gen(function*() {
          const before = targetsBefore !== undefined ? yield* Fiber.join(targetsBefore) : undefined
          // The round trip that also lets earlier events (a tab announced, a download) arrive.
          let children: ReadonlyArray<{ readonly targetId: string; readonly url: string }> | undefined = undefined
          if (announced !== undefined) {
            yield* unlessHeld(Effect.promise(() => sessions.barrier(page, mark)), undefined)
            children = sessions.openedBy(page)
          }
          if (children === undefined) {
            const after = yield* sessions.pageTargets(page)
            if (after === undefined || (knownBefore === undefined && before === undefined)) return []
            children = after.filter((t) => t.openerId === tab.targetId)
          }
          const known = knownBefore ?? new Set(before!.map((t) => t.targetId))
          knownChildren.set(page, new Set(children.map((t) => t.targetId)))
          return yield* Effect.forEach(children.filter((t) => !known.has(t.targetId)), (t) =>
            Effect.map(tabs.indexOf(tab.profile, t.targetId), (index): ActionNewTab => ({
              targetId: t.targetId,
              index,
              url: t.url
            })))
        })

        const navigation = (unlessHeld: UnlessHeld) => Effect.gen(function*() {
          if (page.isClosed()) return undefined
          const counted = () => Effect.map(sessions.navigations(page), (n) => n !== navigationsBefore || documentLoads.size > 0)
          let crossed = yield* counted()
          if (!crossed && page.url() === urlBefore) return undefined
          // The library's page and our session hear of a commit separately; the main frame's request tells a
          // new document whichever heard first.
          let title = yield* unlessHeld(sessions.title(page), "")
          crossed = yield* counted()
          if (crossed) {
            yield* unlessHeld(
              Effect.promise(() =>
                page.waitForLoadState("domcontentloaded", { timeout: NAVIGATION_SETTLE_MS }).catch(() => undefined)
              ),
              undefined
            )
            title = yield* unlessHeld(sessions.title(page), title)
          }
          const result: ActionNavigation = { url: page.url(), title, ...(crossed ? {} : { sameDocument: true }) }
          return result
        })

        const finish = (mark: number, options: FinishOptions = {}) => Effect.gen(function*() {
          const unlessHeld: UnlessHeld = options.holdsDialogs === true
            ? (effect, fallback) => Effect.raceFirst(effect, Effect.as(dialogs.whenHeld(tab), fallback))
            : (effect) => effect
          yield* unlessHeld(loadsEnded, undefined)
          const tabsOpened = yield* newTabs(mark, unlessHeld)
          const moved = yield* navigation(unlessHeld)
          const saved = yield* Effect.promise(() => Promise.all(started.map(downloadReport)))
          stop()
          // A chooser the action opened was heard of on svc's session before the answer to this round trip.
          yield* unlessHeld(Effect.promise(() => sessions.barrier(page, mark)), undefined)
          const answered = yield* dialogs.since(tab, dialogSeq)
          const chooser = choosers.count(page) !== choosersBefore ? choosers.current(page) : undefined
          const effects: ActionEffects = {
            ...(answered.length > 0 ? { dialogs: answered.map(actionDialog) } : {}),
            ...(tabsOpened.length > 0 ? { newTabs: tabsOpened } : {}),
            ...(saved.length > 0 ? { downloads: saved } : {}),
            ...(chooser !== undefined ? { fileChooser: { multiple: chooser.multiple } } : {}),
            ...(moved !== undefined ? { navigation: moved } : {})
          }
          return effects
        }).pipe(Effect.withSpan("SideEffects.finish"))

        const w: EffectsWatch = { finish }
        return yield* Effect.as(Effect.addFinalizer(() => Effect.sync(stop)), w)
      })

    return { watch, downloadsDuring } as const
  })
}) {}
