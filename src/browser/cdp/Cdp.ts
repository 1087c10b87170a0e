import CDP from "chrome-remote-interface"
import type { ProtocolMapping } from "devtools-protocol/types/protocol-mapping.js"
import { Data, Duration, Effect, Either, Layer, RcMap, Schedule, Scope } from "effect"
import { BrowserUnavailable, InvalidRequest, NotFound } from "../../domain/errors.js"
import { isLocalHostname } from "../../platform/loopback.js"
import { parseUserUrl, type UrlProblem } from "../../platform/url.js"
import {
  type AxNode,
  type AxTree,
  DEFAULT_SNAPSHOT_LIMIT,
  documentInfo,
  type FrameGap,
  frameGap,
  iframeOwners,
  MAX_SNAPSHOT_LIMIT,
  renderAriaSnapshot
} from "../snapshot/AriaFormat.js"

// The Chrome DevTools Protocol spoken directly (no automation library): tabs, the accessibility tree,
// screenshots. Everything goes over the browser-level websocket with flat sessions, which works the same for
// a managed Chromium, a remote one behind a proxy (path and query kept) and a bare ws:// endpoint.

export interface CdpEndpoint {
  /** http(s)://host:port[/path][?query] (DevTools HTTP endpoint) or ws(s)://... (the browser websocket). */
  readonly url: string
  /** Bound on each HTTP request to /json/* (config: browser.remoteCdpTimeoutMs). */
  readonly timeoutMs: number
  /** Bound on the websocket handshake (config: browser.remoteCdpHandshakeTimeoutMs). */
  readonly handshakeTimeoutMs: number
  /** Bound on each CDP command; default {@link DEFAULT_COMMAND_TIMEOUT_MS}. */
  readonly commandTimeoutMs?: number | undefined
  /** Whether openTab accepts file: URLs (sensible for the managed browser only). Default false. */
  readonly allowFileUrls?: boolean | undefined
}

export interface CdpTarget {
  readonly targetId: string
  readonly title: string
  readonly url: string
  readonly type: string
}

export interface CdpVersion {
  readonly browser: string
  readonly protocolVersion: string
  readonly webSocketDebuggerUrl: string
}

export interface AriaSnapshot {
  readonly snapshot: string
  readonly nodes: number
  readonly truncated: boolean
  readonly url: string
  readonly title: string
}

export interface Screenshot {
  readonly png: Uint8Array
  readonly width: number
  readonly height: number
}

export interface CdpOptions {
  /** Keep one browser websocket per endpoint open between calls. Default true. */
  readonly reuseConnections?: boolean
  /** How long an unused browser websocket stays open. Default 30 seconds. */
  readonly idleTimeToLive?: Duration.DurationInput
}

export const DEFAULT_COMMAND_TIMEOUT_MS = 15_000
/** Full-page screenshots are clipped to this many CSS pixels in each direction. */
export const MAX_FULL_PAGE_PX = 16_384
/** At most this many iframes are inlined into one snapshot; at most this deep. */
const MAX_FRAMES = 20
const MAX_FRAME_DEPTH = 3

// ---------------------------------------------------------------------------------------------------------
// Typed commands

type Commands = ProtocolMapping.Commands
type Method = keyof Commands
type Params<M extends Method> = Commands[M]["paramsType"] extends [] ? undefined
  : Commands[M]["paramsType"][0]
type Result<M extends Method> = Commands[M]["returnType"]

/** A command the browser answered with an error (as opposed to not answering). */
class CdpProtocolError extends Data.TaggedError("CdpProtocolError")<{
  readonly method: string
  readonly code: number
  readonly message: string
}> {}

type SendError = CdpProtocolError | BrowserUnavailable

interface Connection {
  readonly endpoint: CdpEndpoint
  readonly wsUrl: string
  readonly isOpen: () => boolean
  readonly send: <M extends Method>(
    method: M,
    params?: Params<M>,
    sessionId?: string
  ) => Effect.Effect<Result<M>, SendError>
}

// ---------------------------------------------------------------------------------------------------------
// Messages

const SECRET_KEYS = /token|key|secret|pass|auth|sig/i

/** The endpoint as it may appear in a message or a log: credentials and secret-looking query values hidden. */
export const redactUrl = (raw: string): string => {
  try {
    const u = new URL(raw)
    if (u.password !== "") u.password = "***"
    for (const [k] of u.searchParams) if (SECRET_KEYS.test(k)) u.searchParams.set(k, "***")
    return u.toString()
  } catch {
    return raw
  }
}

