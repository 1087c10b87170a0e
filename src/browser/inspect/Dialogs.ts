import { Effect } from "effect"
import type { BrowserContext, Dialog, Page } from "playwright-core"
import type { ActionDialog } from "../../domain/browser.js"
import { ConfigStore } from "../../config/ConfigStore.js"
import { Conflict } from "../../domain/errors.js"
import { Ring } from "./Bounded.js"
import { heldDialogRefusal } from "./heldDialog.js"
import { makePageRegistry, observeContexts } from "../pages/PageRegistry.js"
import { PlaywrightSessions } from "../pages/Playwright.js"
import type { TabRef } from "../act/Refs.js"

// JavaScript dialogs (alert, confirm, prompt, beforeunload). A dialog blocks its page until answered, so
// every page the library sees gets a handler: the next dialog of a tab is answered as armed (before the
// action that opens it), and an unarmed one is answered at once so the tab never wedges:
//   alert: accepted (its only button); confirm: dismissed (false); prompt: dismissed (null);
//   beforeunload: accepted (the navigation or close the agent asked for goes ahead).
// An action that asks for it (`dialogs: "hold"`, as MCP clients expect from Playwright MCP) has an unarmed
// dialog it opens held open instead: the action answers that it is open, `answerHeld` answers it, and after
// HOLD_MS (browser.dialogHoldMs) it is answered by the policy above, so a tab nobody comes back to does not
// stay wedged. Such an action also leaves its tab holding: a dialog the page opens later, between requests
// (from a timer, a message), is held the same way, and the next request for the page is refused naming it.
// The next action or navigation on the tab that does not hold its dialogs (`dialogs: "answer"`, the default)
// ends that.
// Every dialog is recorded for `dialogs(tab)`.

export type DialogType = "alert" | "confirm" | "prompt" | "beforeunload"

export interface DialogEntry {
  readonly seq: number
  readonly type: DialogType
  readonly message: string
  /** The prompt's default value; null for the other types. */
  readonly defaultValue: string | null
  /** "open": held, not answered yet. */
  readonly answer: "accepted" | "dismissed" | "open"
  /** The text a prompt was accepted with; null otherwise. */
  readonly promptText: string | null
  /** Whether an arm answered it (false: the default policy did). */
  readonly armed: boolean
  /** The page's URL when the dialog opened. */
  readonly url: string
  /** Set when answering failed (the dialog was already gone). */
  readonly error: string | null
  readonly timestamp: string
}

export interface DialogArm {
  readonly accept: boolean
  readonly promptText?: string | undefined
}

export const DIALOGS_LIMIT = 50
const MAX_DIALOG_TABS = 256
const MAX_MESSAGE = 4_000

/** A dialog as an action's (or a navigation's) answer tells of it. */
export const actionDialog = (d: DialogEntry): ActionDialog => ({
  type: d.type,
  message: d.message,
  answer: d.answer,
  armed: d.armed,
  ...(d.promptText !== null ? { promptText: d.promptText } : {})
})

/** How long a held dialog waits for its answer before the default policy answers it (browser.dialogHoldMs). */
export const HOLD_MS = 5 * 60_000

type MutableEntry = { -readonly [K in keyof DialogEntry]: DialogEntry[K] }

interface HeldDialog {
  readonly dialog: Dialog
  readonly entry: MutableEntry
  readonly timer: ReturnType<typeof setTimeout>
}

interface DialogState {
  armed: (DialogArm & { readonly armedAt: string }) | undefined
  readonly history: Ring<MutableEntry>
  /** Actions under way on the tab that hold the dialogs they open. */
  holding: number
  /** The tab's last action or navigation held its dialogs: later ones are held too (see above). */
  keeps: boolean
  /** How long a dialog held on the tab waits (browser.dialogHoldMs when the holding began). */
  holdMs: number
  /** The dialog held open now. */
  held: HeldDialog | undefined
  /** Told when a dialog is held. */
  readonly onHeld: Set<() => void>
}

/** What is known of a held dialog. */
export interface HeldInfo {
  readonly type: DialogType
  readonly message: string
}

