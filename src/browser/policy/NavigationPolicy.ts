import { Effect, type Scope } from "effect"
import type { Page } from "playwright-core"
import { ConfigStore } from "../../config/ConfigStore.js"
import type { SvcConfig } from "../../config/SvcConfig.js"
import { NavigationBlocked } from "../../domain/errors.js"
import { isLocalHostname } from "../../platform/loopback.js"
import { BrowserManager } from "../launch/BrowserManager.js"
import { interfaceAddresses } from "./addresses.js"
import { checkUrl, type Decision, effectivePort, type PolicySettings } from "./checkUrl.js"
import { type HostPattern, parseHostPattern } from "./hostPattern.js"

// The navigation policy as a service: its settings read from svc.json (browser.allowedDomains,
// blockedDomains, allowFileUrls) and the gateway's ports, the decision for a URL, and a short log of the
// navigations it refused on the way (redirects, links, new tabs), so the request that caused one can say so.

/** A main-frame navigation the routing refused. */
export interface BlockedNavigation {
  readonly seq: number
  /** The page whose navigation it was; undefined for a new tab's first load (the library has no page yet). */
  readonly page: Page | undefined
  /** For a new tab: the page that opened it. */
  readonly opener: Page | undefined
  readonly url: string
  readonly decision: Extract<Decision, { allowed: false }>
  /** Whether the refused navigation was a new tab, which was then closed. */
  readonly closedTab: boolean
}

const LOG_SIZE = 100

/** A tab as an action's answer (and the browser) lists it. */
interface NewTab {
  readonly targetId: string
  readonly url: string
}

const patterns = (list: ReadonlyArray<string> | undefined): ReadonlyArray<HostPattern> =>
  (list ?? []).flatMap((raw) => {
    const p = parseHostPattern(raw)
    return p._tag === "Right" ? [p.right] : [] // svc.json was validated when it was loaded
  })

/** The port of a DevTools endpoint on this machine (the policy's reading of a URL's port); undefined for one elsewhere. */
const loopbackPort = (url: string): number | undefined => {
  try {
    const u = new URL(url)
    return isLocalHostname(u.hostname) ? effectivePort(u) : undefined
  } catch {
    return undefined
  }
}

