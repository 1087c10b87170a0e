import { handleBrowserCommand } from "./browserDomain.js"
import { type ExtensionRequest, type FromExtension, parseFromExtension, type TabInfo, type ToExtension } from "./protocol.js"

// The relay's bookkeeping: one extension connection (the newest wins), the tabs it shares, and the CDP
// clients that drive them. Each client gets its own session id per tab; the extension's debugger has one
// attachment per tab, so commands from every session of a tab go to that attachment and the tab's events go
// to every session on it. Child sessions (iframes, workers) keep the ids the browser gave them. A debugger
// attachment that is new (another epoch) means the tab's protocol state is new: the clients' old sessions
// are detached and auto-attaching clients get a fresh one, as if the target had been re-created.

/** A connection as the hub sees it: a websocket (which serializes each message), or a client in this process. */
export interface Peer {
  readonly send: (message: object) => void
  readonly close: (code: number, reason: string) => void
}

export interface Client {
  readonly peer: Peer
  autoAttach: boolean
  discover: boolean
  /** A page-level socket (/devtools/page/<id>): frames without a sessionId go to this session. */
  implicit: string | undefined
  readonly sessions: Set<string>
  /** Sessions on the browser target itself (Target.attachToBrowserTarget): browser-level commands. */
  readonly browserSessions: Set<string>
}

interface Session {
  readonly id: string
  readonly client: Client
  readonly tabId: number
  readonly targetId: string
  /** Announced with Target.attachedToTarget (auto-attach): its end is announced too. */
  readonly auto: boolean
  epoch: string
  /** The domains this session enabled: the tab's events of other domains are not its business. */
  readonly domains: Set<string>
}

export interface HubOptions {
  /** How long a command waits for its tab's debugger to be (re-)attached. Default 3 s. */
  readonly attachWaitMs?: number
  /** Bound on one request to the extension. Default 30 s. */
  readonly commandTimeoutMs?: number
  /** How long the tabs of an extension that went away are kept for it to come back. Default 10 s. */
  readonly graceMs?: number
  readonly log?: (line: string) => void
}

export class CdpError extends Error {
  constructor(readonly code: number, message: string) {
    super(message)
  }
}

export const DEFAULT_BROWSER_CONTEXT = "svc-relay-context"
const NOT_CONNECTED = "the svc relay extension is not connected: open the browser, check the extension's settings " +
  "(`svc browser extension token`) and click its toolbar icon on a tab"

export class RelayHub {
  private extension: Peer | undefined
  private product = "Chrome/unknown"
  private userAgent = ""
  private readonly tabs = new Map<number, TabInfo & { readonly targetId: string }>()
  private readonly byTarget = new Map<string, number>()
  private readonly sessions = new Map<string, Session>()
  private readonly tabSessions = new Map<number, Set<Session>>()
  /** Child session id (an iframe's or worker's) → its tab. */
  private readonly childSessions = new Map<string, number>()
  private readonly clients = new Set<Client>()
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>()
  private readonly waiters = new Set<() => void>()
  /** `${tabId}:${epoch}` of the debugger attachments with Runtime enabled. */
  private readonly runtimeOn = new Set<string>()
  /** Unanswered commands by tab (`<tabId>`) and child session (`<tabId>/<sessionId>`). */
  private readonly inflight = new Map<string, Set<Promise<unknown>>>()
  private nextRequest = 1
  private nextSession = 1
  private grace: NodeJS.Timeout | undefined
  /** The connected extension's hello was logged (a replacing connection logs its own line instead). */
  private greeted = true
  private readonly attachWaitMs: number
  private readonly commandTimeoutMs: number
  private readonly graceMs: number
  private readonly log: (line: string) => void

  constructor(options: HubOptions = {}) {
    this.attachWaitMs = options.attachWaitMs ?? 3_000
    this.commandTimeoutMs = options.commandTimeoutMs ?? 30_000
    this.graceMs = options.graceMs ?? 10_000
    this.log = options.log ?? (() => undefined)
  }

  // ---------------------------------------------------------------------------------------------- views

  get extensionConnected(): boolean {
    return this.extension !== undefined
  }

  get clientCount(): number {
    return this.clients.size
  }

  version() {
    return { product: this.product, userAgent: this.userAgent }
  }

  /** The shared tabs as CDP target infos, in the order they were shared. */
  targetInfos() {
    return [...this.tabs.values()].map((t) => this.targetInfo(t))
  }

  targetInfo(t: TabInfo & { readonly targetId: string }) {
    return {
      targetId: t.targetId,
      type: "page",
      title: t.title,
      url: t.url,
      attached: true,
      canAccessOpener: false,
      browserContextId: t.browserContextId ?? DEFAULT_BROWSER_CONTEXT
    }
  }