const startHint =
  "If it is the managed browser, start it with `svc browser start`; if it is a remote browser, check the profile's cdpUrl and that the browser runs with --remote-debugging-port."

const unreachable = (ep: CdpEndpoint, reason: string) =>
  new BrowserUnavailable({ message: `no browser answers CDP at ${redactUrl(ep.url)} (${reason}). ${startHint}` })

const tabsHint = "run `svc browser tabs` to list the open tabs and their targetIds"

const notFound = (ep: CdpEndpoint, targetId: string) =>
  new NotFound({
    message: `no tab with targetId ${JSON.stringify(targetId)} in the browser at ${redactUrl(ep.url)}; ${tabsHint}`
  })

const describeError = (e: unknown): string => {
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code
    if (code === "ECONNREFUSED") return "connection refused"
    if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "host not found"
    if (code === "ECONNRESET") return "connection reset"
    const cause = (e as { cause?: unknown }).cause
    if (cause !== undefined && cause !== e) return describeError(cause)
    return e.message
  }
  return String(e)
}

// ---------------------------------------------------------------------------------------------------------
// Endpoint URLs

const parseEndpoint = (ep: CdpEndpoint): Effect.Effect<URL, BrowserUnavailable> => {
  try {
    const u = new URL(ep.url)
    if (["http:", "https:", "ws:", "wss:"].includes(u.protocol)) return Effect.succeed(u)
  } catch {
    // fall through
  }
  return Effect.fail(
    new BrowserUnavailable({
      message: `the CDP endpoint ${JSON.stringify(redactUrl(ep.url))} is not an http(s):// or ws(s):// URL; check cdpUrl`
    })
  )
}

/** `<base path>/json/...` keeping the base's query (a remote service's token, for example). */
const jsonUrl = (base: URL, path: string): URL => {
  const u = new URL(base.toString())
  u.pathname = `${u.pathname.replace(/\/+$/, "")}${path}`
  u.hash = ""
  return u
}

/**
 * Browsers (and proxies in front of them) often advertise a websocket on localhost whatever address they
 * were reached at: point it back at the address the endpoint names, and carry the endpoint's query over.
 */
export const rewriteWebSocketUrl = (endpointUrl: string, advertised: string): string => {
  const base = new URL(endpointUrl)
  const ws = new URL(advertised)
  if (isLocalHostname(ws.hostname) && !isLocalHostname(base.hostname)) {
    ws.hostname = base.hostname
    ws.port = base.port
    ws.protocol = base.protocol === "https:" ? "wss:" : "ws:"
  }
  if (ws.search === "" && base.search !== "") ws.search = base.search
  return ws.toString()
}

// ---------------------------------------------------------------------------------------------------------
// HTTP

const httpJson = (ep: CdpEndpoint, base: URL, path: string): Effect.Effect<unknown, BrowserUnavailable> =>
  Effect.async<unknown, BrowserUnavailable>((resume) => {
    const controller = new AbortController()
    let settled = false
    const timer = setTimeout(() => {
      settled = true
      controller.abort()
      resume(
        Effect.fail(
          new BrowserUnavailable({
            message: `the browser at ${redactUrl(ep.url)} did not answer ${path} within ${ep.timeoutMs} ms ` +
              `(browser.remoteCdpTimeoutMs). Check that cdpUrl points at a running browser, or raise ` +
              `browser.remoteCdpTimeoutMs for a slow link.`
          })
        )
      )
    }, ep.timeoutMs)
    const done = (effect: Effect.Effect<unknown, BrowserUnavailable>) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resume(effect)
    }
    fetch(jsonUrl(base, path), { signal: controller.signal, redirect: "follow" })
      .then(async (res) => {
        const body = await res.text()
        if (!res.ok) {
          return done(
            Effect.fail(
              new BrowserUnavailable({
                message: `${redactUrl(ep.url)} answered HTTP ${res.status} for ${path}: it does not look like a ` +
                  `CDP endpoint. Check cdpUrl (it should be the browser's --remote-debugging-port address).`
              })
            )
          )
        }
        try {
          done(Effect.succeed(JSON.parse(body)))
        } catch {
          done(
            Effect.fail(
              new BrowserUnavailable({
                message: `${redactUrl(ep.url)} answered ${path} with something that is not JSON: it does not look ` +
                  `like a CDP endpoint. Check cdpUrl.`
              })
            )
          )
        }
      })
      .catch((e: unknown) => done(Effect.fail(unreachable(ep, describeError(e)))))
    return Effect.sync(() => {
      settled = true
      clearTimeout(timer)
      controller.abort()
    })
  })

