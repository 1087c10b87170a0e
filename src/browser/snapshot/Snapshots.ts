import { prepareRefChecks } from "../act/refChecks.js"
import { Effect, Fiber } from "effect"
import type { Page } from "playwright-core"
import { BrowserUnavailable, InvalidRequest, NotFound } from "../../domain/errors.js"
import { timed } from "../../platform/serverTiming.js"
import { PlaywrightSessions } from "../pages/Playwright.js"
import { Refs, type TabRef } from "../act/Refs.js"
import { type RenderedAi, renderAiSnapshot } from "./AiSnapshot.js"
import { orEmptyNotice } from "./EmptyNotice.js"
import { findLines } from "./FindLines.js"
import { foldControlState } from "./ControlLines.js"
import { frameOrigin, labelsScreenshot } from "./Labels.js"
import { readPageControls } from "./PageControls.js"
import type { RefInfo, SnapshotStats } from "./RenderedSnapshot.js"
import { parseRoleSnapshot, type RenderedRole, renderRoleSnapshot } from "./RoleSnapshot.js"
import { type DiffAnswer, diffAnswer, refOfLine, type SnapshotDiffInfo, wholeAnswer } from "./SnapshotDiff.js"
import {
  DEFAULT_LIMIT,
  type ResolvedSnapshotOptions,
  resolveSnapshotOptions,
  type SnapshotOptions
} from "./SnapshotOptions.js"
import { errorText } from "../pages/promises.js"
import { oneWalkAtATime, readBounded, readToSameEnd } from "./walkBound.js"

// AI and role snapshots of a tab through the automation library: ask playwright for the ARIA text, render
// it (AiSnapshot, RoleSnapshot) while Refs records the refs it hands out, and add a labels screenshot
// when asked. The last text each tab was given is kept, so a snapshot can be answered as a diff against it.

export interface SnapshotOutput {
  readonly format: "ai" | "role"
  readonly snapshot: string
  readonly refs: Record<string, RefInfo>
  readonly stats: SnapshotStats
  readonly truncated: boolean
  readonly url: string
  readonly title: string
  readonly labelsPng?: Uint8Array
  /** With diff: what the text is (a diff against the tab's previous snapshot, or whole and why). */
  readonly diff?: SnapshotDiffInfo
  /** With find: how many lines matched, and how many of them the text shows. */
  readonly found?: { readonly matches: number; readonly shown: number }
}

/** The last snapshot text a tab was given, and what it was taken of and with. */
interface LastSnapshot {
  readonly text: string
  /** The options that shape the text, as flags (see optionsLabel). */
  readonly options: string
  readonly navigations: number
  /** The library's page it was taken of: another one (re-attached) numbers its navigations afresh. */
  readonly page: WeakRef<Page>
  /** What it was asked with (an action's snapshot takes the same kind). */
  readonly request: SnapshotOptions
}

const MAX_REMEMBERED_TABS = 256
/**
 * A role snapshot read in at most this long gets every ref's identity after its answer (a second read of
 * the page, as long as the first); a slower page is read twice only when look-alikes need it.
 */
const BACKGROUND_IDENTITY_MS = 250

/**
 * How long a snapshot whose page moved on while it was read waits for svc's session to count the new document
 * (its news usually comes at once; a move within the document is never counted, and waits this long).
 */
const MOVED_COUNTED_MS = 100

/** The options that change a snapshot's text, as the flags that ask for them (`role --interactive`). */
const optionsLabel = (o: ResolvedSnapshotOptions) =>
  [
    o.format,
    ...(o.interactive ? ["--interactive"] : []),
    ...(o.compact ? ["--compact"] : []),
    ...(o.depth !== undefined ? [`--depth ${o.depth}`] : []),
    ...(o.selector !== undefined ? [`--selector ${JSON.stringify(o.selector)}`] : []),
    ...(o.frame !== undefined ? [`--frame ${JSON.stringify(o.frame)}`] : []),
    ...(o.limit !== DEFAULT_LIMIT ? [`--limit ${o.limit}`] : []),
    ...(o.boxes ? ["--boxes"] : [])
  ].join(" ")

