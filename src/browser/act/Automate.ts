import { Effect, Option, Scope } from "effect"
import { ConfigStore } from "../../config/ConfigStore.js"
import type { ActionDownload, ActRequest, ActResult, OpenedTab, SnapshotQuery, SnapshotResult } from "../../domain/browser.js"
import { Forbidden, InvalidRequest, NotFound } from "../../domain/errors.js"
import { actionDialog, Dialogs } from "../inspect/Dialogs.js"
import { Actions } from "./Actions.js"
import { BrowserManager } from "../launch/BrowserManager.js"
import { type ActionEffects, LOAD_OUTCOME_MS, SideEffects } from "./SideEffects.js"
import { Capture } from "../snapshot/Capture.js"
import type { Page } from "playwright-core"
import { isUncheckedFailure } from "./messages.js"
import { parseRef, Refs, type ResolvedRef, type TabRef } from "./Refs.js"
import { browserMediaDir, writeMediaFile } from "../snapshot/mediaFiles.js"
import { Files } from "../inspect/Files.js"
import { imageExtension, type ImageType } from "../cdp/png.js"
import { makeFinder, refFinder } from "../snapshot/FindLines.js"
import type { SnapshotOptions } from "../snapshot/SnapshotOptions.js"
import { Snapshots } from "../snapshot/Snapshots.js"
import { readAheadAfterNavigation } from "../snapshot/warmUp.js"
import { TabPages } from "../pages/TabPages.js"
import { TabTurns } from "../pages/TabTurns.js"
import { Tabs } from "../pages/Tabs.js"
import { PlaywrightSessions } from "../pages/Playwright.js"
import { redactSecrets } from "../../domain/redact.js"
import { NavigationPolicy } from "../policy/NavigationPolicy.js"
import { normaliseNavigationUrl } from "./inputs.js"
import { timed } from "../../platform/serverTiming.js"
import type { StylesResult } from "../../domain/styles.js"
import { COMMON_PROPERTIES, computedValue, shownRules } from "../inspect/cssRules.js"
import { styles as readStyles } from "./styles.js"

/** The actions that can open a dialog, a tab or a download, or move the tab: their answer says so. */
const WATCHED: ReadonlySet<ActRequest["kind"]> = new Set([
  "click",
  "clickAt",
  "mouseDown",
  "mouseUp",
  "dragAt",
  "type",
  "typeFocused",
  "press",
  "back",
  "forward",
  "reload",
  "drag",
  "drop",
  "select",
  "fill",
  "evaluate"
])

/**
 * Snapshots with refs, navigation and actions: the tab a request means, its playwright page, its refs
 * resolved (failing fast when stale), then one action. Files (labels, element screenshots, PDFs) land in
 * `<state dir>/media/browser/`, owner-only.
 */
