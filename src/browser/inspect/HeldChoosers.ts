import { Effect } from "effect"
import type { CDPSession, Page } from "playwright-core"
import { Profiles } from "../launch/Profiles.js"
import { PlaywrightSessions } from "../pages/Playwright.js"
import { withTimeout } from "../pages/promises.js"
import { Files } from "./Files.js"

// A file chooser an agent's click opens, held for the upload that follows it: the way agents know from
// Playwright MCP (click the file input or its button, then give the files). svc's own session of each page
// of a browser svc launched intercepts file choosers, so none is shown, and remembers the last one that
// nothing armed (Files.armFileChooser arms the next one the library's way, and answers it itself) until the
// tab's next action. Over svc's session the chooser's event comes before the answer to any later call on
// that session, so an action's answer can say for sure whether it opened one. Remote and relay browsers may
// be a person's own: there a chooser nothing armed opens as it always does.

interface Held {
  readonly session: CDPSession
  readonly backendNodeId: number
  readonly multiple: boolean
}

export class HeldChoosers extends Effect.Service<HeldChoosers>()("svc/HeldChoosers", {
  scoped: Effect.gen(function*() {
    const sessions = yield* PlaywrightSessions
    const profiles = yield* Profiles
    const files = yield* Files
    const held = new WeakMap<Page, Held>()
    const counts = new WeakMap<Page, number>()

    const hold = (page: Page) =>
      Effect.promise(async () => {
        const own = await sessions.pageSession(page).catch(() => undefined)
        if (own === undefined) return
        const { session } = own
        session.on("Page.fileChooserOpened", (event) => {
          // An armed chooser is the library's to answer: its session hears of it too, but only after asking the
          // page for the element, so the arming is still there when this event comes.
          if (event.backendNodeId === undefined || Effect.runSync(files.isArmed(page))) return
          held.set(page, { session, backendNodeId: event.backendNodeId, multiple: event.mode === "selectMultiple" })
          counts.set(page, (counts.get(page) ?? 0) + 1)
        })
        await session.send("Page.setInterceptFileChooserDialog", { enabled: true }).catch(() => undefined)
      })

    yield* sessions.onPage((profile, page) => {
      Effect.runFork(
        profiles.resolve(profile).pipe(
          Effect.flatMap((p) => (p.driver === "managed" ? hold(page) : Effect.void)),
          Effect.ignore
        )
      )
    })

    return {
      /** How many choosers the page has held so far (an action compares it before and after). */
      count: (page: Page) => counts.get(page) ?? 0,
      /** The chooser the page holds now: whether it takes several files. */
      current: (page: Page): { readonly multiple: boolean } | undefined => {
        const h = held.get(page)
        return h === undefined ? undefined : { multiple: h.multiple }
      },
      /** A new action begins: a chooser held from before it is not the one an upload after it means. */
      drop: (page: Page) => void held.delete(page),
      /**
       * Gives the files to the chooser the page holds and lets it go: "none" when there is none (or its input
       * is gone with its document), "one-file" when it takes one file and more were given (it stays held).
       */
      give: (page: Page, paths: ReadonlyArray<string>, timeoutMs: number) =>
        Effect.promise(async (): Promise<"given" | "none" | "one-file"> => {
          const h = held.get(page)
          if (h === undefined) return "none"
          if (paths.length > 1 && !h.multiple) return "one-file"
          held.delete(page)
          const set = h.session.send("DOM.setFileInputFiles", { files: [...paths], backendNodeId: h.backendNodeId })
          return await withTimeout(set, timeoutMs, "DOM.setFileInputFiles").then(() => "given" as const, () => "none" as const)
        })
    } as const
  })
}) {}