const str = (o: unknown, key: string): string | undefined => {
  const v = typeof o === "object" && o !== null ? (o as Record<string, unknown>)[key] : undefined
  return typeof v === "string" ? v : undefined
}

const httpVersion = (ep: CdpEndpoint, base: URL): Effect.Effect<CdpVersion, BrowserUnavailable> =>
  Effect.flatMap(httpJson(ep, base, "/json/version"), (body) => {
    const ws = str(body, "webSocketDebuggerUrl")
    if (ws === undefined) {
      return Effect.fail(
        new BrowserUnavailable({
          message: `${redactUrl(ep.url)}/json/version has no webSocketDebuggerUrl: the browser does not accept ` +
            `CDP clients (is another tool holding it, or is this not a Chromium?). Check cdpUrl.`
        })
      )
    }
    let rewritten: string
    try {
      rewritten = rewriteWebSocketUrl(ep.url, ws)
    } catch {
      return Effect.fail(unreachable(ep, `it advertised an unusable websocket URL ${JSON.stringify(redactUrl(ws))}`))
    }
    return Effect.succeed({
      browser: str(body, "Browser") ?? "unknown",
      protocolVersion: str(body, "Protocol-Version") ?? "unknown",
      webSocketDebuggerUrl: rewritten
    })
  })

// ---------------------------------------------------------------------------------------------------------
// The websocket

/** An empty protocol descriptor: commands go through `client.send`, so the 1 MB local descriptor (about
 * 40 ms to prepare per connection) is not needed. */
const NO_PROTOCOL: CDP.Protocol = { version: { major: "1", minor: "3" }, domains: [] }

const handshake = (ep: CdpEndpoint, wsUrl: string): Effect.Effect<CDP.Client, BrowserUnavailable> =>
  Effect.async<CDP.Client, BrowserUnavailable>((resume) => {
    let settled = false
    const timer = setTimeout(() => {
      settled = true
      resume(
        Effect.fail(
          new BrowserUnavailable({
            message: `the CDP websocket handshake with ${redactUrl(wsUrl)} did not finish within ` +
              `${ep.handshakeTimeoutMs} ms (browser.remoteCdpHandshakeTimeoutMs). The browser may be busy or ` +
              `another client may be holding it; try again or raise browser.remoteCdpHandshakeTimeoutMs.`
          })
        )
      )
    }, ep.handshakeTimeoutMs)
    CDP({ target: wsUrl, protocol: NO_PROTOCOL }).then(
      (client) => {
        // A handshake that finishes after we gave up must not leak its socket.
        if (settled) return void client.close().catch(() => undefined)
        settled = true
        clearTimeout(timer)
        resume(Effect.succeed(client))
      },
      (e: unknown) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        resume(Effect.fail(unreachable(ep, `websocket ${redactUrl(wsUrl)}: ${describeError(e)}`)))
      }
    )
    return Effect.sync(() => {
      settled = true
      clearTimeout(timer)
    })
  })

const closeClient = (client: CDP.Client) =>
  Effect.async<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), 2_000)
    client.close().then(
      () => {
        clearTimeout(timer)
        resume(Effect.void)
      },
      () => {
        clearTimeout(timer)
        resume(Effect.void)
      }
    )
  })

