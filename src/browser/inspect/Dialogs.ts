import { Effect } from "effect"
import type { BrowserContext, Dialog, Page } from "playwright-core"
import { Conflict } from "../../domain/errors.js"
import { Ring } from "./Bounded.js"
import { makePageRegistry, observeContexts } from "../pages/PageRegistry.js"
import { PlaywrightSessions } from "../pages/Playwright.js"
import type { TabRef } from "../act/Refs.js"

// JavaScript dialogs (alert, confirm, prompt, beforeunload). A dialog blocks its page until answered, so
// every page the library sees gets a handler: the next dialog of a tab is answered as armed (before the
// action that opens it), and an unarmed one is answered at once so the tab never wedges:
//   alert: accepted (its only button); confirm: dismissed (false); prompt: dismissed (null);
//   beforeunload: accepted (the navigation or close the agent asked for goes ahead).
// Every dialog is recorded for `dialogs(tab)`.

export type DialogType = "alert" | "confirm" | "prompt" | "beforeunload"

export interface DialogEntry {
  readonly seq: number
  readonly type: DialogType
  readonly message: string
  /** The prompt's default value; null for the other types. */
  readonly defaultValue: string | null
  readonly answer: "accepted" | "dismissed"
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

interface DialogState {
  armed: (DialogArm & { readonly armedAt: string }) | undefined
  readonly history: Ring<{ -readonly [K in keyof DialogEntry]: DialogEntry[K] }>
}

const asType = (t: string): DialogType =>
  t === "confirm" || t === "prompt" || t === "beforeunload" ? t : "alert"

/** How an unarmed dialog is answered. */
export const defaultAnswer = (type: DialogType): "accepted" | "dismissed" =>
  type === "alert" || type === "beforeunload" ? "accepted" : "dismissed"

const clip = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max)}…`)

/** Answers every dialog of the context's pages (as armed, else by policy) and records it in its page's state. */
const listenOnContext = (context: BrowserContext, stateOf: (page: Page) => DialogState | undefined) => {
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
    state.armed = undefined
    const accept = arm !== undefined ? arm.accept : defaultAnswer(type) === "accepted"
    const promptText = accept && type === "prompt" ? (arm?.promptText ?? dialog.defaultValue()) : undefined
    let url = ""
    try {
      url = page.url()
    } catch {
      // closing
    }
    // Recorded at once (a caller reading right after the action sees it); error is filled in if answering fails.
    const entry = state.history.push((seq) => ({
      seq,
      type,
      message: clip(dialog.message(), MAX_MESSAGE),
      defaultValue: type === "prompt" ? dialog.defaultValue() : null,
      answer: accept ? "accepted" : "dismissed",
      promptText: promptText ?? null,
      armed: arm !== undefined,
      url,
      error: null,
      timestamp: new Date().toISOString()
    }))
    const answered = accept ? dialog.accept(promptText) : dialog.dismiss()
    answered.catch((e: unknown) => {
      entry.error = e instanceof Error ? e.message.split("\n")[0]! : String(e)
    })
  }
  context.on("dialog", onDialog)
  return () => void context.off("dialog", onDialog)
}

export class Dialogs extends Effect.Service<Dialogs>()("svc/Dialogs", {
  scoped: Effect.gen(function*() {
    const sessions = yield* PlaywrightSessions
    const registry = makePageRegistry<DialogState>({
      create: () => ({ state: { armed: undefined, history: new Ring(DIALOGS_LIMIT) }, detach: () => undefined }),
      maxPages: MAX_DIALOG_TABS,
      targetIdOf: sessions.targetIdOf
    })
    yield* observeContexts(sessions, registry, listenOnContext)

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

    return { ensureAttached, arm, armed, dialogs, lastSeq, since } as const
  }),
  dependencies: [PlaywrightSessions.Default]
}) {}
