import { Effect } from "effect"
import type { MediaRequest, ThrottleRequest } from "../../domain/browserState.js"
import { InvalidRequest } from "../../domain/errors.js"
import { BrowserState } from "./BrowserState.js"
import { Dialogs } from "./Dialogs.js"
import { type Applied, Emulation } from "./Emulation.js"
import { DEFAULT_CLICK_MS, Files } from "./Files.js"
import { HeldChoosers } from "./HeldChoosers.js"
import { Observe } from "./Observe.js"
import { Refs } from "../act/Refs.js"
import { SafePaths } from "./SafePaths.js"
import { throttleText } from "./throttle.js"
import { TabPages } from "../pages/TabPages.js"

type Tab = { readonly profile?: string | undefined; readonly targetId?: string | undefined }

/**
 * Inspection, files and browser state for one request: the tab and its page, observers attached, refs
 * resolved, then one call. Paths are confined by SafePaths before anything is read or written.
 */
export class Inspector extends Effect.Service<Inspector>()("svc/Inspector", {
  effect: Effect.gen(function*() {
    const { pageOf } = yield* TabPages
    const observe = yield* Observe
    const dialogs = yield* Dialogs
    const files = yield* Files
    const choosers = yield* HeldChoosers
    const state = yield* BrowserState
    const emulation = yield* Emulation
    const safe = yield* SafePaths
    const refs = yield* Refs

    /** The page of a request, with the console/request/dialog observers attached to it. */
    const attached = (profile: string | undefined, targetId: string | undefined) =>
      Effect.tap(pageOf(profile, targetId), ({ page, tab }) =>
        Effect.zipRight(observe.ensureAttached(tab, page), dialogs.ensureAttached(tab, page)))

    /** attached, refused (409) while a dialog held open on the tab holds up its page (the request would wait in it). */
    const attachedFree = (profile: string | undefined, targetId: string | undefined) =>
      Effect.tap(attached(profile, targetId), ({ tab }) => dialogs.free(tab))

    const console = (q: Tab & { readonly level?: string | undefined }) =>
      Effect.gen(function*() {
        const { tab } = yield* attached(q.profile, q.targetId)
        return { targetId: tab.targetId, entries: yield* observe.console(tab, { level: q.level }) }
      })

    const errors = (q: Tab & { readonly clear?: boolean | undefined }) =>
      Effect.gen(function*() {
        const { tab } = yield* attached(q.profile, q.targetId)
        const entries = yield* observe.errors(tab, { clear: q.clear })
        const unarmed = (yield* dialogs.dialogs(tab, { clear: q.clear })).filter((d) => !d.armed)
        return { targetId: tab.targetId, entries, dialogs: unarmed }
      })

    const requests = (
      q: Tab & { readonly filter?: string | undefined; readonly static?: boolean | undefined; readonly clear?: boolean | undefined }
    ) =>
      Effect.gen(function*() {
        const { tab } = yield* attached(q.profile, q.targetId)
        return { targetId: tab.targetId, entries: yield* observe.requests(tab, { filter: q.filter, static: q.static, clear: q.clear }) }
      })

    const request = (q: Tab & { readonly seq: number }) =>
      Effect.gen(function*() {
        const { tab } = yield* attached(q.profile, q.targetId)
        return { targetId: tab.targetId, ...(yield* observe.request(tab, q.seq)) }
      })

    const responseBody = (
      profile: string | undefined,
      r: Tab & {
        readonly url?: string | undefined
        readonly seq?: number | undefined
        readonly maxChars?: number | undefined
        readonly timeoutMs?: number | undefined
      }
    ) =>
      Effect.gen(function*() {
        if ((r.url === undefined) === (r.seq === undefined)) {
          return yield* new InvalidRequest({
            message: "response body: give url (a glob of the URL: the latest response from it) or seq (a request's #n " +
              "from `svc browser requests`), one of them"
          })
        }
        const { tab, page } = yield* attached(profile, r.targetId)
        const maxChars = r.maxChars ?? 200_000
        const body = r.seq !== undefined
          ? yield* observe.responseBodyOf(tab, r.seq, maxChars)
          : yield* observe.responseBody(tab, page, {
            url: r.url!,
            maxChars,
            ...(r.timeoutMs !== undefined ? { timeoutMs: r.timeoutMs } : {})
          })
        return { targetId: tab.targetId, ...body }
      })

    const traceStart = (profile: string | undefined, r: Tab & { readonly screenshots?: boolean | undefined; readonly snapshots?: boolean | undefined }) =>
      Effect.gen(function*() {
        const { tab, page } = yield* attached(profile, r.targetId)
        yield* observe.traceStart(tab.profile, page, {
          ...(r.screenshots !== undefined ? { screenshots: r.screenshots } : {}),
          ...(r.snapshots !== undefined ? { snapshots: r.snapshots } : {})
        })
        return { targetId: tab.targetId, started: true }
      })

    const traceStop = (profile: string | undefined, r: Tab) =>
      Effect.gen(function*() {
        const { tab, page } = yield* attached(profile, r.targetId)
        const stamp = new Date().toISOString().replace(/[:.]/g, "-")
        const dest = yield* safe.trace(`trace-${tab.profile}-${stamp}.zip`)
        const file = yield* observe.traceStop(tab.profile, page, dest)
        return { targetId: tab.targetId, path: file.path, bytes: file.bytes }
      })

    /** How long after a dialog answered by default an arming is taken to be meant for it (see dialog). */
    const RECENT_DIALOG_MS = 5 * 60_000
    const clip = (s: string) => (s.length <= 120 ? s : `${s.slice(0, 120)}…`)

    const dialog = (profile: string | undefined, r: Tab & { readonly accept: boolean; readonly promptText?: string | undefined }) =>
      Effect.gen(function*() {
        const { tab, page } = yield* attached(profile, r.targetId)
        // A dialog the last action left open (it asked to hold it) is the one this answers.
        const answered = yield* dialogs.answerHeld(tab, { accept: r.accept, promptText: r.promptText })
        if (answered !== undefined) {
          const how = answered.answer === "accepted" && answered.promptText !== null
            ? `accepted with the text ${JSON.stringify(answered.promptText)}`
            : answered.answer
          return {
            targetId: tab.targetId,
            armed: false,
            detail: `the ${answered.type} ${JSON.stringify(clip(answered.message))} that held up the tab was ${how}` +
              (answered.error !== null ? `, but it was gone already (${answered.error})` : "")
          }
        }
        const recent = (yield* dialogs.dialogs(tab)).at(-1)
        const wasArmed = (yield* dialogs.armed(tab)) !== undefined
        yield* dialogs.arm(tab, page, { accept: r.accept, ...(r.promptText !== undefined ? { promptText: r.promptText } : {}) })
        // An agent that answers a dialog after the action that opened it (as with Playwright MCP) is told that
        // one was answered already, and how to have it answered this way.
        const late = recent !== undefined && !recent.armed && !wasArmed &&
            Date.now() - Date.parse(recent.timestamp) < RECENT_DIALOG_MS
          ? `; the ${recent.type} ${JSON.stringify(clip(recent.message))} the last action opened was already ${recent.answer} ` +
            "by default (a dialog holds up its page, so svc answers each at once): to answer it this way, repeat that action"
          : ""
        return {
          targetId: tab.targetId,
          armed: true,
          detail: `the next dialog of this tab will be ${r.accept ? "accepted" : "dismissed"}` +
            (r.promptText !== undefined ? ` with the text ${JSON.stringify(r.promptText)}` : "") + late
        }
      })

    const resolveRef = (tab: { readonly profile: string; readonly targetId: string }, page: Parameters<typeof refs.resolve>[1], ref: string) =>
      Effect.map(refs.resolve(tab, page, ref), (r) => ({ ...r, ref }))

    const download = (profile: string | undefined, r: Tab & { readonly ref: string; readonly filename: string }) =>
      Effect.gen(function*() {
        const { tab, page } = yield* attachedFree(profile, r.targetId)
        // Confine the name before anything is clicked.
        yield* safe.download(r.filename)
        return yield* dialogs.refusedIfHeld(tab)(Effect.gen(function*() {
          const target = yield* resolveRef(tab, page, r.ref)
          const saved = yield* files.download(page, target, r.filename)
          yield* refs.settle(tab)
          return { targetId: tab.targetId, ...saved }
        }))
      })

    const waitDownload = (profile: string | undefined, r: Tab & { readonly filename: string; readonly timeoutMs?: number | undefined }) =>
      Effect.gen(function*() {
        const { tab, page } = yield* attached(profile, r.targetId)
        const saved = yield* files.waitForDownload(page, r.filename, r.timeoutMs !== undefined ? { timeoutMs: r.timeoutMs } : {})
        return { targetId: tab.targetId, ...saved }
      })

    const fileChooser = (
      profile: string | undefined,
      r: Tab & { readonly paths: ReadonlyArray<string>; readonly inputRef?: string | undefined; readonly element?: string | undefined }
    ) =>
      Effect.gen(function*() {
        if (r.inputRef !== undefined && r.element !== undefined) {
          return yield* new InvalidRequest({ message: "give --input-ref or --element, not both" })
        }
        const { tab, page } = yield* attachedFree(profile, r.targetId)
        if (r.inputRef !== undefined || r.element !== undefined) {
          return yield* dialogs.refusedIfHeld(tab)(Effect.gen(function*() {
            const target = r.inputRef !== undefined ? yield* resolveRef(tab, page, r.inputRef) : { selector: r.element! }
            const set = yield* files.setInputFiles(page, target, r.paths)
            if (r.inputRef !== undefined) yield* refs.settle(tab)
            return { targetId: tab.targetId, armed: false, detail: `set ${set.paths.length} file(s) on the input` }
          }))
        }
        // The chooser the tab's last action opened, if one is held for this upload; else the next one.
        const real = yield* files.confineAll(r.paths)
        const given = yield* choosers.give(page, real, DEFAULT_CLICK_MS)
        if (given === "one-file") {
          return yield* new InvalidRequest({
            message: `upload: the file chooser the page opened takes one file (its input has no \`multiple\`), not ${real.length}: give one path`
          })
        }
        if (given === "given") {
          return { targetId: tab.targetId, armed: false, detail: `gave ${real.join(", ")} to the file chooser the page opened` }
        }
        const armed = yield* files.armFileChooser(page, r.paths)
        return {
          targetId: tab.targetId,
          armed: true,
          detail: `the next file chooser of this tab gets ${armed.paths.join(", ")}` +
            (armed.replaced ? " (replacing an earlier, unused arming)" : "")
        }
      })

    const cookies = (q: Tab) =>
      Effect.gen(function*() {
        const { tab, page } = yield* pageOf(q.profile, q.targetId)
        const list = yield* state.cookies(page)
        return {
          targetId: tab.targetId,
          cookies: list.cookies
        }
      })

    /**
     * Run one call on the request's page and say what was done. A call that runs in the page itself
     * (`inPage`) would wait in a dialog held open there: it is refused meanwhile (Dialogs.refusedIfHeld).
     */
    const onPage = <A, E>(
      profile: string | undefined,
      targetId: string | undefined,
      call: (page: Parameters<typeof state.cookies>[0]) => Effect.Effect<A, E>,
      done: (a: A) => string,
      inPage = false
    ) =>
      Effect.gen(function*() {
        const { tab, page } = yield* pageOf(profile, targetId)
        const a = yield* (inPage ? dialogs.refusedIfHeld(tab)(call(page)) : call(page))
        return { targetId: tab.targetId, done: done(a) }
      })

    /** An emulation call; its answer also names settings lost when the browser connection was re-made. */
    const emulate = <A, E>(
      profile: string | undefined,
      targetId: string | undefined,
      call: (page: Parameters<typeof state.cookies>[0]) => Effect.Effect<Applied<A>, E>,
      done: (a: Applied<A>) => string
    ) => onPage(profile, targetId, call, (a) => [done(a), ...a.notes].join("; "))

    const storage = (kind: string, q: Tab) =>
      Effect.gen(function*() {
        const { tab, page } = yield* pageOf(q.profile, q.targetId)
        const entries = yield* dialogs.refusedIfHeld(tab)(state.storage(page, kind))
        return { targetId: tab.targetId, kind: kind as "local" | "session", entries }
      })

    const scope = (s: "tab" | "profile") => (s === "tab" ? "this tab" : "every tab of the profile")
    /** `prefers-color-scheme dark, prefers-reduced-motion reduce`; a feature set to none says so. */
    const mediaDone = (r: MediaRequest) =>
      ([
        ["prefers-color-scheme", r.media],
        ["prefers-reduced-motion", r.reducedMotion],
        ["forced-colors", r.forcedColors],
        ["prefers-contrast", r.contrast],
        ["media type", r.type]
      ] as const).filter(([, v]) => v !== undefined).map(([k, v]) => v === "none" ? `${k} as the browser has it` : `${k} ${v}`).join(", ")

    return {
      console,
      errors,
      requests,
      request,
      responseBody,
      traceStart,
      traceStop,
      dialog,
      download,
      waitDownload,
      fileChooser,
      cookies,
      setCookie: (p: string | undefined, r: Tab & { name: string; value: string; url: string }) =>
        onPage(p, r.targetId, (page) => state.setCookie(page, r), () => `set cookie ${r.name} for ${r.url}`),
      clearCookies: (p: string | undefined, r: Tab) =>
        onPage(p, r.targetId, (page) => state.clearCookies(page), (x) => `cleared ${x.cleared} cookie(s)`),
      storage,
      setStorage: (kind: string, p: string | undefined, r: Tab & { key: string; value: string }) =>
        onPage(p, r.targetId, (page) => state.setStorage(page, kind, r.key, r.value), () => `set ${kind} storage ${r.key}`, true),
      clearStorage: (kind: string, p: string | undefined, r: Tab) =>
        onPage(p, r.targetId, (page) => state.clearStorage(page, kind), (x) => `cleared ${x.cleared} ${kind} storage key(s)`, true),
      offline: (p: string | undefined, r: Tab & { offline: boolean }) =>
        emulate(p, r.targetId, (page) => emulation.offline(page, r.offline), (a) =>
          `${r.offline ? "offline" : "online"} (${scope(a.scope)})`),
      headers: (p: string | undefined, r: Tab & { headers: Record<string, string> }) =>
        emulate(p, r.targetId, (page) => emulation.headers(page, r.headers), (a) =>
          `${Object.keys(r.headers).length} extra header(s) on every request (${scope(a.scope)})`),
      credentials: (
        p: string | undefined,
        r: Tab & { user?: string | undefined; pass?: string | undefined; origin?: string | undefined; clear?: boolean | undefined }
      ) =>
        r.clear === true
          ? emulate(p, r.targetId, (page) => emulation.credentials(page, null), () => "HTTP credentials cleared")
          : r.user === undefined || r.pass === undefined
          ? Effect.fail(new InvalidRequest({ message: "set credentials takes user and pass, or clear: true" }))
          : emulate(
            p,
            r.targetId,
            (page) => emulation.credentials(page, { user: r.user!, pass: r.pass!, ...(r.origin !== undefined ? { origin: r.origin } : {}) }),
            (a) => `HTTP credentials set for ${r.user}${a.value?.origin !== undefined ? ` on ${a.value.origin}` : ""} (${scope(a.scope)})`
          ),
      geolocation: (
        p: string | undefined,
        r: Tab & { latitude?: number | undefined; longitude?: number | undefined; accuracy?: number | undefined; origin?: string | undefined; clear?: boolean | undefined }
      ) =>
        r.clear === true
          ? emulate(p, r.targetId, (page) => emulation.geolocation(page, null), () => "geolocation cleared")
          : r.latitude === undefined || r.longitude === undefined
          ? Effect.fail(new InvalidRequest({ message: "set geolocation takes latitude and longitude, or clear: true" }))
          : emulate(
            p,
            r.targetId,
            (page) =>
              emulation.geolocation(page, {
                latitude: r.latitude!,
                longitude: r.longitude!,
                ...(r.accuracy !== undefined ? { accuracy: r.accuracy } : {}),
                ...(r.origin !== undefined ? { origin: r.origin } : {})
              }),
            (a) => `geolocation ${r.latitude}, ${r.longitude} (${scope(a.scope)})`
          ),
      media: (p: string | undefined, r: Tab & MediaRequest) =>
        emulate(p, r.targetId, (page) => emulation.media(page, r), (a) => `${mediaDone(r)} (${scope(a.scope)})`),
      throttle: (p: string | undefined, r: Tab & ThrottleRequest) =>
        emulate(p, r.targetId, (page) => emulation.throttle(page, r), (a) => `${throttleText(a.value)} (${scope(a.scope)})`),
      timezone: (p: string | undefined, r: Tab & { timezone: string }) =>
        emulate(p, r.targetId, (page) => emulation.timezone(page, r.timezone), (a) =>
          `time zone ${a.value ?? "the browser's own (emulation removed)"} (${scope(a.scope)})`),
      locale: (p: string | undefined, r: Tab & { locale: string }) =>
        emulate(p, r.targetId, (page) => emulation.locale(page, r.locale), (a) =>
          `locale ${a.value ?? "the browser's own (emulation removed)"} (${scope(a.scope)})`),
      device: (p: string | undefined, r: Tab & { name: string }) =>
        emulate(p, r.targetId, (page) => emulation.device(page, r.name), (a) =>
          a.value === null
            ? `device: none, the browser's own size, input and user agent (${scope(a.scope)})`
            : `device ${a.value.name}: ${a.value.viewport.width}x${a.value.viewport.height} (${scope(a.scope)})`),
      viewport: (p: string | undefined, r: Tab & { width: number; height: number }) =>
        emulate(p, r.targetId, (page) => emulation.viewport(page, r.width, r.height), (a) =>
          `viewport ${r.width}x${r.height} (${scope(a.scope)})`)
    } as const
  })
}) {}