  tabOfTarget(targetId: string) {
    const tabId = this.byTarget.get(targetId)
    return tabId === undefined ? undefined : this.tabs.get(tabId)
  }

  browserContextIds(): Array<string> {
    const ids = new Set([...this.tabs.values()].map((t) => t.browserContextId ?? DEFAULT_BROWSER_CONTEXT))
    return ids.size === 0 ? [DEFAULT_BROWSER_CONTEXT] : [...ids]
  }

  // ---------------------------------------------------------------------------------------------- extension

  connectExtension(peer: Peer): void {
    const old = this.extension
    this.extension = peer
    if (this.grace !== undefined) clearTimeout(this.grace)
    this.grace = undefined
    if (old !== undefined) {
      this.failPending("the extension connection was replaced by a newer one")
      old.close(4000, "a newer connection of the svc relay extension replaced this one")
      this.log("relay: a newer extension connection replaced the older one")
    } else {
      this.greeted = false
    }
    this.toExtension({ type: "clients", count: this.clients.size })
  }

  extensionClosed(peer: Peer): void {
    if (this.extension !== peer) return
    this.extension = undefined
    this.failPending("the extension disconnected")
    this.log("relay: the extension disconnected")
    // Keep the tabs a little while: a worker the browser restarted comes back with them.
    for (const [tabId, t] of this.tabs) this.tabs.set(tabId, { ...t, attached: false })
    this.grace = setTimeout(() => {
      this.grace = undefined
      if (this.extension === undefined) for (const tabId of [...this.tabs.keys()]) this.removeTab(tabId)
    }, this.graceMs)
    this.grace.unref?.()
    this.notify()
  }

  extensionMessage(peer: Peer, text: string): void {
    if (this.extension !== peer) return
    const m = parseFromExtension(text)
    if (m === undefined) return
    this.onExtension(m)
  }

  private onExtension(m: FromExtension): void {
    switch (m.type) {
      case "hello": {
        this.product = m.product
        this.userAgent = m.userAgent
        const listed = new Set(m.tabs.map((t) => t.tabId))
        for (const tabId of [...this.tabs.keys()]) if (!listed.has(tabId)) this.removeTab(tabId)
        for (const t of m.tabs) this.upsertTab(t)
        // Said once the extension's tabs are known (not when its socket opens), so what follows the line
        // sees them as the extension has them.
        if (!this.greeted) this.log(`relay: the extension connected, sharing ${m.tabs.length} tab(s)`)
        this.greeted = true
        return
      }
      case "tab":
        return this.upsertTab(m.tab)
      case "tabGone":
        return this.removeTab(m.tabId)
      case "event":
        return this.routeEvent(m.tabId, m.sessionId, m.method, m.params)
      case "result": {
        const p = this.pending.get(m.id)
        if (p === undefined) return
        this.pending.delete(m.id)
        clearTimeout(p.timer)
        if (m.error !== undefined) p.reject(new CdpError(m.error.code ?? -32000, m.error.message))
        else p.resolve(m.result ?? {})
        return
      }
      case "ping":
        return this.toExtension({ type: "pong" })
    }
  }

  private toExtension(m: ToExtension): void {
    this.extension?.send(m)
  }