/** Opens the browser-level websocket; the scope closes it. */
const openConnection = (ep: CdpEndpoint): Effect.Effect<Connection, BrowserUnavailable, Scope.Scope> =>
  Effect.gen(function*() {
    const base = yield* parseEndpoint(ep)
    const wsUrl = base.protocol === "ws:" || base.protocol === "wss:"
      ? ep.url
      : (yield* httpVersion(ep, base)).webSocketDebuggerUrl
    const client = yield* Effect.acquireRelease(handshake(ep, wsUrl), closeClient)
    let open = true
    client.on("disconnect", () => {
      open = false
    })
    const commandTimeoutMs = ep.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS

    const send = <M extends Method>(method: M, params?: Params<M>, sessionId?: string) =>
      Effect.async<Result<M>, SendError>((resume) => {
        if (!open) {
          resume(Effect.fail(dropped(ep, method)))
          return
        }
        let settled = false
        const timer = setTimeout(() => {
          settled = true
          resume(
            Effect.fail(
              new BrowserUnavailable({
                message: `the browser at ${redactUrl(ep.url)} did not answer ${method} within ${commandTimeoutMs} ms. ` +
                  `The page may be busy or blocked by a dialog; try again, or check the tab with \`svc browser tabs\`.`
              })
            )
          )
        }, commandTimeoutMs)
        const p = client.send(method as never, (params ?? {}) as never, sessionId as never) as unknown as Promise<
          Result<M>
        >
        p.then(
          (result) => {
            if (settled) return
            settled = true
            clearTimeout(timer)
            resume(Effect.succeed(result))
          },
          (e: unknown) => {
            if (settled) return
            settled = true
            clearTimeout(timer)
            const response = (e as { response?: { code?: unknown; message?: unknown } }).response
            if (response !== undefined && typeof response.message === "string") {
              resume(
                Effect.fail(
                  new CdpProtocolError({
                    method,
                    code: typeof response.code === "number" ? response.code : 0,
                    message: response.message
                  })
                )
              )
            } else {
              resume(Effect.fail(dropped(ep, method)))
            }
          }
        )
        return Effect.sync(() => {
          settled = true
          clearTimeout(timer)
        })
      })

    return { endpoint: ep, wsUrl, isOpen: () => open, send } satisfies Connection
  })

const dropped = (ep: CdpEndpoint, method: string) =>
  new BrowserUnavailable({
    message: `the CDP connection to ${redactUrl(ep.url)} closed while sending ${method}: the browser exited, ` +
      `crashed or dropped the client. Check it with \`svc browser status\`; ${startHint}`
  })

// ---------------------------------------------------------------------------------------------------------
// Sessions and targets

const isNoTarget = (e: CdpProtocolError) => /no target with given id|target not found|no such target/i.test(e.message)

/** Maps a protocol error about `targetId` to NotFound when the target is gone, to BrowserUnavailable otherwise. */
const targetError = (ep: CdpEndpoint, targetId: string) => (e: SendError): NotFound | BrowserUnavailable =>
  e._tag === "CdpProtocolError"
    ? isNoTarget(e)
      ? notFound(ep, targetId)
      : new BrowserUnavailable({ message: `the browser at ${redactUrl(ep.url)} refused ${e.method}: ${e.message}` })
    : e

const protocolToUnavailable = (ep: CdpEndpoint) => (e: SendError): BrowserUnavailable =>
  e._tag === "CdpProtocolError"
    ? new BrowserUnavailable({ message: `the browser at ${redactUrl(ep.url)} refused ${e.method}: ${e.message}` })
    : e

/** The target, if it is a tab (page); NotFound otherwise. */
const requireTab = (conn: Connection, targetId: string) =>
  conn.send("Target.getTargetInfo", { targetId }).pipe(
    Effect.mapError(targetError(conn.endpoint, targetId)),
    Effect.flatMap(({ targetInfo }) =>
      targetInfo.type === "page"
        ? Effect.succeed(targetInfo)
        : Effect.fail(
          new NotFound({
            message: `targetId ${JSON.stringify(targetId)} is a ${targetInfo.type}, not a tab; ${tabsHint}`
          })
        )
    )
  )

/** A flat session on a target, detached when the scope closes. */
const attach = (conn: Connection, targetId: string) =>
  Effect.acquireRelease(
    conn.send("Target.attachToTarget", { targetId, flatten: true }).pipe(
      Effect.map((r) => r.sessionId),
      Effect.mapError(targetError(conn.endpoint, targetId))
    ),
    (sessionId) => Effect.ignore(conn.send("Target.detachFromTarget", { sessionId }))
  )

const toTarget = (t: { targetId: string; title: string; url: string; type: string }): CdpTarget => ({
  targetId: t.targetId,
  title: t.title,
  url: t.url,
  type: t.type
})

// ---------------------------------------------------------------------------------------------------------
// Tab URLs

const TAB_URL_HELP =
  "use an absolute URL such as https://example.com/page (http:, https:, about:blank and data: URLs open; a bare host like example.com becomes https://example.com)"