const asType = (t: string): DialogType =>
  t === "confirm" || t === "prompt" || t === "beforeunload" ? t : "alert"

/** How an unarmed dialog is answered. */
export const defaultAnswer = (type: DialogType): "accepted" | "dismissed" =>
  type === "alert" || type === "beforeunload" ? "accepted" : "dismissed"

const clip = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max)}…`)

const urlOf = (page: Page) => {
  try {
    return page.url()
  } catch {
    return "" // closing
  }
}

const errorLine = (e: unknown) => (e instanceof Error ? e.message.split("\n")[0]! : String(e))

/**
 * Answers a dialog and records how in its entry at once (the error too, when it was gone already). An
 * accepted prompt gets `promptText`, else its default value.
 */
const answer = (dialog: Dialog, entry: MutableEntry, accept: boolean, given?: string | undefined) => {
  const promptText = accept && entry.type === "prompt" ? (given ?? dialog.defaultValue()) : undefined
  entry.answer = accept ? "accepted" : "dismissed"
  entry.promptText = promptText ?? null
  const answered = accept ? dialog.accept(promptText) : dialog.dismiss()
  return answered.then(() => true, (e: unknown) => {
    entry.error = errorLine(e)
    return false
  })
}

/** Records a dialog in its tab's history; the entry is filled in as it is answered. */
const record = (
  state: DialogState,
  dialog: Dialog,
  type: DialogType,
  url: string,
  how: Pick<DialogEntry, "answer" | "promptText" | "armed">
): MutableEntry =>
  state.history.push((seq) => ({
    seq,
    type,
    message: clip(dialog.message(), MAX_MESSAGE),
    defaultValue: type === "prompt" ? dialog.defaultValue() : null,
    ...how,
    url,
    error: null,
    timestamp: new Date().toISOString()
  }))

/** The tabs' states that hold a dialog open now (most have none: a request checks this first). */
type HeldStates = Set<DialogState>

const release = (state: DialogState, holders: HeldStates) => {
  if (state.held !== undefined) clearTimeout(state.held.timer)
  state.held = undefined
  holders.delete(state)
}

/** Keeps an unarmed dialog open for `answerHeld`; the default policy answers it after HOLD_MS. */
const hold = (state: DialogState, holders: HeldStates, dialog: Dialog, type: DialogType, url: string) => {
  const entry = record(state, dialog, type, url, { answer: "open", promptText: null, armed: false })
  const timer = setTimeout(() => {
    if (state.held?.dialog !== dialog) return
    release(state, holders)
    void answer(dialog, entry, defaultAnswer(type) === "accepted")
  }, state.holdMs)
  timer.unref?.()
  state.held = { dialog, entry, timer }
  holders.add(state)
  for (const notify of [...state.onHeld]) notify()
}

/** Answers every dialog of the context's pages (as armed, else by policy) and records it in its page's state. */
const listenOnContext = (context: BrowserContext, stateOf: (page: Page) => DialogState | undefined, holders: HeldStates) => {
  const onDialog = (dialog: Dialog) => {
    const page = dialog.page()
    const state = page !== null ? stateOf(page) : undefined
    if (page === null || state === undefined) {
      // Not a page we track (closing): answer by policy so nothing waits on it.
      const type = asType(dialog.type())
      void (defaultAnswer(type) === "accepted" ? dialog.accept() : dialog.dismiss()).catch(() => undefined)
      return
    }
    const type = asType(dialog.type())
    const arm = state.armed
    if (arm === undefined && (state.holding > 0 || state.keeps) && state.held === undefined) {
      hold(state, holders, dialog, type, urlOf(page))
      return
    }
    state.armed = undefined
    const accept = arm !== undefined ? arm.accept : defaultAnswer(type) === "accepted"
    // Recorded at once (a caller reading right after the action sees it); `answer` fills in the prompt's
    // text now, and the error if answering fails.
    const entry = record(state, dialog, type, urlOf(page), {
      answer: accept ? "accepted" : "dismissed",
      promptText: null,
      armed: arm !== undefined
    })
    void answer(dialog, entry, accept, arm?.promptText)
  }
  context.on("dialog", onDialog)
  return () => void context.off("dialog", onDialog)
}

export class Dialogs extends Effect.Service<Dialogs>()("svc/Dialogs", {
  scoped: Effect.gen(function*() {
    const sessions = yield* PlaywrightSessions
    const store = yield* ConfigStore
    /** The tabs' states that hold the dialogs their pages open by themselves (`keeps`). */
    const keeping = new Set<DialogState>()
    const registry = makePageRegistry<DialogState>({
      create: () => {
        const state: DialogState = {
          armed: undefined,
          history: new Ring(DIALOGS_LIMIT),
          holding: 0,
          keeps: false,
          holdMs: HOLD_MS,
          held: undefined,
          onHeld: new Set()
        }
        return { state, detach: () => void keeping.delete(state) }
      },
      maxPages: MAX_DIALOG_TABS,
      targetIdOf: sessions.targetIdOf
    })
    const holders: HeldStates = new Set()
    yield* observeContexts(sessions, registry, (context, stateOf) => listenOnContext(context, stateOf, holders))

    /** Makes sure the page's dialogs are handled and known as this tab. */
    const ensureAttached = (tab: TabRef, page: Page) => Effect.sync(() => void registry.attach(tab, page))

    /** Arms the tab's next dialog (replacing an earlier arm that no dialog used yet). */
    const arm = (tab: TabRef, page: Page, options: DialogArm) =>
      Effect.gen(function*() {
        const state = registry.attach(tab, page)
        if (state === undefined) {
          return yield* new Conflict({ message: "the tab was closed; pick an open tab (`svc browser tabs`)" })
        }
        state.armed = {
          accept: options.accept,
          ...(options.promptText !== undefined ? { promptText: options.promptText } : {}),
          armedAt: new Date().toISOString()
        }
      })

    /** The arm waiting for the tab's next dialog, if any. */
    const armed = (tab: TabRef) =>
      Effect.map(registry.find(tab), (state) => {
        const a = state?.armed
        return a === undefined ? undefined : { accept: a.accept, promptText: a.promptText ?? null, armedAt: a.armedAt }
      })

    /** The tab's recent dialogs, oldest first. */
    const dialogs = (tab: TabRef, options: { readonly clear?: boolean | undefined } = {}) =>
      Effect.map(registry.find(tab), (state): ReadonlyArray<DialogEntry> => {
        if (state === undefined) return []
        const out = state.history.toArray().map((e) => ({ ...e }))
        if (options.clear === true) state.history.clear()
        return out
      })

    /** The sequence number of the tab's newest dialog (0: none yet), to ask later what came after it. */
    const lastSeq = (tab: TabRef) =>
      Effect.map(registry.find(tab), (state) => state?.history.findNewest(() => true)?.seq ?? 0)

    /** The tab's dialogs after `seq`, oldest first. */
    const since = (tab: TabRef, seq: number) =>
      Effect.map(
        registry.find(tab),
        (state): ReadonlyArray<DialogEntry> => state?.history.toArray().filter((e) => e.seq > seq).map((e) => ({ ...e })) ?? []
      )

    /** The dialog held open on the tab now, if any (one whose page closed is gone with it). */
    const heldNow = (state: DialogState | undefined) => {
      const h = state?.held
      if (h === undefined) return undefined
      if (h.dialog.page()?.isClosed() === true) {
        release(state!, holders)
        return undefined
      }
      return h
    }

    /** The dialog held open on the tab, if any. */
    const held = (tab: TabRef): Effect.Effect<HeldInfo | undefined> =>
      // Looked at when run (an effect made before a dialog is held may run after).
      Effect.suspend(() =>
        holders.size === 0 ? Effect.succeed(undefined) : Effect.map(registry.find(tab), (state): HeldInfo | undefined => {
          const h = heldNow(state)
          return h === undefined ? undefined : { type: h.entry.type, message: h.entry.message }
        })
      )

    /** Fails (409) while a dialog held open on the tab holds up its page: a request there would wait in it. */
    const free = (tab: TabRef): Effect.Effect<void, Conflict> =>
      Effect.flatMap(held(tab), (h) => h === undefined ? Effect.void : Effect.fail(new Conflict({ message: heldDialogRefusal(h) })))

    /**
     * For the scope: an unarmed dialog the tab opens is held open (see HOLD_MS), not answered at once; and
     * after it, those the page opens by itself, until `answering`.
     */
    const holding = (tab: TabRef, page: Page) =>
      Effect.acquireRelease(
        Effect.tap(keepHolding(tab, page), (state) => void (state !== undefined && state.holding++)),
        (state) => Effect.sync(() => void (state !== undefined && state.holding--))
      )

    /** The tab holds the dialogs its page opens from now on (a tab opened with `hold`), until `answering`. */
    const keepHolding = (tab: TabRef, page: Page) =>
      Effect.map(store.get, (config) => {
        const state = registry.attach(tab, page)
        if (state !== undefined) {
          state.keeps = true
          state.holdMs = config.browser?.dialogHoldMs ?? HOLD_MS
          keeping.add(state)
        }
        return state
      })

    /** The tab's dialogs are answered at once again (an action or navigation that does not hold them). */
    const answering = (tab: TabRef) =>
      Effect.map(registry.find(tab), (state) => {
        if (state === undefined) return
        state.keeps = false
        keeping.delete(state)
      })

    /**
     * For a request that needs the page (a snapshot, a screenshot, web storage): refused as `free` refuses,
     * and, while the tab holds the dialogs its page opens by itself, also when one is held while it runs,
     * rather than left waiting in the dialog until its timeout.
     */
    const refusedIfHeld = (tab: TabRef) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | Conflict, R> =>
      Effect.zipRight(
        free(tab),
        Effect.flatMap(registry.find(tab), (state) =>
          state === undefined || !state.keeps
            ? effect
            : Effect.raceFirst(
              // Not waited for once the dialog wins: the page's call under way answers only after the dialog.
              Effect.disconnect(effect),
              Effect.zipRight(Effect.zipRight(whenHeld(tab), free(tab)), Effect.never)
            ))
      )

    /** Ends once a dialog is held open on the tab (at once if one is). */
    const whenHeld = (tab: TabRef) =>
      Effect.flatMap(registry.find(tab), (state) =>
        state === undefined
          ? Effect.never
          : Effect.async<void>((resume) => {
            if (heldNow(state) !== undefined) return resume(Effect.void)
            const notify = () => {
              state.onHeld.delete(notify)
              resume(Effect.void)
            }
            state.onHeld.add(notify)
            return Effect.sync(() => void state.onHeld.delete(notify))
          }))

    /**
     * Answers the dialog held open on the tab: its entry as answered, or undefined when none is held (or
     * the dialog was gone when answered: then its entry says so in `error`).
     */
    const answerHeld = (tab: TabRef, options: DialogArm) =>
      Effect.flatMap(registry.find(tab), (state) => {
        const h = heldNow(state)
        if (h === undefined) return Effect.succeed(undefined)
        release(state!, holders)
        h.entry.armed = true
        return Effect.promise(() => answer(h.dialog, h.entry, options.accept, options.promptText)).pipe(
          Effect.map((): DialogEntry => ({ ...h.entry }))
        )
      })

    return {
      ensureAttached,
      arm,
      armed,
      dialogs,
      lastSeq,
      since,
      held,
      free,
      /** Whether a dialog is held open on any tab (most of the time none is: no tab needs looking up). */
      anyHeld: () => holders.size > 0,
      holding,
      keepHolding: (tab: TabRef, page: Page) => Effect.asVoid(keepHolding(tab, page)),
      answering,
      refusedIfHeld,
      /** Whether some tab holds the dialogs its page opens by itself (most of the time none does). */
      anyKeeps: () => keeping.size > 0,
      whenHeld,
      answerHeld
    } as const
  }),
  dependencies: [PlaywrightSessions.Default]
}) {}
