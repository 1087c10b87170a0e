import { Effect, Either, Option, ParseResult, Schema } from "effect"
import { type ControlClient, withNode } from "../../client/ControlClient.js"
import { hintsFor } from "../../client/hints.js"
import { describeIssues } from "../../client/issues.js"
import { ActRequest, type Tab } from "../../domain/browser.js"
import { type BrowserToolActRequest, BrowserToolFillField, BrowserToolParams } from "../../domain/browserTool.js"
import { type ConnectedNode, type Route, routeBrowserCall } from "./targetRouting.js"
import { loadedStateLine, savedStateLine } from "../../client/storageState.js"
import { routeLines } from "../../client/routes.js"
import { propertiesParam, stylesText } from "../../client/styles.js"
import { actText, errorResult, fileUrlLines, foundText, jsonText, navigateText, snapshotText, textResult, type ToolResult } from "./toolResult.js"

// The agent tool `browser`: one call decoded against the tool's Schema, routed to a browser
// (targetRouting.ts), then one or more calls of the control API through its typed client: the same
// services as every other surface, never a second implementation.

/** Who calls, and the settings routing reads. */
export interface BrowserToolSession {
  readonly sandboxed: boolean
  readonly allowHostControl: boolean
  readonly nodesMode: "auto" | "off"
  /** The node hosts connected now; left out, the tool asks the gateway (`GET /nodes`) when routing needs them. */
  readonly nodes?: (() => ReadonlyArray<ConnectedNode>) | undefined
}

/** Whether routing this call can pick a node (so the connected nodes are worth asking for). */
const mayUseNodes = (p: BrowserToolParams, session: BrowserToolSession) =>
  p.target === "node" || p.node !== undefined ||
  (p.target === undefined && !session.sandboxed && p.profile === undefined && session.nodesMode === "auto")

const decodeParams = Schema.decodeUnknownEither(BrowserToolParams, { errors: "all", onExcessProperty: "error" })
const decodeAct = Schema.decodeUnknownEither(ActRequest, { errors: "all" })

/** A ParseError as one line a model can fix: each property it is about, once, with what it takes. */
const problems = (e: ParseResult.ParseError): string => describeIssues(ParseResult.ArrayFormatter.formatErrorSync(e))

const agentHints = hintsFor("agent")

/** A failure of the control API (tagged, with a message) or of reaching it, as the tool's error text. */
const failure = (e: unknown): ToolResult => {
  const tagged = e as { readonly _tag?: string; readonly message?: string }
  if (tagged._tag === "RequestError" || tagged._tag === "ResponseError") {
    return errorResult(`the svc gateway did not answer (${tagged.message ?? tagged._tag}); is it running? (svc gateway run)`)
  }
  // The gateway's hints name CLI commands: the model is told them as actions of this tool.
  return errorResult(agentHints(`${tagged._tag ?? "Error"}: ${tagged.message ?? String(e)}`))
}

class Missing extends Error {}

const need = <A>(value: A | undefined, what: string, action: string): A => {
  if (value === undefined) throw new Missing(`action ${action} needs ${what}`)
  return value
}

/** The tool's flat act request as the control API's: fields of other kinds are refused by its schema. */
const toActRequest = (r: BrowserToolActRequest, targetId: string | undefined, after: { readonly snapshot?: boolean | undefined; readonly diff?: boolean | undefined }) => {
  const fields = r.fields?.map((f: typeof BrowserToolFillField.Type) => ({
    ...f,
    value: f.type === "checkbox" || f.type === "radio"
      ? f.value === "true"
      : f.type === "slider" && f.value.trim() !== "" && !Number.isNaN(Number(f.value))
      ? Number(f.value)
      : f.value
  }))
  const { fields: _fields, ...rest } = r
  return decodeAct({
    ...rest,
    ...(fields !== undefined ? { fields } : {}),
    ...(targetId !== undefined ? { targetId } : {}),
    ...(after.snapshot === true ? { snapshot: true } : {}),
    ...(after.diff === true ? { diff: true } : {})
  })
}