  /** A request to the extension, answered by its `result`. */
  request(m: DistributiveOmit<ExtensionRequest, "id">): Promise<unknown> {
    const extension = this.extension
    if (extension === undefined) return Promise.reject(new CdpError(-32000, NOT_CONNECTED))
    const id = this.nextRequest++
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id)
        reject(new CdpError(-32000, `the svc relay extension did not answer ${describe(m)} within ${this.commandTimeoutMs} ms`))
      }, this.commandTimeoutMs)
      this.pending.set(id, { resolve, reject, timer })
      extension.send({ ...m, id })
    })
  }

  private failPending(why: string) {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer)
      p.reject(new CdpError(-32000, why))
      this.pending.delete(id)
    }
  }

  private upsertTab(info: TabInfo): void {
    if (info.targetId === null) return
    const prev = this.tabs.get(info.tabId)
    // The same attachment, but the page changed while the extension was away: its protocol state cannot be
    // trusted (events were missed), so treat it as a new attachment.
    const missedNavigation = prev !== undefined && !prev.attached && info.attached && prev.epoch === info.epoch &&
      prev.url !== info.url
    const tab = { ...info, targetId: info.targetId, epoch: missedNavigation ? `${info.epoch}~` : info.epoch }
    this.tabs.set(info.tabId, tab)
    this.byTarget.set(info.targetId, info.tabId)
    // Sessions of another attachment end now, even while the tab waits to be attached again (a worker the
    // browser restarted has none yet): whatever attaches next is new, so a client's next command goes to the
    // fresh session it will be given instead of waiting on one that is bound to end.
    const stale = [...(this.tabSessions.get(tab.tabId) ?? [])].filter((s) => s.epoch !== tab.epoch)
    for (const s of stale) {
      if (s.client.implicit !== s.id) this.dropSession(s, true)
      else if (tab.attached) s.epoch = tab.epoch! // a page socket stays on its tab
    }
    if (stale.length > 0) {
      for (const [child, tabId] of this.childSessions) if (tabId === tab.tabId) this.childSessions.delete(child)
    }
    if (tab.attached) {
      for (const client of this.clients) {
        if (client.autoAttach && !this.hasSession(client, tab.tabId)) this.attachClient(client, tab)
      }
    }
    for (const client of this.clients) {
      if (!client.discover) continue
      this.emit(client, prev === undefined ? "Target.targetCreated" : "Target.targetInfoChanged", {
        targetInfo: this.targetInfo(tab)
      })
    }
    this.notify()
  }

  private removeTab(tabId: number): void {
    const tab = this.tabs.get(tabId)
    if (tab === undefined) return
    this.tabs.delete(tabId)
    if (this.byTarget.get(tab.targetId) === tabId) this.byTarget.delete(tab.targetId)
    for (const s of [...(this.tabSessions.get(tabId) ?? [])]) {
      if (s.client.implicit === s.id) s.client.peer.close(1000, "the tab is no longer shared")
      this.dropSession(s, true)
    }
    for (const [child, t] of this.childSessions) if (t === tabId) this.childSessions.delete(child)
    for (const key of this.runtimeOn) if (key.startsWith(`${tabId}:`)) this.runtimeOn.delete(key)
    for (const client of this.clients) {
      if (client.discover) this.emit(client, "Target.targetDestroyed", { targetId: tab.targetId })
    }
    this.notify()
  }

  // ---------------------------------------------------------------------------------------------- sessions

  hasSession(client: Client, tabId: number): boolean {
    for (const s of this.tabSessions.get(tabId) ?? []) if (s.client === client && s.auto) return true
    return false
  }

  /** A new session of `client` on the tab. */
  newSession(client: Client, tab: TabInfo & { readonly targetId: string }, auto = false): string {
    const id = `relay-${this.nextSession++}-${tab.tabId}`
    const s: Session = {
      id,
      client,
      tabId: tab.tabId,
      targetId: tab.targetId,
      auto,
      epoch: tab.epoch ?? "",
      domains: new Set()
    }
    this.sessions.set(id, s)
    client.sessions.add(id)
    let set = this.tabSessions.get(tab.tabId)
    if (set === undefined) this.tabSessions.set(tab.tabId, set = new Set())
    set.add(s)
    return id
  }

  /** A session on the browser target (its commands are the browser-level ones). */
  newBrowserSession(client: Client): string {
    const id = `relay-browser-${this.nextSession++}`
    client.browserSessions.add(id)
    return id
  }

  /** Auto-attach: a session, announced with Target.attachedToTarget. */
  attachClient(client: Client, tab: TabInfo & { readonly targetId: string }): void {
    // A client is told of a target once until told it is gone (a library asserts as much).
    for (const s of this.tabSessions.get(tab.tabId) ?? []) if (s.client === client && s.auto) return
    const sessionId = this.newSession(client, tab, true)
    this.emit(client, "Target.attachedToTarget", {
      sessionId,
      targetInfo: this.targetInfo(tab),
      waitingForDebugger: false
    })
  }

  dropSession(s: Session, announce: boolean): void {
    this.sessions.delete(s.id)
    s.client.sessions.delete(s.id)
    this.tabSessions.get(s.tabId)?.delete(s)
    if (announce && s.auto) this.emit(s.client, "Target.detachedFromTarget", { sessionId: s.id, targetId: s.targetId })
  }

  detachSession(client: Client, sessionId: string): boolean {
    const s = this.sessions.get(sessionId)
    if (s === undefined || s.client !== client) return false
    this.dropSession(s, false)
    return true
  }

  // ---------------------------------------------------------------------------------------------- clients

  connectClient(peer: Peer, pageTargetId?: string): Client | undefined {
    const client: Client = {
      peer,
      autoAttach: false,
      discover: false,
      implicit: undefined,
      sessions: new Set(),
      browserSessions: new Set()
    }
    if (pageTargetId !== undefined) {
      const tab = this.tabOfTarget(pageTargetId)
      if (tab === undefined) return undefined
      client.implicit = this.newSession(client, tab)
    }
    this.clients.add(client)
    if (this.clients.size === 1) this.toExtension({ type: "clients", count: 1 })
    return client
  }

  clientClosed(client: Client): void {
    if (!this.clients.delete(client)) return
    for (const id of [...client.sessions]) {
      const s = this.sessions.get(id)
      if (s !== undefined) this.dropSession(s, false)
    }
    // Nobody drives the tabs any more: the extension detaches its debugger, and the banner goes away.
    if (this.clients.size === 0) this.toExtension({ type: "clients", count: 0 })
  }

  /** A client's frame off the wire; one that is not JSON is dropped. */
  clientMessage(client: Client, text: string): void {
    let m: unknown
    try {
      m = JSON.parse(text)
    } catch {
      return
    }
    if (typeof m === "object" && m !== null) this.clientCommand(client, m)
  }

  /** A client's command: answered on its peer (never before this returns), as a browser would answer it. */
  clientCommand(client: Client, m: { id?: unknown; method?: unknown; params?: unknown; sessionId?: unknown }): void {
    if (typeof m.id !== "number" || typeof m.method !== "string") return
    const id = m.id
    const sessionId = typeof m.sessionId === "string" ? m.sessionId : client.implicit
    const params = (typeof m.params === "object" && m.params !== null ? m.params : {}) as Record<string, unknown>
    const answer = sessionId === undefined || client.browserSessions.has(sessionId)
      ? handleBrowserCommand(this, client, m.method, params)
      : this.sessionCommand(client, sessionId, m.method, params)
    const wire = sessionId === undefined || sessionId === client.implicit ? {} : { sessionId }
    answer.then(
      (result) => client.peer.send({ id, result, ...wire }),
      (e: unknown) => {
        const err = e instanceof CdpError ? e : new CdpError(-32000, e instanceof Error ? e.message : String(e))
        client.peer.send({ id, error: { code: err.code, message: err.message }, ...wire })
      }
    )
  }

  private async sessionCommand(client: Client, sessionId: string, method: string, params: unknown): Promise<unknown> {
    const s = this.sessions.get(sessionId)
    if (s !== undefined && s.client === client) {
      // The extension's debugger may not list targets; the relay knows the ones it serves.
      if (method === "Target.getTargets") return { targetInfos: this.targetInfos() }
      if (method.endsWith(".enable")) s.domains.add(method.slice(0, -".enable".length))
      const epoch = s.epoch
      const ready = await this.waitFor(() => {
        const tab = this.tabs.get(s.tabId)
        return tab === undefined || !this.sessions.has(s.id) || (tab.attached && tab.epoch === s.epoch)
      }, this.attachWaitMs)
      const tab = this.tabs.get(s.tabId)
      if (tab === undefined) throw new CdpError(-32001, `session ${sessionId} is gone: its tab is no longer shared with svc`)
      if (!this.sessions.has(s.id)) {
        throw new CdpError(-32001, `session ${sessionId} ended: the tab's debugger was attached anew; attach to the target again`)
      }
      if (!ready || !tab.attached || tab.epoch !== epoch) {
        throw new CdpError(-32000, this.extension === undefined ? NOT_CONNECTED : "the tab's debugger is re-attaching; try again")
      }
      if (method === "Runtime.enable") return this.enableRuntime(tab, params)
      if (method === "Target.setAutoAttach") {
        await this.answeredSoFar(tab.tabId)
        return this.tabCommand(s.tabId, method, params)
      }
      return this.tabCommand(s.tabId, method, params)
    }
    const childTab = this.childSessions.get(sessionId)
    if (childTab !== undefined) {
      const key = `${childTab}/${sessionId}`
      if (method === "Runtime.enable" || method === "Target.setAutoAttach") await this.answeredSoFar(key)
      return this.counted(key, this.request({ type: "command", tabId: childTab, sessionId, method, params }))
    }
    throw new CdpError(-32001, `Session with given id not found: ${sessionId}`)
  }

  /**
   * Runtime.enable on a tab whose debugger has it on already (another client, or an earlier session) would
   * announce no execution contexts, and a client waits for them forever: turn it off and on again, so every
   * session on the tab is told the contexts anew (executionContextsCleared, then one executionContextCreated
   * each), which is what a client that enables Runtime expects.
   */
  /**
   * The extension's answers and events travel apart: a command whose events describe what exists
   * (Runtime.enable: the execution contexts; Target.setAutoAttach: the iframes) sent while earlier commands
   * (the frame tree a client asked for first) are unanswered could have its events arrive before those
   * answers, and a client that does not know the frames yet drops them. Such a command goes once the tab's
   * earlier commands are answered (at most a second: one that waits on the page must not hold it up).
   */
  private answeredSoFar(key: number | string): Promise<unknown> {
    return Promise.race([
      Promise.allSettled([...(this.inflight.get(String(key)) ?? [])]),
      new Promise((r) => setTimeout(r, 1_000))
    ])
  }

  private async enableRuntime(tab: TabInfo, params: unknown): Promise<unknown> {
    await this.answeredSoFar(tab.tabId)
    const key = `${tab.tabId}:${tab.epoch}`
    if (this.runtimeOn.has(key)) await this.tabCommand(tab.tabId, "Runtime.disable", {})
    const result = await this.tabCommand(tab.tabId, "Runtime.enable", params)
    this.runtimeOn.add(key)
    return result
  }

  /** A command on a tab's debugger attachment, counted among the tab's unanswered ones until answered. */
  private tabCommand(tabId: number, method: string, params: unknown): Promise<unknown> {
    return this.counted(String(tabId), this.request({ type: "command", tabId, method, params }))
  }

  /** `p` counted among the unanswered commands of `key` (a tab, or a tab's child session) until it settles. */
  private counted(key: string, p: Promise<unknown>): Promise<unknown> {
    let set = this.inflight.get(key)
    if (set === undefined) this.inflight.set(key, set = new Set())
    set.add(p)
    const done = () => {
      set.delete(p)
      if (set.size === 0 && this.inflight.get(key) === set) this.inflight.delete(key)
    }
    p.then(done, done)
    return p
  }

  // ---------------------------------------------------------------------------------------------- events

  private routeEvent(tabId: number, sessionId: string | undefined, method: string, params: unknown): void {
    if (method === "Target.attachedToTarget") {
      const child = (params as { sessionId?: unknown } | undefined)?.sessionId
      if (typeof child === "string") this.childSessions.set(child, tabId)
    } else if (method === "Target.detachedFromTarget") {
      const child = (params as { sessionId?: unknown } | undefined)?.sessionId
      if (typeof child === "string") this.childSessions.delete(child)
    }
    const sessions = this.tabSessions.get(tabId)
    if (sessions === undefined) return
    if (sessionId !== undefined) {
      const sent = new Set<Client>()
      for (const s of sessions) {
        if (sent.has(s.client)) continue
        sent.add(s.client)
        s.client.peer.send({ method, params, sessionId })
      }
      return
    }
    // One debugger attachment serves every session of the tab: each is sent the events of the domains it
    // enabled, as a browser would (Target's and Inspector's always).
    const domain = method.slice(0, method.indexOf("."))
    const always = domain === "Target" || domain === "Inspector"
    for (const s of sessions) {
      if (!always && !s.domains.has(domain)) continue
      s.client.peer.send(s.client.implicit === s.id ? { method, params } : { method, params, sessionId: s.id })
    }
  }

  emit(client: Client, method: string, params: unknown): void {
    client.peer.send({ method, params })
  }

  // ---------------------------------------------------------------------------------------------- waiting

  private notify(): void {
    for (const w of [...this.waiters]) w()
  }

  /** Resolves true as soon as `ready()` holds (checked at each change), false after `ms`. */
  waitFor(ready: () => boolean, ms: number = this.attachWaitMs): Promise<boolean> {
    if (ready()) return Promise.resolve(true)
    return new Promise((resolve) => {
      const check = () => {
        if (!ready()) return
        this.waiters.delete(check)
        clearTimeout(timer)
        resolve(true)
      }
      const timer = setTimeout(() => {
        this.waiters.delete(check)
        resolve(false)
      }, ms)
      this.waiters.add(check)
    })
  }

  /** Every shared tab attached (or `ms` passed): what a client that starts auto-attaching waits for. */
  waitAllAttached(ms: number = this.attachWaitMs): Promise<boolean> {
    return this.waitFor(() => this.extension !== undefined && [...this.tabs.values()].every((t) => t.attached), ms)
  }

  attachedTabs() {
    return [...this.tabs.values()].filter((t) => t.attached)
  }

  /** Ends every connection (the relay is shutting down). */
  close(): void {
    if (this.grace !== undefined) clearTimeout(this.grace)
    this.failPending("the relay is shutting down")
    for (const client of this.clients) client.peer.close(1001, "the svc gateway is stopping")
    this.extension?.close(1001, "the svc gateway is stopping")
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never

const describe = (m: { readonly type: string; readonly method?: string }) =>
  m.type === "command" && m.method !== undefined ? m.method : m.type