export class NavigationPolicy extends Effect.Service<NavigationPolicy>()("svc/NavigationPolicy", {
  scoped: Effect.gen(function*() {
    const store = yield* ConfigStore
    const browsers = yield* BrowserManager
    const interfaces = interfaceAddresses()
    const fixedPorts = [
      { port: store.ports.gateway, name: "gateway" },
      { port: store.ports.control, name: "browser control" },
      { port: store.ports.relay, name: "extension relay" }
    ]
    // A managed browser with no cdpPort in svc.json (the default) opens its DevTools on a port it chooses:
    // svc's own too, from its start to its stop. Those who act on the policy's ports are told of each change.
    const launched = new Map<string, number>()
    let cached: { readonly config: SvcConfig; readonly settings: PolicySettings } | undefined
    const portsListeners = new Set<() => void>()
    const launchedChanged = () => {
      cached = undefined
      for (const listener of portsListeners) listener()
    }
    yield* browsers.whenStarted((profile, endpoint) =>
      Effect.sync(() => {
        const port = loopbackPort(endpoint.url)
        if (port === undefined || launched.get(profile) === port) return
        launched.set(profile, port)
        launchedChanged()
      })
    )
    yield* browsers.onStop((profile) => Effect.sync(() => launched.delete(profile) && launchedChanged()))

    const settingsOf = (config: SvcConfig): PolicySettings => {
      if (cached?.config === config) return cached.settings
      const cdpPorts = Object.entries(config.browser?.profiles ?? {}).flatMap(([name, p]) =>
        p.cdpPort !== undefined ? [{ port: p.cdpPort, name: `DevTools (profile "${name}")` }] : []
      )
      const chosen = [...launched].map(([name, port]) => ({ port, name: `DevTools (profile "${name}")` }))
      const settings: PolicySettings = {
        allowedDomains: patterns(config.browser?.allowedDomains),
        blockedDomains: patterns(config.browser?.blockedDomains),
        allowFileUrls: config.browser?.allowFileUrls === true,
        ownPorts: [...fixedPorts, ...cdpPorts, ...chosen],
        interfaces
      }
      cached = { config, settings }
      return settings
    }

    /** Calls `listener` whenever svc's own ports change (a browser svc launched started or stopped), while the scope is open. */
    const onOwnPortsChange = (listener: () => void): Effect.Effect<void, never, Scope.Scope> =>
      Effect.acquireRelease(
        Effect.sync(() => void portsListeners.add(listener)),
        () => Effect.sync(() => void portsListeners.delete(listener))
      )

    /** The settings in force now (svc.json as the gateway holds it). */
    const settings = Effect.map(store.get, settingsOf)

    /** The policy's answer for a URL. */
    const decide = (url: string) => Effect.map(settings, (s) => checkUrl(s, url))

    /** Fails with NavigationBlocked (403) when the policy refuses the URL. */
    const check = (url: string) =>
      Effect.flatMap(decide(url), (d) =>
        d.allowed ? Effect.void : Effect.fail(new NavigationBlocked({ message: d.message, rule: d.rule })))

    let seq = 0
    const log: Array<BlockedNavigation> = []

    /** Notes a navigation the routing refused (called from the library's callbacks). */
    const record = (entry: Omit<BlockedNavigation, "seq">) => {
      log.push({ ...entry, seq: ++seq })
      if (log.length > LOG_SIZE) log.splice(0, log.length - LOG_SIZE)
    }

    /** Where the log stands now: pass it to `refusedSince` after the request's work. */
    const mark = Effect.sync(() => seq)

    /**
     * The navigations refused since `mark` in the page, or in tabs it opened (with `newTabs`, also first loads
     * of new tabs whose opener was not known: the request that saw its action open a tab claims them); with
     * `waitMs`, waits that long for one to be reported when there is none yet.
     */
    const refusedSince = (
      mark: number,
      page: Page,
      options: {
        readonly newTabs?: boolean
        readonly waitMs?: number
        /** Stops the wait early: nothing more is coming. */
        readonly settled?: () => Promise<boolean>
      } = {}
    ) =>
      Effect.promise(async () => {
        const deadline = Date.now() + (options.waitMs ?? 0)
        while (true) {
          const found = log.filter((e) =>
            e.seq > mark && (e.page === page || e.opener === page || (options.newTabs === true && e.page === undefined))
          )
          if (found.length > 0 || Date.now() >= deadline) return found
          if (options.settled !== undefined && (await options.settled().catch(() => true))) return found
          await new Promise((resolve) => setTimeout(resolve, 25))
        }
      })

    /**
     * Runs a navigation of the page (navigate, open's first load): when the policy refused where it went on
     * the way (a redirect hop), fails with that refusal instead of the load's own failure.
     */
    const during = <A, E, R>(what: string, page: Page, run: Effect.Effect<A, E, R>) =>
      Effect.gen(function*() {
        const since = seq
        const outcome = yield* Effect.either(run)
        const refused = yield* refusedSince(since, page)
        if (refused.length > 0) return yield* blockedOnTheWay(what, refused)
        return outcome._tag === "Right" ? outcome.right : yield* Effect.fail(outcome.left)
      })

    /**
     * Runs an action on the page: when a navigation or a new tab it caused was refused, the action was done
     * and its answer is the refusal (the tab stays on its page; a refused new tab is closed with `close`).
     * `targets` asks the browser for its tabs: a new tab with no URL yet may be one whose first load the
     * routing is refusing, and is waited for (up to 2 s) until it has a URL or is refused.
     */
    const duringAction = <A, E, R>(
      kind: string,
      page: Page,
      run: Effect.Effect<A, E, R>,
      helpers: {
        readonly close: (targetId: string) => Effect.Effect<void>
        readonly targets: () => Promise<ReadonlyArray<NewTab> | undefined>
      }
    ) =>
      Effect.gen(function*() {
        const since = seq
        const outcome = yield* Effect.either(run)
        const answered = outcome._tag === "Right" ? (outcome.right as { readonly newTabs?: ReadonlyArray<NewTab> }) : {}
        const newTabs = answered.newTabs ?? []
        const unsettled = newTabs.filter((t) => t.url === "")
        const refused = yield* refusedSince(since, page, {
          newTabs: unsettled.length > 0,
          waitMs: unsettled.length > 0 ? 2_000 : 0,
          settled: async () => {
            const now = await helpers.targets()
            return unsettled.every((t) => (now ?? []).some((x) => x.targetId === t.targetId && x.url !== ""))
          }
        })
        if (refused.length > 0) {
          const closed = refused.some((e) => e.page === undefined)
          if (closed) yield* Effect.forEach(unsettled, (t) => helpers.close(t.targetId))
          return yield* blockedOnTheWay(`${kind} was done, but${closed ? " it opened a new tab" : ""}`, refused, closed)
        }
        if (outcome._tag === "Left") return yield* Effect.fail(outcome.left)
        // A new tab whose refused first load nothing stopped (no list set, so no routing) or reported yet:
        // closed and said here, with the URL it has now when the action's answer had none yet.
        const now = unsettled.length > 0 ? (yield* Effect.promise(helpers.targets)) ?? [] : []
        const current = newTabs.map((t) => t.url !== "" ? t : now.find((x) => x.targetId === t.targetId) ?? t)
        for (const opened of current.filter((t) => t.url !== "")) {
          const decision = checkUrl(settingsOf(yield* store.get), opened.url)
          if (!decision.allowed) {
            yield* helpers.close(opened.targetId)
            return yield* new NavigationBlocked({
              rule: decision.rule,
              message: `${kind} was done, but it opened a new tab: ${decision.message}; the new tab was closed`
            })
          }
        }
        return outcome.right
      })

    return { settings, onOwnPortsChange, decide, check, record, mark, refusedSince, during, duringAction } as const
  })
}) {}

/** The error a request answers with when a navigation it caused was refused on the way. */
export const blockedOnTheWay = (
  what: string,
  refused: ReadonlyArray<BlockedNavigation>,
  closedTab = false
): NavigationBlocked => {
  // The document interception and the routing may both have seen one navigation: the fuller entry wins.
  const first = refused.find((e) => e.closedTab) ?? refused[0]!
  const tab = first.closedTab || closedTab ? "; the new tab was closed" : ""
  return new NavigationBlocked({ rule: first.decision.rule, message: `${what}: ${first.decision.message}${tab}` })
}