/** The text against the tab's last snapshot: a diff when that one is comparable, else whole saying why. */
const answerAsDiff = (last: LastSnapshot | undefined, now: Omit<LastSnapshot, "text">, text: string): DiffAnswer => {
  if (last === undefined) {
    return wholeAnswer(text, "none", "this is the first snapshot of this tab, so there is nothing to compare with")
  }
  if (last.page.deref() !== now.page.deref() || last.navigations !== now.navigations) {
    return wholeAnswer(text, "navigated", "the page navigated since this tab's last snapshot (its refs no longer work)")
  }
  if (last.options !== now.options) {
    return wholeAnswer(
      text,
      "otherOptions",
      `this tab's last snapshot was taken with other options (${last.options}; this one: ${now.options})`
    )
  }
  return diffAnswer(last.text, text)
}

/** The refs on the lines of the new snapshot that a diff shows (its added and context lines). */
const refsShown = (all: Record<string, RefInfo>, lines: ReadonlyArray<string>): Record<string, RefInfo> => {
  const shown: Record<string, RefInfo> = {}
  for (const line of lines) {
    const ref = refOfLine(line)
    if (ref !== undefined && all[ref] !== undefined) shown[ref] = all[ref]
  }
  return shown
}

type SnapshotError = InvalidRequest | NotFound | BrowserUnavailable

/** Playwright's failures, as a person or a model can act on them. */
const snapshotError = (page: Page, o: ResolvedSnapshotOptions) => (e: unknown): SnapshotError => {
  const text = errorText(e)
  const where = o.frame !== undefined
    ? `--frame ${JSON.stringify(o.frame)}${o.selector !== undefined ? ` --selector ${JSON.stringify(o.selector)}` : ""}`
    : o.selector !== undefined
    ? `--selector ${JSON.stringify(o.selector)}`
    : undefined
  if (page.isClosed() || /closed|Target crashed/i.test(text)) {
    return new BrowserUnavailable({ message: `the tab closed (or crashed) while the snapshot was taken: ${text}` })
  }
  if (where !== undefined) {
    if (/strict mode violation/i.test(text)) {
      return new InvalidRequest({ message: `${where} matches more than one element (${text}); make it match exactly one` })
    }
    if (/not a valid selector|Unexpected token|Unknown engine|Invalid selector|SyntaxError/i.test(text)) {
      return new InvalidRequest({ message: `${where} is not a valid selector: ${text}` })
    }
    if (/Timeout/i.test(text)) {
      return new NotFound({
        message: `nothing on the page matches ${where} (waited ${o.timeoutMs} ms); check the selector, or ` +
          "take a snapshot of the whole page first"
      })
    }
  }
  if (/Timeout/i.test(text)) {
    return new BrowserUnavailable({
      message: `the page did not produce a snapshot within ${o.timeoutMs} ms: it may be busy or blocked by a ` +
        "dialog. Try again, or check the tab with `svc browser tabs`."
    })
  }
  return new BrowserUnavailable({ message: `the snapshot failed: ${text}` })
}