const tabProblem = (raw: string, problem: UrlProblem): string => {
  switch (problem.kind) {
    case "empty":
      return "the URL is empty"
    case "not-a-url":
      return `${JSON.stringify(raw)} is not a URL`
    case "no-host":
      return `${JSON.stringify(raw)} has no host`
    case "about-page":
      return "of the about: pages only about:blank opens (the others are browser settings)"
    case "scheme":
      return problem.scheme === "file"
        ? "file: URLs open only in the managed browser"
        : `${JSON.stringify(problem.scheme)} URLs cannot be opened in a tab`
  }
}

/**
 * The URL a new tab should open, or why not (see parseUserUrl); file: is accepted only when `allowFile`
 * (the managed browser reads the gateway host's files).
 */
export const normaliseTabUrl = (raw: string, options: { readonly allowFile?: boolean } = {}): string | InvalidRequest =>
  Either.match(parseUserUrl(raw, options), {
    onLeft: (problem) => new InvalidRequest({ message: `${tabProblem(raw, problem)}; ${TAB_URL_HELP}` }),
    onRight: (url) => url
  })

// ---------------------------------------------------------------------------------------------------------
// PNG

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

/** Width and height from a PNG's IHDR chunk, or undefined when the bytes are not a PNG. */
export const pngSize = (png: Uint8Array): { readonly width: number; readonly height: number } | undefined => {
  if (png.length < 24 || PNG_SIGNATURE.some((b, i) => png[i] !== b)) return undefined
  if (String.fromCharCode(png[12]!, png[13]!, png[14]!, png[15]!) !== "IHDR") return undefined
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength)
  return { width: view.getUint32(16), height: view.getUint32(20) }
}

// ---------------------------------------------------------------------------------------------------------
// Accessibility tree across frames

/**
 * The frames inside `nodes`: same-process iframes through `getFullAXTree({ frameId })` on the same session,
 * out-of-process ones by attaching to their own target. Frames beyond the budget or depth become gaps.
 */
const collectFrames = (
  conn: Connection,
  sessionId: string,
  nodes: ReadonlyArray<AxNode>,
  depth: number,
  budget: { remaining: number }
): Effect.Effect<ReadonlyMap<number, AxTree | FrameGap>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const frames = new Map<number, AxTree | FrameGap>()
    for (const backendNodeId of iframeOwners(nodes)) {
      if (depth >= MAX_FRAME_DEPTH) {
        frames.set(backendNodeId, frameGap("nested too deep"))
        continue
      }
      if (budget.remaining <= 0) {
        frames.set(backendNodeId, frameGap(`more than ${MAX_FRAMES} frames`))
        continue
      }
      budget.remaining--
      const tree = yield* frameTree(conn, sessionId, backendNodeId, depth, budget).pipe(
        Effect.catchAll((reason) => Effect.succeed(frameGap(reason)))
      )
      frames.set(backendNodeId, tree)
    }
    return frames
  })

const frameTree = (
  conn: Connection,
  sessionId: string,
  backendNodeId: number,
  depth: number,
  budget: { remaining: number }
): Effect.Effect<AxTree | FrameGap, string, Scope.Scope> =>
  Effect.gen(function*() {
    const described = yield* conn.send("DOM.describeNode", { backendNodeId }, sessionId).pipe(
      Effect.mapError(() => "frame owner is gone")
    )
    const frameId = described.node.frameId
    if (frameId === undefined) return frameGap("no frame document")
    const local = yield* conn.send("Accessibility.getFullAXTree", { frameId }, sessionId).pipe(Effect.option)
    if (local._tag === "Some") {
      const frames = yield* collectFrames(conn, sessionId, local.value.nodes, depth + 1, budget)
      return { nodes: local.value.nodes, frames }
    }
    // An out-of-process iframe is its own target, whose id is the frame id. Chromium creates the DevTools
    // host of such a frame lazily: listing the targets makes it exist, so the attach below can find it.
    const listed = yield* conn.send("Target.getTargets").pipe(
      Effect.map((r) => r.targetInfos.some((t) => t.targetId === frameId)),
      Effect.orElseSucceed(() => false)
    )
    if (!listed) return frameGap("frame is not a reachable target")
    const child = yield* attach(conn, frameId).pipe(
      Effect.mapError((e) => `frame is not reachable: ${e.message}`)
    )
    const remote = yield* conn.send("Accessibility.getFullAXTree", {}, child).pipe(
      Effect.mapError(() => "frame did not give its accessibility tree")
    )
    const frames = yield* collectFrames(conn, child, remote.nodes, depth + 1, budget)
    return { nodes: remote.nodes, frames }
  })