/** After a close: the tabs left, so the model can pick the next without listing them, and which is current if one is. */
const leftAfterClose = (tabs: ReadonlyArray<Tab> | undefined): string => {
  if (tabs === undefined) return ""
  if (tabs.length === 0) return "; no tabs are left (action open starts one)"
  const lines = tabs.map((t) => `${t.targetId} ${t.url}`).join("\n")
  const current = tabs.find((t) => t.current)
  return current === undefined
    ? `; no tab is current: pass a targetId or focus one of the tabs left:\n${lines}`
    : `; the current tab is still ${current.targetId}; the tabs left:\n${lines}`
}

/** How long the list of connected node hosts is trusted for auto-routing. */
const NODES_FRESH_MS = 1_000

/**
 * The tool over a gateway's typed client; `readFile` gives the bytes of a file the gateway wrote (its
 * screenshots), which are on this machine.
 */
export const makeBrowserTool = (client: ControlClient, readFile: (path: string) => Effect.Effect<Uint8Array, unknown>) => {
  const run = (raw: unknown, session: BrowserToolSession): Effect.Effect<ToolResult> =>
    Effect.gen(function*() {
      const decoded = decodeParams(raw)
      if (Either.isLeft(decoded)) return errorResult(`invalid browser call: ${problems(decoded.left)}`)
      const p = decoded.right
      const nodes = session.nodes !== undefined
        ? session.nodes()
        : mayUseNodes(p, session)
        ? yield* recentNodes
        : []
      const routed = routeBrowserCall({
        sandboxed: session.sandboxed,
        target: p.target,
        node: p.node,
        profile: p.profile,
        allowHostControl: session.allowHostControl,
        nodesMode: session.nodesMode,
        nodes
      })
      if (Either.isLeft(routed)) return errorResult(routed.left)
      return yield* onRoute(routed.right, p)
    })

  /** The node hosts connected to the gateway (none when it cannot say). */
  const connectedNodes: Effect.Effect<ReadonlyArray<ConnectedNode>> = client.nodes.list().pipe(
    Effect.map((r) =>
      r.nodes.filter((n) => n.connected).map((n) => ({
        id: n.id,
        browser: n.capabilities.includes("browser"),
        pending: n.status !== "approved"
      }))
    ),
    Effect.orElseSucceed(() => [])
  )

  // Asked at most once a second: a model's rounds come a few ms apart, and a node that came or went within
  // the second is told apart by the gateway (a request to a node that is gone fails at once and says so).
  let nodesAt = Number.NEGATIVE_INFINITY
  let nodesSeen: ReadonlyArray<ConnectedNode> = []
  const recentNodes: Effect.Effect<ReadonlyArray<ConnectedNode>> = Effect.suspend(() =>
    Date.now() - nodesAt < NODES_FRESH_MS
      ? Effect.succeed(nodesSeen)
      : Effect.tap(connectedNodes, (nodes) =>
        Effect.sync(() => {
          nodesSeen = nodes
          nodesAt = Date.now()
        }))
  )

  const onRoute = (route: Route, p: BrowserToolParams): Effect.Effect<ToolResult> => {
    // A node's browser: the same calls, each sent to that node by the gateway (`?node=<id>`).
    const node = route.kind === "node" ? route.node : undefined
    const profile = route.profile
    const q = profile !== undefined ? { profile } : {}
    const tab = p.targetId !== undefined ? { targetId: p.targetId } : {}
    const a = p.action
    const call = (): Effect.Effect<ToolResult, unknown> => {
      switch (a) {
        case "status":
          return Effect.map(client.browser.status({ urlParams: q }), jsonText).pipe(Effect.map(textResult))
        case "start":
          return Effect.map(client.browser.start({ urlParams: q }), (r) => textResult(jsonText(r)))
        case "stop":
          return Effect.map(client.browser.stop({ urlParams: q }), (r) => textResult(jsonText(r)))
        case "profiles":
          return Effect.map(client.browser.profiles({ urlParams: q }), (r) => textResult(jsonText(r)))
        case "tabs":
          return Effect.map(client.tabs.list({ urlParams: q }), (r) => textResult(jsonText(r)))
        case "open": {
          const url = need(p.url, "url", a)
          return Effect.map(client.tabs.open({ urlParams: q, payload: { url } }), ({ downloads, ...t }) =>
            textResult(
              [
                `opened tab ${t.targetId} (index ${t.index}): ${t.url}`,
                ...(downloads !== undefined ? fileUrlLines(url, downloads, "the new tab stays blank") : []),
                jsonText(t)
              ].join("\n")
            ))
        }
        case "focus":
          return Effect.map(
            client.tabs.focus({ urlParams: q, payload: { targetId: need(p.targetId, "targetId", a) } }),
            (t) => textResult(`tab ${t.targetId} is now the current tab: ${t.url}`)
          )
        case "close":
          return p.targetId !== undefined
            ? client.tabs.close({ urlParams: q, path: { targetId: p.targetId } }).pipe(
              Effect.zip(Effect.option(client.tabs.list({ urlParams: q }))),
              Effect.map(([r, left]) => textResult(`closed tab ${r.targetId}${leftAfterClose(Option.getOrUndefined(left)?.tabs)}`))
            )
            : Effect.map(client.act.act({ urlParams: q, payload: { kind: "close" } }), (r) => textResult(`closed tab ${r.targetId}${leftAfterClose(r.tabs)}`))
        case "snapshot":
          return Effect.map(
            client.inspect.snapshot({
              urlParams: {
                ...q,
                ...tab,
                ...(p.format !== undefined ? { format: p.format } : {}),
                ...(p.mode !== undefined ? { mode: p.mode } : {}),
                ...(p.interactive !== undefined ? { interactive: p.interactive } : {}),
                ...(p.compact !== undefined ? { compact: p.compact } : {}),
                ...(p.depth !== undefined ? { depth: p.depth } : {}),
                ...(p.selector !== undefined ? { selector: p.selector } : {}),
                ...(p.frame !== undefined ? { frame: p.frame } : {}),
                ...(p.limit !== undefined ? { limit: p.limit } : {}),
                ...(p.diff !== undefined ? { diff: p.diff } : {}),
                ...(p.find !== undefined ? { find: p.find } : {}),
                ...(p.regex !== undefined ? { regex: p.regex } : {}),
                ...(p.ref !== undefined ? { ref: p.ref } : {})
              }
            }),
            (s) => textResult(p.find !== undefined ? foundText(s, { find: p.find, regex: p.regex }) : snapshotText(s))
          )
        case "routes":
          return routes(p, q)
        case "styles":
          return Effect.map(
            client.act.styles({
              urlParams: {
                ...q,
                ...tab,
                ref: need(p.ref, "ref", a),
                ...propertiesParam(p.properties)
              }
            }),
            (r) => textResult(stylesText(r))
          )
        case "screenshot":
          return Effect.gen(function*() {
            const shot = yield* client.inspect.screenshot({
              urlParams: q,
              payload: {
                ...tab,
                ...(p.fullPage !== undefined ? { fullPage: p.fullPage } : {}),
                ...(p.ref !== undefined ? { ref: p.ref } : {}),
                ...(p.filename !== undefined ? { filename: p.filename } : {})
              }
            })
            const image = yield* readFile(shot.path)
            return {
              content: [
                { type: "image", data: image, mimeType: shot.type === "jpeg" ? "image/jpeg" : "image/png" },
                { type: "text", text: `screenshot of tab ${shot.targetId}: ${shot.width}x${shot.height}, saved at ${shot.path}` }
              ],
              isError: false
            } satisfies ToolResult
          })
        case "navigate": {
          const url = need(p.url, "url", a)
          return Effect.map(client.act.navigate({ urlParams: q, payload: { url, ...tab } }), (r) => textResult(navigateText(url, r)))
        }
        case "act":
          return act(p, q)
        case "console":
          return Effect.map(
            client.observe.console({ urlParams: { ...q, ...tab, ...(p.level !== undefined ? { level: p.level } : {}) } }),
            (r) => textResult(jsonText(r))
          )
        case "errors":
          return Effect.map(
            client.observe.errors({ urlParams: { ...q, ...tab, ...(p.clear !== undefined ? { clear: p.clear } : {}) } }),
            (r) => textResult(jsonText(r))
          )
        case "requests":
          return Effect.map(
            client.observe.requests({
              urlParams: { ...q, ...tab, ...(p.filter !== undefined ? { filter: p.filter } : {}), ...(p.clear !== undefined ? { clear: p.clear } : {}) }
            }),
            (r) => textResult(jsonText(r))
          )
        case "pdf":
          return Effect.map(client.inspect.pdf({ urlParams: q, payload: { ...tab, ...(p.filename !== undefined ? { filename: p.filename } : {}) } }), (r) => textResult(`PDF of tab ${r.targetId} saved at ${r.path} (${r.bytes} bytes)`))
        case "upload":
          return Effect.map(
            client.files.fileChooser({
              urlParams: q,
              payload: { ...tab, paths: need(p.paths, "paths", a), ...(p.ref !== undefined ? { inputRef: p.ref } : {}) }
            }),
            (r) => textResult(r.detail)
          )
        case "dialog":
          return Effect.map(
            client.observe.dialog({
              urlParams: q,
              payload: { ...tab, accept: need(p.accept, "accept (true or false)", a), ...(p.promptText !== undefined ? { promptText: p.promptText } : {}) }
            }),
            (r) => textResult(r.detail)
          )
        case "download":
          return Effect.map(
            client.files.download({ urlParams: q, payload: { ...tab, ref: need(p.ref, "ref", a), filename: need(p.filename, "filename", a) } }),
            (r) => textResult(`downloaded ${r.suggestedFilename} to ${r.path} (${r.bytes} bytes)`)
          )
        case "waitfordownload":
          return Effect.map(
            client.files.waitDownload({
              urlParams: q,
              payload: { ...tab, filename: need(p.filename, "filename", a), ...(p.timeoutMs !== undefined ? { timeoutMs: p.timeoutMs } : {}) }
            }),
            (r) => textResult(`downloaded ${r.suggestedFilename} to ${r.path} (${r.bytes} bytes)`)
          )
        case "cookies":
          return p.clear === true
            ? Effect.map(client.state.clearCookies({ urlParams: q, payload: tab }), (r) => textResult(r.done))
            : p.name !== undefined
            ? Effect.map(
              client.state.setCookie({
                urlParams: q,
                payload: { ...tab, name: p.name, value: need(p.value, "value", a), url: need(p.url, "url (the cookie's site)", a) }
              }),
              (r) => textResult(r.done)
            )
            : Effect.map(client.state.cookies({ urlParams: { ...q, ...tab } }), (r) => textResult(jsonText(r)))
        case "storage": {
          const kind = need(p.kind, "kind (local or session)", a)
          return p.clear === true
            ? Effect.map(client.state.clearStorage({ urlParams: q, path: { kind }, payload: tab }), (r) => textResult(r.done))
            : p.key !== undefined
            ? Effect.map(
              client.state.setStorage({ urlParams: q, path: { kind }, payload: { ...tab, key: p.key, value: need(p.value, "value", a) } }),
              (r) => textResult(r.done)
            )
            : Effect.map(client.state.storage({ urlParams: { ...q, ...tab }, path: { kind } }), (r) => textResult(jsonText(r)))
        }
        case "savestate":
          return Effect.map(
            client.state.saveStorageState({ urlParams: q, payload: { ...tab, ...(p.filename !== undefined ? { filename: p.filename } : {}) } }),
            (r) => textResult(savedStateLine(r))
          )
        case "loadstate":
          return Effect.map(
            client.state.loadStorageState({ urlParams: q, payload: { ...tab, filename: need(p.filename, "filename", a) } }),
            (r) => textResult(loadedStateLine(r))
          )
        case "emulate":
          return emulate(p, q)
      }
    }
    return Effect.suspend(call).pipe(
      withNode(node),
      Effect.catchAllDefect((d) => d instanceof Missing ? Effect.succeed(errorResult(d.message)) : Effect.die(d)),
      Effect.catchAll((e) => Effect.succeed(failure(e)))
    )
  }

  const act = (p: BrowserToolParams, q: { readonly profile?: string }): Effect.Effect<ToolResult, unknown> =>
    Effect.gen(function*() {
      if (p.request !== undefined && p.batch !== undefined) return errorResult("action act takes request or batch, not both")
      const requests = p.batch ?? (p.request !== undefined ? [p.request] : undefined)
      if (requests === undefined || requests.length === 0) return errorResult("action act needs request ({kind, ...}) or batch")
      const stopOnError = p.stopOnError ?? true
      const parts: Array<string> = []
      let failed = false
      for (const [i, r] of requests.entries()) {
        const label = requests.length > 1 ? `${i + 1}. ${r.kind}${r.ref !== undefined ? ` ${r.ref}` : ""}` : `${r.kind}${r.ref !== undefined ? ` ${r.ref}` : ""}`
        const last = i === requests.length - 1
        const decoded = toActRequest(r, p.targetId, last ? { snapshot: p.snapshotAfter, diff: p.diff } : {})
        if (Either.isLeft(decoded)) {
          parts.push(`${label}: invalid: ${problems(decoded.left)}`)
          failed = true
        } else {
          // The typed client narrows a union payload to one member's type; the schema still encodes any member.
          const done = yield* Effect.either(client.act.act({ urlParams: q, payload: decoded.right as never }))
          if (Either.isRight(done)) parts.push(actText(done.right, label))
          else {
            failed = true
            parts.push(`${label}: ${(failure(done.left).content[0] as { text: string }).text}`)
          }
        }
        if (failed && stopOnError) {
          if (!last) parts.push(`stopped: ${requests.length - i - 1} later action(s) not done (stopOnError)`)
          break
        }
      }
      return { content: [{ type: "text", text: parts.join("\n\n") }], isError: failed } satisfies ToolResult
    })

  /** The profile's network routes: listed, one added (pattern and what to answer), or removed (clear). */
  const routes = (p: BrowserToolParams, q: { readonly profile?: string }): Effect.Effect<ToolResult, unknown> => {
    if (p.clear === true) {
      return Effect.map(
        client.state.removeRoute({ urlParams: q, payload: p.pattern !== undefined ? { pattern: p.pattern } : {} }),
        (r) => textResult(`removed ${r.removed} route(s)`)
      )
    }
    if (p.pattern === undefined) return Effect.map(client.state.routes({ urlParams: q }), (r) => textResult(routeLines(r.routes)))
    return Effect.map(
      client.state.addRoute({
        urlParams: q,
        payload: {
          pattern: p.pattern,
          ...(p.status !== undefined ? { status: p.status } : {}),
          ...(p.body !== undefined ? { body: p.body } : {}),
          ...(p.contentType !== undefined ? { contentType: p.contentType } : {}),
          ...(p.abort !== undefined ? { abort: p.abort } : {})
        }
      }),
      (r) => textResult(`${r.replaced ? "replaced the route" : "route added"}: ${routeLines(r.routes.filter((x) => x.pattern === p.pattern))}`)
    )
  }

  const emulate = (p: BrowserToolParams, q: { readonly profile?: string }): Effect.Effect<ToolResult, unknown> =>
    Effect.gen(function*() {
      const tab = p.targetId !== undefined ? { targetId: p.targetId } : {}
      const done: Array<string> = []
      if (p.offline !== undefined) done.push((yield* client.state.offline({ urlParams: q, payload: { ...tab, offline: p.offline } })).done)
      if (p.media !== undefined) done.push((yield* client.state.media({ urlParams: q, payload: { ...tab, media: p.media } })).done)
      if (p.timezone !== undefined) done.push((yield* client.state.timezone({ urlParams: q, payload: { ...tab, timezone: p.timezone } })).done)
      if (p.locale !== undefined) done.push((yield* client.state.locale({ urlParams: q, payload: { ...tab, locale: p.locale } })).done)
      if (p.name !== undefined) done.push((yield* client.state.device({ urlParams: q, payload: { ...tab, name: p.name } })).done)
      if (p.width !== undefined || p.height !== undefined) {
        done.push((yield* client.state.viewport({
          urlParams: q,
          payload: { ...tab, width: need(p.width, "width with height", "emulate"), height: need(p.height, "height with width", "emulate") }
        })).done)
      }
      if (p.latitude !== undefined || p.longitude !== undefined) {
        done.push((yield* client.state.geolocation({ urlParams: q, payload: { ...tab, latitude: p.latitude, longitude: p.longitude } })).done)
      }
      if (p.network !== undefined || p.cpu !== undefined) {
        done.push((yield* client.state.throttle({ urlParams: q, payload: { ...tab, network: p.network, cpu: p.cpu } })).done)
      }
      if (done.length === 0) {
        return errorResult(
          "action emulate needs at least one of offline, media, timezone, locale, name (a device), width and height, " +
            "latitude and longitude, network, cpu"
        )
      }
      return textResult(done.join("\n"))
    })

  return { run } as const
}