export class Snapshots extends Effect.Service<Snapshots>()("svc/Snapshots", {
  effect: Effect.gen(function*() {
    const sessions = yield* PlaywrightSessions
    const refs = yield* Refs
    const lastOf = new Map<string, LastSnapshot>()

    /** Keeps the tab's latest snapshot text and answers the one before (the most recently used tabs only). */
    const remember = (tab: TabRef, entry: LastSnapshot) => {
      const key = `${tab.profile}\u0000${tab.targetId}`
      const before = lastOf.get(key)
      lastOf.delete(key)
      lastOf.set(key, entry)
      if (lastOf.size > MAX_REMEMBERED_TABS) lastOf.delete(lastOf.keys().next().value!)
      return before
    }

    /**
     * A snapshot of the tab's document. One that committed while it was read (a page that moves on by script or
     * a meta refresh as it loads) is read again: the text may be the new document's, and its refs, counted to
     * the old one, would be refused at once as stale. svc's session hears of the commit on its own: the read
     * again waits (briefly) for it to be counted.
     */
    const snapshot = (tab: TabRef, page: Page, request: SnapshotOptions & { readonly diff?: boolean | undefined }) =>
      Effect.gen(function*() {
        const url = page.url()
        const navigations = yield* sessions.navigations(page)
        const out = yield* readDocument(tab, page, request, navigations)
        if (page.url() === url && (yield* sessions.navigations(page)) === navigations) return out
        yield* Effect.promise(() => sessions.counted(page, navigations, MOVED_COUNTED_MS))
        return yield* readDocument(tab, page, request, yield* sessions.navigations(page))
      }).pipe(Effect.withSpan("Snapshots.snapshot", { attributes: { format: request.format ?? "ai" } }))

    /** One read of the tab's document, its refs counted to its `navigations`. */
    const readDocument = (
      tab: TabRef,
      page: Page,
      request: SnapshotOptions & { readonly diff?: boolean | undefined },
      navigations: number
    ) =>
      Effect.gen(function*() {
        const o = resolveSnapshotOptions(request)
        const failed = snapshotError(page, o)
        // Asked alongside the snapshot: the browser process answers it while the page is busy.
        const title = yield* Effect.fork(sessions.title(page))
        // What the ARIA text leaves out (password fields, collapsed controls, editors), read beside it.
        const controls = yield* Effect.fork(timed("controls")(readPageControls(page, {
              utility: sessions.evaluateUtilityDirect,
              isolated: sessions.evaluateInFrameWorld,
              localFrames: sessions.evaluateInLocalFramesDirect
            })))
        let rendered: RenderedAi | RenderedRole
        if (o.format === "ai") {
          const readAi = () => page.ariaSnapshot({ mode: "ai", timeout: o.timeoutMs, ...(o.labels || o.boxes ? { boxes: true } : {}) })
          // A search reads the whole page: nothing to bound.
          const read = Effect.tryPromise({
            try: () =>
              o.find !== undefined
                ? oneWalkAtATime(page, readAi).then((raw) => ({ raw, unread: undefined }))
                : readBounded(page, sessions.evaluateUtilityDirect, o.readLimit, readAi),
            catch: failed
          }).pipe(timed("aria"))
          const prepared = prepareRefChecks(page, sessions.evaluateUtilityDirect)
          let bounded = yield* read
          // The checks were not in place for that read (a document just committed, its world not known yet):
          // put in place now and read once more, or every action on the refs shown would take the slow way.
          if (!(yield* Effect.promise(() => prepared)) && (yield* Effect.promise(() => prepareRefChecks(page, sessions.evaluateUtilityDirect)))) {
            bounded = yield* read
          }
          const { raw, unread } = bounded
          const folded = foldControlState(raw, yield* Fiber.join(controls))
          rendered = yield* refs.recordAi(tab, navigations, (baseFor) => renderAiSnapshot(folded, { limit: o.readLimit, baseFor, unread, showBoxes: o.boxes }))
            .pipe(timed("render"))
        } else {
          const within = o.frame !== undefined ? page.frameLocator(o.frame) : undefined
          const target = within !== undefined
            ? within.locator(o.selector ?? "body")
            : o.selector !== undefined
            ? page.locator(o.selector)
            : undefined
          const options = { timeout: o.timeoutMs, ...(o.labels || o.boxes ? { boxes: true } : {}) }
          const watch = yield* refs.watchChanges(page, o.frame)
          const started = performance.now()
          // The whole page is read only as far as the cap reaches (walkBound.ts) where the estimate can tell:
          // a list of controls, or every line; not once depth or compact leave lines out.
          const bounded = target === undefined && o.depth === undefined && (o.interactive || !o.compact) && o.find === undefined
          const { raw, unread } = yield* Effect.tryPromise({
            try: () =>
              bounded
                ? readBounded(page, sessions.evaluateUtilityDirect, o.readLimit, () => page.ariaSnapshot(options), o.interactive ? "controls" : "text")
                : oneWalkAtATime(page, () => (target ?? page).ariaSnapshot(options)).then((text) => ({ raw: text, unread: undefined })),
            catch: failed
          })
          const ariaMs = performance.now() - started
          const nodes = parseRoleSnapshot(foldControlState(raw, yield* Fiber.join(controls)))
          // Boxes inside an iframe are relative to it: moved by where the iframe's content starts.
          const boxOffset = (o.labels || o.boxes) && o.frame !== undefined
            ? yield* Effect.tryPromise({
              try: () => page.locator(o.frame!).first().evaluate(frameOrigin, undefined, { timeout: 2_000 }),
              catch: failed
            })
            : undefined
          rendered = yield* refs.recordRole(tab, navigations, o.frame, (numberFor) =>
            renderRoleSnapshot(nodes, {
              limit: o.readLimit,
              interactive: o.interactive,
              compact: o.compact,
              depth: o.depth,
              frameSelector: o.frame,
              scopeSelector: o.selector,
              numberFor,
              unread,
              showBoxes: o.boxes,
              boxOffset
            }))
          // Refs get their element's identity from an AI snapshot of the same scope, read after the answer: where
          // look-alikes need it, and for every ref when the page is quick to read (see identifyRoleRefs).
          const pageControls = yield* Fiber.join(controls)
          if (o.frame === undefined) void prepareRefChecks(page, sessions.evaluateUtilityDirect)
          // The identities come from a read of the same part of the page the snapshot read.
          const readAi = () => (target ?? page).ariaSnapshot({ mode: "ai", timeout: o.timeoutMs })
          // A second read of the whole scope goes in its turn too (walkBound's switch serves one walk at a time).
          yield* refs.identifyRoleRefs(tab, watch, () =>
            (unread !== undefined ? readToSameEnd(page, sessions.evaluateUtilityDirect, readAi) : oneWalkAtATime(page, readAi))
              .then((ai) => foldControlState(ai, pageControls)), {
            allRefs: o.frame === undefined && ariaMs <= BACKGROUND_IDENTITY_MS
          })
        }
        // A search answers what it found in the whole text (which is not the tab's snapshot to diff against).
        const found = o.find !== undefined ? findLines(rendered.text, o.find, o.limit) : undefined
        const foundRefs = found !== undefined ? new Set(found.refs) : undefined
        const boxes = foundRefs !== undefined ? rendered.boxes.filter((b) => foundRefs.has(b.ref)) : rendered.boxes
        const labelsPng = o.labels
          ? yield* labelsScreenshot(page, boxes).pipe(Effect.mapError(failed))
          : undefined
        if (found !== undefined) {
          return {
            format: o.format,
            snapshot: found.text,
            refs: Object.fromEntries(found.refs.flatMap((r) => rendered.refs[r] !== undefined ? [[r, rendered.refs[r]]] : [])),
            stats: rendered.stats,
            truncated: found.shown < found.matches,
            url: page.url(),
            title: yield* Fiber.join(title),
            found: { matches: found.matches, shown: found.shown },
            ...(labelsPng !== undefined ? { labelsPng } : {})
          } satisfies SnapshotOutput
        }
        const { diff: _diff, ...asked } = request
        const taken = { options: optionsLabel(o), navigations, page: new WeakRef(page), request: { ...asked, labels: false } }
        const before = remember(tab, { text: rendered.text, ...taken })
        const answer = request.diff === true ? answerAsDiff(before, taken, rendered.text) : undefined
        const output: SnapshotOutput = {
          format: o.format,
          snapshot: answer?.text ?? orEmptyNotice(rendered.text, o),
          refs: answer?.shown !== undefined ? refsShown(rendered.refs, answer.shown) : rendered.refs,
          stats: rendered.stats,
          truncated: rendered.truncated,
          url: page.url(),
          title: yield* Fiber.join(title),
          ...(labelsPng !== undefined ? { labelsPng } : {}),
          ...(answer !== undefined ? { diff: answer.diff } : {})
        }
        return output
      })

    /** The options of the tab's last snapshot (labels left out), if it had one. */
    const lastOptions = (tab: TabRef) =>
      Effect.sync((): SnapshotOptions | undefined => lastOf.get(`${tab.profile}\u0000${tab.targetId}`)?.request)

    return { snapshot, lastOptions } as const
  }),
  dependencies: [Refs.Default, PlaywrightSessions.Default]
}) {}