export class Automate extends Effect.Service<Automate>()("svc/Automate", {
  effect: Effect.gen(function*() {
    const store = yield* ConfigStore
    const browsers = yield* BrowserManager
    const capture = yield* Capture
    const refs = yield* Refs
    const snapshots = yield* Snapshots
    const actions = yield* Actions
    const sideEffects = yield* SideEffects
    const files = yield* Files
    const mediaDir = browserMediaDir(store.paths.mediaDir)

    const writeMedia = (prefix: string, ext: string, bytes: Uint8Array) => writeMediaFile(mediaDir, prefix, ext, bytes)

    const tabPages = yield* TabPages
    const dialogs = yield* Dialogs
    const turns = yield* TabTurns

    /** Refused while a dialog held open on the tab holds up its page: the request would wait in it. */
    const pageOf = (profileName: string | undefined, targetId: string | undefined, options?: { readonly forNavigation?: boolean }) =>
      Effect.tap(tabPages.pageOf(profileName, targetId, options), ({ tab }) => dialogs.free(tab))
    /**
     * The same, for what reads the tab over CDP alone (screenshots, aria snapshots): `read` runs once the tab
     * is free, and fails the same way should a dialog be held while it runs (Dialogs.refusedIfHeld).
     */
    const whenCdpTabFree = <A, E, R>(profileName: string | undefined, targetId: string | undefined, read: Effect.Effect<A, E, R>) =>
      Effect.suspend(() =>
        dialogs.anyHeld() || dialogs.anyKeeps()
          ? Effect.flatMap(tabs.resolveTarget(profileName, targetId), ({ profile, target }) =>
            dialogs.refusedIfHeld({ profile: profile.name, targetId: target.targetId })(read))
          : read
      )
    const policy = yield* NavigationPolicy
    const tabs = yield* Tabs
    const sessions = yield* PlaywrightSessions
    /** The new document's first read, done once the agent is quiet (snapshot/warmUp.ts); not waited for. */
    const readAhead = (tab: TabRef, page: Page) =>
      Effect.asVoid(Effect.forkDaemon(readAheadAfterNavigation(turns, sessions.evaluateUtilityDirect, tab, page)))

    /**
     * A new tab at `url` (Tabs.open), whose first document is read ahead like a navigation's. With dialogs
     * "hold", the tab holds its page's dialogs from its first document on, as after a navigation that holds them.
     */
    const open = (profileName: string | undefined, url: string, options: { readonly dialogs?: "answer" | "hold" | undefined } = {}) =>
      Effect.scoped(Effect.gen(function*() {
        const scope = yield* Scope.Scope
        let downloads: Effect.Effect.Success<ReturnType<typeof sideEffects.downloadsDuring>> | undefined
        const beforeLoad = (tab: TabRef, page: Page) =>
          Effect.gen(function*() {
            if (options.dialogs === "hold") yield* dialogs.keepHolding(tab, page)
            downloads = yield* Scope.extend(sideEffects.downloadsDuring(page), scope)
          })
        const result = yield* tabs.open(profileName, url, beforeLoad)
        if ("download" in result) {
          const { download: _, ...tab } = result
          const saved = downloads !== undefined ? yield* downloads.report(LOAD_OUTCOME_MS) : []
          return { ...tab, downloads: saved } satisfies OpenedTab
        }
        const opened = result
        yield* Effect.flatMap(browsers.endpoint(profileName), ({ profile }) => {
          const page = sessions.knownPage(profile.name, opened.targetId)
          return page !== undefined && opened.url !== "about:blank"
            ? readAhead({ profile: profile.name, targetId: opened.targetId }, page)
            : Effect.void
        }).pipe(Effect.ignore)
        return opened satisfies OpenedTab
      }))

    const evaluateAllowed = Effect.flatMap(store.get, (config) =>
      config.browser?.evaluateEnabled === false
        ? Effect.fail(
          new Forbidden({
            message: "JavaScript evaluation is disabled on this gateway (browser.evaluateEnabled is false in svc.json); " +
              "use snapshot refs and actions instead"
          })
        )
        : Effect.void)

    const snapshot = (query: SnapshotQuery) =>
      Effect.gen(function*() {
        const config = yield* store.get
        const roleFlags = query.interactive === true || query.compact === true || query.depth !== undefined ||
          query.selector !== undefined || query.frame !== undefined || query.efficient === true ||
          query.mode === "efficient"
        const configured = config.browser?.snapshotDefaults?.mode
        const format = query.format ?? (roleFlags
          ? "role"
          : configured === "efficient"
          ? "role"
          : configured ?? (browsers.automation.available ? "ai" : "aria"))
        const efficient = query.efficient === true || query.mode === "efficient" ||
          (query.format === undefined && !roleFlags && configured === "efficient")
        if (query.ref !== undefined && query.find !== undefined) {
          return yield* new InvalidRequest({
            message: "--ref shows one element's part of the snapshot, and --find searches the whole of it: pass one of them"
          })
        }
        const finder = query.ref !== undefined
          ? refFinder(query.ref)
          : query.find !== undefined
          ? makeFinder({ find: query.find, regex: query.regex === true })
          : undefined
        if (finder !== undefined && "invalid" in finder) return yield* new InvalidRequest({ message: finder.invalid })
        if (finder !== undefined && query.diff === true) {
          return yield* new InvalidRequest({
            message: `${query.ref !== undefined ? "--ref answers one element's part" : "--find answers only the lines it finds"}, ` +
              "and --diff only the lines that changed: pass one of them"
          })
        }
        if (query.ref !== undefined && format === "aria") {
          return yield* new InvalidRequest({ message: "--ref needs a snapshot with refs: an aria snapshot has none (use --format ai or role)" })
        }
        if (finder === undefined && query.regex === true) {
          return yield* new InvalidRequest({ message: "--regex says how to read --find: give --find <pattern> too" })
        }
        if (format === "aria") {
          if (roleFlags || query.labels === true || query.boxes === true) {
            return yield* new InvalidRequest({
              message: "--format aria takes only --limit and --find; --interactive, --compact, --depth, --selector, --frame, " +
                "--efficient, --labels and --boxes make a role snapshot (drop --format aria, or use --format role)"
            })
          }
          if (query.diff === true) {
            return yield* new InvalidRequest({
              message: "--diff works on ai and role snapshots, whose refs it keeps stable; " +
                (query.format === "aria"
                  ? "drop --format aria"
                  : "this gateway's snapshots default to aria (no automation library, or " +
                    "browser.snapshotDefaults.mode says so): pass --format ai or --format role")
            })
          }
          return yield* whenCdpTabFree(query.profile, query.targetId, capture.ariaSnapshot({ ...query, find: finder }))
        }
        if (format === "ai" && roleFlags) {
          return yield* new InvalidRequest({
            message: "--format ai cannot be combined with --interactive, --compact, --depth, --selector, --frame or " +
              "--efficient, which make a role snapshot (use --format role, or leave --format out)"
          })
        }
        const { page, tab, target } = yield* timed("tab")(pageOf(query.profile, query.targetId))
        const taken = yield* dialogs.refusedIfHeld(tab)(turns.lookingIn(tab)(snapshotOf(target.targetId, tab, page, {
          format,
          limit: query.limit,
          interactive: query.interactive === true,
          compact: query.compact === true,
          depth: query.depth,
          selector: query.selector,
          frame: query.frame,
          efficient,
          labels: query.labels === true,
          boxes: query.boxes === true,
          diff: query.diff === true,
          find: finder
        })))
        if (query.ref !== undefined && taken.found !== undefined && taken.found.matches === 0) {
          return yield* new NotFound({
            message: `ref ${query.ref} is not in the page's snapshot now (the element went, or the page changed since the ` +
              "snapshot that showed it): take a fresh snapshot (`svc browser snapshot`) and use a ref from it"
          })
        }
        return taken
      })

    const snapshotOf = (
      targetId: string,
      tab: TabRef,
      page: Page,
      options: SnapshotOptions & { readonly diff?: boolean | undefined }
    ) =>
      Effect.gen(function*() {
        const out = yield* snapshots.snapshot(tab, page, options)
        const labelsPath = out.labelsPng !== undefined ? yield* writeMedia("labels", "png", out.labelsPng) : undefined
        return {
          format: out.format,
          targetId,
          url: out.url,
          title: out.title,
          snapshot: out.snapshot,
          truncated: out.truncated,
          refs: out.refs,
          stats: out.stats,
          ...(labelsPath !== undefined ? { labelsPath } : {}),
          ...(out.diff !== undefined ? { diff: out.diff } : {}),
          ...(out.found !== undefined ? { found: out.found } : {})
        } satisfies SnapshotResult
      })

    const navigate = (
      profileName: string | undefined,
      request: { url: string; targetId?: string | undefined; dialogs?: "answer" | "hold" | undefined }
    ) =>
      Effect.gen(function*() {
        yield* timed("policy")(policy.check(yield* normaliseNavigationUrl(request.url)))
        // Without a current tab, a navigation goes on in a restarted browser's tab, or in a new one (Tabs.resolveTarget).
        const { page, tab, target } = yield* timed("tab")(pageOf(profileName, request.targetId, { forNavigation: true }))
        yield* dialogs.ensureAttached(tab, page)
        const seq = yield* dialogs.lastSeq(tab)
        // A URL that answers with a file is downloaded (saved as an action's download is); the tab stays.
        const go = Effect.scoped(Effect.gen(function*() {
          const downloads = yield* sideEffects.downloadsDuring(page)
          yield* refs.leaving(tab)
          const r = yield* policy.during(
            `navigate ${redactSecrets(request.url)}`,
            page,
            actions.navigate(page, request.url, { titleOf: sessions.title })
          )
          const saved: ReadonlyArray<ActionDownload> | undefined = r.download === true ? yield* downloads.report(LOAD_OUTCOME_MS) : undefined
          return { ...r, downloads: saved }
        }))
        // Held: the navigation answers once a dialog the loading page opens is held (its load waits for it).
        const r = yield* turns.inTurn(tab)(
          request.dialogs === "hold"
            ? Effect.scoped(Effect.zipRight(dialogs.holding(tab, page), Effect.raceFirst(go, Effect.as(dialogs.whenHeld(tab), undefined))))
            : Effect.zipRight(dialogs.answering(tab), go)
        )
        const opened = (yield* dialogs.since(tab, seq)).map(actionDialog)
        if (r !== undefined && r.download !== true) yield* readAhead(tab, page)
        return {
          targetId: target.targetId,
          url: r?.url ?? page.url(),
          title: r?.title ?? "",
          status: r?.status ?? null,
          ...(opened.length > 0 ? { dialogs: opened } : {}),
          ...(r?.downloads !== undefined ? { downloads: r.downloads } : {})
        }
      })

    /**
     * The tab's snapshot after an action, of the kind its last snapshot was (the default kind for a tab
     * without one); a snapshot that fails does not undo the action, it is said.
     */
    const snapshotAfter = (profileName: string | undefined, targetId: string, tab: TabRef, page: Page, request: ActRequest) =>
      Effect.flatMap(snapshots.lastOptions(tab), (last) =>
        last !== undefined
          ? snapshotOf(targetId, tab, page, { ...last, diff: request.diff === true })
          : snapshot({ profile: profileName, targetId, ...(request.diff === true ? { diff: true } : {}) })
      ).pipe(
        Effect.map((s): { snapshot?: SnapshotResult; snapshotError?: string } => ({ snapshot: s })),
        Effect.catchAll((e) => Effect.succeed({ snapshotError: `the action was done, but its snapshot failed: ${e.message}` })),
        Effect.when(() => request.snapshot === true || request.diff === true),
        Effect.map(Option.getOrElse(() => ({})))
      )

    /**
     * One action on the tab the request means: in the tab's turn (a wait only reads, and may be long: it
     * does not hold up the tab), with the guards of its refs its own. A navigation or new tab it caused that
     * the navigation policy refused makes its answer that refusal (NavigationPolicy.duringAction).
     */
    const act = (profileName: string | undefined, request: ActRequest) =>
      Effect.gen(function*() {
        if (request.kind === "evaluate" || (request.kind === "wait" && request.fn !== undefined)) yield* evaluateAllowed
        // Closing a tab is never refused: a dialog held open on it goes with it.
        const { page, tab, target } = yield* timed("tab")(
          (request.kind === "close" ? tabPages.pageOf : pageOf)(profileName, request.targetId)
        )
        const run = policy.duringAction(request.kind, page, refs.owned(Effect.scoped(actOn(profileName, request, page, tab, target))), {
          close: (targetId) => Effect.ignore(tabs.close(tab.profile, targetId)),
          targets: () => Effect.runPromise(sessions.pageTargets(page))
        })
        return yield* (request.kind === "wait" ? run : turns.inTurn(tab)(run))
      })

    const actOn = (
      profileName: string | undefined,
      request: ActRequest,
      page: Page,
      tab: TabRef,
      target: { readonly targetId: string; readonly url: string }
    ) =>
      Effect.gen(function*() {
        // Watched from before the refs are resolved (the first look runs beside them) to after the action.
        const watch = WATCHED.has(request.kind) ? yield* timed("watch")(sideEffects.watch(tab, page)) : undefined
        // A dialog the action opens stays open for a `dialog` request to answer: the action ends when it opens
        // (the page's thread waits in it, and so would the rest of the action).
        const holds = request.dialogs === "hold" && watch !== undefined
        if (holds) yield* dialogs.holding(tab, page)
        else if (request.dialogs !== "hold") yield* dialogs.answering(tab)
        const resolve = (ref: string, options?: { readonly inLookup?: boolean }) =>
          Effect.map(refs.resolve(tab, page, ref, options), (r) => ({ ...r, ref })).pipe(timed("ref"))
        /**
         * An action on one ref whose check may happen as the action looks for the element: should that check
         * not tell (nothing was done then), the ref is checked the usual way and the action runs again.
         */
        const withRef = <A, E, R>(ref: string, action: (target: ResolvedRef & { readonly ref: string }) => Effect.Effect<A, E, R>) =>
          Effect.flatMap(
            resolve(ref, { inLookup: true }),
            (target) =>
              target.inLookup === true
                ? Effect.catchIf(action(target), isUncheckedFailure, () => Effect.flatMap(resolve(ref), action))
                : action(target)
          )
        const timeout = { timeoutMs: request.timeoutMs }
        let result: unknown = undefined
        // Set by `perform` (a closure: declared wide, so the checker does not take it for always undefined).
        let moved = undefined as { readonly title: string; readonly status?: number } | undefined
        const perform = Effect.gen(function*() {
          switch (request.kind) {
            case "click":
              yield* withRef(request.ref, (target) =>
                actions.click(page, target, {
                  double: request.double,
                  button: request.button,
                  modifiers: request.modifiers,
                  ...timeout
                }))
              break
            case "type":
              yield* withRef(request.ref, (target) =>
                actions.type(page, target, request.text, {
                  submit: request.submit,
                  slowly: request.slowly,
                  ...timeout
                }))
              break
            case "typeFocused":
              yield* actions.typeFocused(page, request.text, { submit: request.submit, slowly: request.slowly, ...timeout })
              break
            case "press":
              yield* actions.press(page, request.key, timeout)
              break
            case "clickAt":
              yield* actions.clickAt(page, request.x, request.y, { double: request.double, button: request.button, ...timeout })
              break
            case "moveAt":
              yield* actions.moveTo(page, request.x, request.y, timeout)
              break
            case "mouseDown":
            case "mouseUp":
              yield* actions.mouseButton(page, request.kind === "mouseDown" ? "down" : "up", { button: request.button, ...timeout })
              break
            case "dragAt":
              yield* actions.dragBetween(page, { x: request.startX, y: request.startY }, { x: request.endX, y: request.endY }, timeout)
              break
            case "back":
            case "forward":
            case "reload":
              yield* refs.leaving(tab)
              moved = yield* actions[request.kind](page, timeout)
              break
            case "text":
              result = yield* withRef(request.ref, (target) => actions.text(page, target, timeout))
              break
            case "value":
              result = yield* actions.value(page, yield* resolve(request.ref), timeout)
              break
            case "hover":
              yield* withRef(request.ref, (target) => actions.hover(page, target, timeout))
              break
            case "scrollIntoView":
              yield* withRef(request.ref, (target) => actions.scrollIntoView(page, target, timeout))
              break
            case "scroll": {
              const { dx = 0, dy = 0, ref } = request
              result = ref !== undefined
                ? yield* withRef(ref, (target) => actions.scroll(page, dx, dy, target, timeout))
                : yield* actions.scroll(page, dx, dy, undefined, timeout)
              break
            }
            case "drag":
              yield* actions.drag(page, yield* resolve(request.startRef), yield* resolve(request.endRef), timeout)
              break
            case "drop": {
              const paths = request.paths ?? []
              const real = paths.length > 0 ? yield* files.confineAll(paths) : []
              yield* withRef(request.ref, (target) => actions.drop(page, target, { files: real, data: request.data }, timeout))
              break
            }
            case "select":
              yield* withRef(request.ref, (target) => actions.select(page, target, request.values, timeout))
              break
            case "fill": {
              const fields = yield* Effect.forEach(request.fields, (f) =>
                Effect.map(resolve(f.ref), (target) => ({ target, type: f.type, value: f.value })))
              yield* actions.fill(page, fields, timeout)
              break
            }
            case "resize":
              yield* actions.resize(page, request.width, request.height, timeout)
              break
            case "wait": {
              // A selector shaped like a ref (`12`, `e3`) means the ref: no CSS selector looks like that.
              const selectorIsRef = request.selector !== undefined && !(parseRef(request.selector) instanceof InvalidRequest)
              const ref = request.ref ?? (selectorIsRef ? request.selector : undefined)
              yield* actions.wait(page, {
                ...request,
                selector: selectorIsRef && request.ref === undefined ? undefined : request.selector,
                target: ref !== undefined ? yield* resolve(ref) : undefined
              })
              break
            }
            case "evaluate":
              result = yield* actions.evaluate(
                page,
                request.fn,
                request.ref !== undefined ? yield* resolve(request.ref) : undefined,
                timeout
              )
              break
            case "close": {
              // Closed as `svc browser close` closes a tab (Tabs.closeLeaving: a close the browser drops is asked
              // again); the tabs left come back with it, for the caller to pick the next one without asking again.
              const left = yield* tabs.closeLeaving(tab.profile, target.targetId, { known: true, withinMs: request.timeoutMs })
              return {
                kind: request.kind,
                targetId: target.targetId,
                url: target.url,
                ...(left !== undefined ? { tabs: left.tabs } : {})
              } satisfies ActResult
            }
          }
          return undefined
        })
        const performed = holds
          ? yield* Effect.raceFirst(perform, Effect.as(dialogs.whenHeld(tab), "held" as const))
          : yield* perform
        if (performed !== undefined && performed !== "held") return performed
        const held = holds && (performed === "held" || (yield* dialogs.held(tab)) !== undefined)
        // Fails when a ref's element changed under the action (it was then stopped before the page saw it).
        // Then the watch's last look at the browser, whose round trip is the guards' release when there was
        // one (see SideEffects.finish): one round trip after the action. With a dialog held open, the guards
        // go once it is answered.
        const mark = sessions.sendMark(page)
        const effects = yield* Effect.zipRight(
          timed("settle")(refs.settle(tab, { later: held })),
          watch !== undefined ? timed("effects")(watch.finish(mark, { holdsDialogs: holds })) : Effect.succeed<ActionEffects>({})
        ).pipe(timed("after"))
        // back, forward and reload say where they went themselves.
        const { navigation, ...others } = effects
        const after = held || (yield* dialogs.held(tab)) !== undefined
          ? {}
          : yield* snapshotAfter(profileName, target.targetId, tab, page, request)
        // A new document and no snapshot of it in the answer: it is read ahead, as after a navigation.
        if ((moved !== undefined || (navigation !== undefined && navigation.sameDocument !== true)) && !("snapshot" in after)) {
          yield* readAhead(tab, page)
        }
        return {
          kind: request.kind,
          targetId: target.targetId,
          url: page.url(),
          ...(moved !== undefined ? { title: moved.title, ...(moved.status !== undefined ? { status: moved.status } : {}) } : {}),
          ...(request.kind === "evaluate"
            ? (result !== undefined ? { result } : {})
            : request.kind === "text" || request.kind === "value" || request.kind === "scroll"
            ? { result: result ?? null }
            : {}),
          ...others,
          ...(navigation !== undefined && moved === undefined ? { navigation } : {}),
          ...after
        } satisfies ActResult
      })

    const highlight = (profileName: string | undefined, request: { ref: string; targetId?: string | undefined }) =>
      Effect.gen(function*() {
        const { page, tab, target } = yield* pageOf(profileName, request.targetId)
        const resolved = yield* Effect.gen(function*() {
          const resolved = yield* refs.resolve(tab, page, request.ref)
          yield* actions.highlight(page, { ...resolved, ref: request.ref })
          yield* refs.settle(tab)
          return resolved
        }).pipe(refs.owned, turns.inTurn(tab), dialogs.refusedIfHeld(tab))
        return { targetId: target.targetId, ref: request.ref, description: resolved.description }
      })

    /** The element's CSS: the computed values asked for (or a common set) and the rules that set them. */
    const styles = (profileName: string | undefined, request: { ref: string; targetId?: string | undefined; properties?: string | undefined }) =>
      Effect.gen(function*() {
        const listed = request.properties?.split(",").map((p) => p.trim().toLowerCase()).filter((p) => p !== "") ?? []
        const asked = listed.length > 0 ? listed : undefined
        const { page, tab, target } = yield* pageOf(profileName, request.targetId)
        const { read, resolved } = yield* Effect.gen(function*() {
          const resolved = yield* refs.resolve(tab, page, request.ref)
          const read = yield* readStyles(page, { ...resolved, ref: request.ref })
          yield* refs.settle(tab)
          return { read, resolved }
        }).pipe(refs.owned, turns.inTurn(tab), dialogs.refusedIfHeld(tab))
        const computed: Record<string, string> = {}
        for (const name of asked ?? COMMON_PROPERTIES) computed[name] = computedValue(read.computed, name) ?? "(not a CSS property)"
        const shown = shownRules(read.rules, asked)
        const result: StylesResult = {
          targetId: target.targetId,
          ref: request.ref,
          description: resolved.description,
          computed,
          ...shown,
          ...(read.rulesUnavailable !== undefined ? { rulesUnavailable: read.rulesUnavailable } : {})
        }
        return result
      })

    const elementScreenshot = (
      profileName: string | undefined,
      request: { ref: string; targetId?: string | undefined; filename?: string | undefined; type?: ImageType | undefined }
    ) =>
      Effect.gen(function*() {
        const type = request.type ?? "png"
        const put = yield* files.destination(request.filename, (image) => writeMedia("element", imageExtension(type), image))
        const { page, tab, target } = yield* pageOf(profileName, request.targetId)
        const shot = yield* Effect.gen(function*() {
          const resolved = yield* refs.resolve(tab, page, request.ref)
          const shot = yield* actions.elementScreenshot(page, { ...resolved, ref: request.ref }, { type })
          yield* refs.settle(tab)
          return shot
        }).pipe(refs.owned, turns.inTurn(tab), dialogs.refusedIfHeld(tab))
        const file = yield* put(shot.image)
        return { path: file, targetId: target.targetId, type, bytes: shot.image.byteLength, width: shot.width, height: shot.height }
      })

    /**
     * A PNG or JPEG of the tab (over CDP, works without the automation library), or of one element by its ref. A
     * filename ending .jpg or .jpeg asks for a JPEG unless the type says otherwise.
     */
    const screenshot = (
      profileName: string | undefined,
      request: {
        targetId?: string | undefined
        fullPage?: boolean | undefined
        ref?: string | undefined
        filename?: string | undefined
        type?: ImageType | undefined
      }
    ) => {
      const type = request.type ?? (request.filename !== undefined && /\.jpe?g$/i.test(request.filename) ? "jpeg" : "png")
      return request.ref !== undefined
        ? elementScreenshot(profileName, { ref: request.ref, targetId: request.targetId, filename: request.filename, type })
        : whenCdpTabFree(
          profileName,
          request.targetId,
          capture.screenshot({ profile: profileName, targetId: request.targetId, fullPage: request.fullPage, filename: request.filename, type })
        )
    }

    const pdf = (profileName: string | undefined, request: { targetId?: string | undefined; filename?: string | undefined }) =>
      Effect.gen(function*() {
        const put = yield* files.destination(request.filename, (pdf) => writeMedia("page", "pdf", pdf))
        const { page, tab, target } = yield* pageOf(profileName, request.targetId)
        const bytes = yield* turns.lookingIn(tab)(actions.pdf(page)).pipe(dialogs.refusedIfHeld(tab))
        const file = yield* put(bytes)
        return { path: file, targetId: target.targetId, bytes: bytes.byteLength }
      })

    return { snapshot, navigate, open, act, highlight, styles, screenshot, elementScreenshot, pdf } as const
  })
}) {}