// ---------------------------------------------------------------------------------------------------------
// The service

const connectionKey = (ep: CdpEndpoint) =>
  Data.struct({
    url: ep.url,
    timeoutMs: ep.timeoutMs,
    handshakeTimeoutMs: ep.handshakeTimeoutMs,
    commandTimeoutMs: ep.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS
  })
type ConnectionKey = ReturnType<typeof connectionKey>

export const makeCdp = (options: CdpOptions = {}) =>
  Effect.gen(function*() {
    const reuse = options.reuseConnections ?? true
    const connections = yield* RcMap.make({
      lookup: (key: ConnectionKey) => openConnection({ ...key }),
      idleTimeToLive: options.idleTimeToLive ?? Duration.seconds(30)
    })

    /** A live browser connection for the scope: a cached one when reuse is on (reopened if it dropped). */
    const connection = (ep: CdpEndpoint): Effect.Effect<Connection, BrowserUnavailable, Scope.Scope> => {
      if (!reuse) return openConnection(ep)
      const key = connectionKey(ep)
      const get = RcMap.get(connections, key).pipe(
        // A failed open must not be remembered for the idle TTL.
        Effect.tapError(() => RcMap.invalidate(connections, key))
      )
      return Effect.flatMap(
        get,
        (conn) => conn.isOpen() ? Effect.succeed(conn) : Effect.zipRight(RcMap.invalidate(connections, key), get)
      )
    }

    const withConnection = <A, E>(ep: CdpEndpoint, f: (conn: Connection) => Effect.Effect<A, E, Scope.Scope>) =>
      Effect.scoped(Effect.flatMap(connection(ep), f))

    const version = Effect.fn("Cdp.version")(function*(ep: CdpEndpoint) {
      const base = yield* parseEndpoint(ep)
      if (base.protocol === "http:" || base.protocol === "https:") return yield* httpVersion(ep, base)
      return yield* withConnection(ep, (conn) =>
        conn.send("Browser.getVersion").pipe(
          Effect.mapError(protocolToUnavailable(ep)),
          Effect.map((v): CdpVersion => ({
            browser: v.product,
            protocolVersion: v.protocolVersion,
            webSocketDebuggerUrl: ep.url
          }))
        ))
    })

    const listTargets = (conn: Connection) =>
      conn.send("Target.getTargets").pipe(
        Effect.mapError(protocolToUnavailable(conn.endpoint)),
        Effect.map((r) => r.targetInfos)
      )

    const listTabs = Effect.fn("Cdp.listTabs")(function*(ep: CdpEndpoint) {
      return yield* withConnection(ep, (conn) =>
        Effect.map(listTargets(conn), (targets) => targets.filter((t) => t.type === "page").map(toTarget)))
    })

    const openTab = Effect.fn("Cdp.openTab")(function*(ep: CdpEndpoint, url: string) {
      const target = normaliseTabUrl(url, { allowFile: ep.allowFileUrls === true })
      if (typeof target !== "string") return yield* target
      return yield* withConnection(ep, (conn) =>
        Effect.gen(function*() {
          const { targetId } = yield* conn.send("Target.createTarget", { url: target }).pipe(
            Effect.mapError(protocolToUnavailable(ep))
          )
          const info = yield* conn.send("Target.getTargetInfo", { targetId }).pipe(
            Effect.map((r) => toTarget(r.targetInfo)),
            Effect.orElseSucceed((): CdpTarget => ({ targetId, title: "", url: target, type: "page" }))
          )
          return info
        }))
    })

    const activateTab = Effect.fn("Cdp.activateTab")(function*(ep: CdpEndpoint, targetId: string) {
      yield* withConnection(ep, (conn) =>
        Effect.zipRight(
          requireTab(conn, targetId),
          conn.send("Target.activateTarget", { targetId }).pipe(Effect.mapError(targetError(ep, targetId)))
        ))
    })

    const closeTab = Effect.fn("Cdp.closeTab")(function*(ep: CdpEndpoint, targetId: string) {
      yield* withConnection(ep, (conn) =>
        Effect.gen(function*() {
          yield* requireTab(conn, targetId)
          yield* conn.send("Target.closeTarget", { targetId }).pipe(Effect.mapError(targetError(ep, targetId)))
          // Closing runs the page's unload handlers first: wait (briefly) until the tab is really gone, so a
          // listing right after does not show it.
          const gone = listTargets(conn).pipe(
            Effect.map((ts) => !ts.some((t) => t.targetId === targetId)),
            Effect.orElseSucceed(() => true)
          )
          yield* gone.pipe(
            Effect.repeat({ until: (g) => g, schedule: spacedForAWhile }),
            Effect.ignore
          )
        }))
    })

    const ariaSnapshot = Effect.fn("Cdp.ariaSnapshot")(function*(
      ep: CdpEndpoint,
      targetId: string,
      opts: { readonly limit?: number | undefined }
    ) {
      const limit = Math.min(MAX_SNAPSHOT_LIMIT, Math.max(1, Math.floor(opts.limit ?? DEFAULT_SNAPSHOT_LIMIT)))
      return yield* withConnection(ep, (conn) =>
        Effect.gen(function*() {
          const info = yield* requireTab(conn, targetId)
          const sessionId = yield* attach(conn, targetId)
          const { nodes } = yield* conn.send("Accessibility.getFullAXTree", {}, sessionId).pipe(
            Effect.mapError(targetError(ep, targetId))
          )
          const frames = yield* collectFrames(conn, sessionId, nodes, 0, { remaining: MAX_FRAMES })
          const rendered = renderAriaSnapshot({ nodes, frames }, { limit })
          const doc = documentInfo(nodes)
          const result: AriaSnapshot = {
            snapshot: rendered.text,
            nodes: rendered.nodes,
            truncated: rendered.truncated,
            url: doc.url ?? info.url,
            title: doc.title ?? info.title
          }
          return result
        }))
    })

    const screenshot = Effect.fn("Cdp.screenshot")(function*(
      ep: CdpEndpoint,
      targetId: string,
      opts: { readonly fullPage?: boolean | undefined }
    ) {
      return yield* withConnection(ep, (conn) =>
        Effect.gen(function*() {
          yield* requireTab(conn, targetId)
          const sessionId = yield* attach(conn, targetId)
          const failed = targetError(ep, targetId)
          // Headless Chromium (156, --headless=new) does not always paint a background tab, and then
          // captureScreenshot never answers (measured: 2 of 5 background captures hung): bring it to front.
          yield* conn.send("Page.bringToFront", undefined, sessionId).pipe(Effect.mapError(failed))
          let params: Params<"Page.captureScreenshot"> = { format: "png" }
          if (opts.fullPage === true) {
            const metrics = yield* conn.send("Page.getLayoutMetrics", undefined, sessionId).pipe(Effect.mapError(failed))
            const width = Math.min(MAX_FULL_PAGE_PX, Math.ceil(metrics.cssContentSize.width))
            const height = Math.min(MAX_FULL_PAGE_PX, Math.ceil(metrics.cssContentSize.height))
            if (width > 0 && height > 0) {
              params = { format: "png", captureBeyondViewport: true, clip: { x: 0, y: 0, width, height, scale: 1 } }
            }
          }
          const { data } = yield* conn.send("Page.captureScreenshot", params, sessionId).pipe(Effect.mapError(failed))
          const buf = Buffer.from(data, "base64")
          const png = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength)
          const size = pngSize(png)
          if (size === undefined) {
            return yield* new BrowserUnavailable({
              message: `the browser at ${redactUrl(ep.url)} returned a screenshot that is not a PNG`
            })
          }
          const result: Screenshot = { png, width: size.width, height: size.height }
          return result
        }))
    })

    return { version, listTabs, openTab, activateTab, closeTab, ariaSnapshot, screenshot } as const
  })

const spacedForAWhile = Schedule.spaced(Duration.millis(25)).pipe(Schedule.upTo(Duration.seconds(2)))

export class Cdp extends Effect.Service<Cdp>()("svc/Cdp", {
  scoped: makeCdp()
}) {
  /** The service with explicit options (for example without connection reuse, to compare). */
  static readonly layer = (options: CdpOptions): Layer.Layer<Cdp> =>
    Layer.scoped(Cdp, Effect.map(makeCdp(options), (impl) => Cdp.make(impl)))
}
