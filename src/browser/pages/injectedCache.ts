import type { CdpMessage as Message, CdpTransport } from "../relay/inProcess.js"

// The library reads and acts on a document through its injected script (its selectors and its ARIA walk),
// about 330 KB of source. It sends that source whole with Runtime.evaluate into each new document's utility
// world, the first time a snapshot or an action needs it there, and V8 compiles an evaluated script anew each
// time: 13-23 ms of every first snapshot after a navigation, paid again for each iframe, before the walk
// starts. A script the browser runs itself in each new document (Page.addScriptToEvaluateOnNewDocument) is
// compiled the way a page's own scripts are, through the renderer's compilation cache: from the second
// document on, it is found there already compiled.
//
// So the library's connection is wrapped. The first time the library sends its injected script, its source
// is kept. The first time it does on a page session (a tab, an out-of-process iframe), svc asks the browser,
// on that same session and so into the library's own utility world, to run a script defining the source as a
// function: in the documents there are now, and in every new one. The library's evaluations of its script
// in that world are sent as a call of the function instead: the same source runs, the same instance is
// made, without the compile. If the function is missing after all, the world throws a marker and the
// library's evaluation goes as it was. A session is armed only once the library needs its script there: a
// tab nobody reads pays nothing (a new tab is a new renderer, where the first compile is a whole one). The
// library's smaller utility script (~13 KB, 1-2 ms a frame) goes the same way.
//
// The renderer keeps a compiled script while something uses it: after a garbage collection a new document
// may compile the definition again as it starts (about 8 ms on this machine), which its first read then
// does not.

/** How the library names its utility world (playwright-core 1.65; its page's guid follows). */
const UTILITY_WORLD_PREFIX = "__playwright_utility_world_"
/**
 * The library's scripts made this way, each evaluated as `const module = {}; <source> return new
 * (module.exports.<Kind>())(...)`, and the least a source of each is long (the marks alone are not enough):
 * its injected script (selectors, the ARIA walk; ~330 KB) and its utility script (~13 KB, what it wraps every
 * call of a function in the page with).
 */
const KINDS = { InjectedScript: 50_000, UtilityScript: 5_000 } as const
export type ScriptKind = keyof typeof KINDS
const MODULE_MARK = "const module = {};"
const RETURN_MARK = "return new (module.exports."
const MISSING = "svc: the library script's function is missing in this world"
/** The function that makes the library's injected script, on a utility world's global where it was defined. */
export const INJECTED_FUNCTION_KEY = "__svcInjectedScript"
/**
 * Set (true, not enumerable) on a utility world's global once the library made its injected script there. In
 * a world that has the function and not this, the library never made one: every one it makes in such a world
 * goes through the function (the world was armed before the library's first evaluation on its session).
 */
export const INJECTED_MADE_KEY = "__svcInjectedScriptMade"

/** svc's own command ids on the library's connection, far above any of the library's. */
const FIRST_OWN_ID = 2_000_000_000

interface Learned {
  readonly source: string
  /** The function's name on the utility world's global (not enumerable; the page's own world never sees it). */
  readonly key: string
  /** The script defining the function: the same text in every document, so the renderer caches its compile. */
  readonly definition: string
}

type Armed = "no" | "asked" | "refused"

interface SessionState {
  /** The library's utility world on this session (from its Page.addScriptToEvaluateOnNewDocument). */
  world: string | undefined
  /** Per script: whether its definition was sent on this session ("asked"), or refused there (then never asked again). */
  readonly armed: Map<ScriptKind, Armed>
  /** The ids of the session's contexts of that world (known once the world is: the library asks for it before it hears of any). */
  readonly contexts: Set<number>
}

/** What the wrapper did so far, per script (for tests and diagnostics). */
export interface InjectedCacheStats {
  readonly learned: ReadonlyArray<ScriptKind>
  readonly armedSessions: number
  readonly sentShort: Readonly<Record<ScriptKind, number>>
  readonly sentWhole: Readonly<Record<ScriptKind, number>>
}

/** Which of the library's scripts `expression` makes, and where its source lies in it. */
const findSource = (expression: string): { readonly kind: ScriptKind; readonly start: number; readonly end: number } | undefined => {
  const mark = expression.indexOf(MODULE_MARK)
  if (mark < 0 || mark > 4_096) return undefined
  const start = mark + MODULE_MARK.length
  const end = expression.lastIndexOf(RETURN_MARK)
  if (end < 0) return undefined
  const kind = expression.slice(end + RETURN_MARK.length, expression.indexOf("(", end + RETURN_MARK.length))
  if (!Object.hasOwn(KINDS, kind)) return undefined
  return end - start >= KINDS[kind as ScriptKind] ? { kind: kind as ScriptKind, start, end } : undefined
}

const learn = (kind: ScriptKind, source: string): Learned => {
  const key = kind === "InjectedScript" ? INJECTED_FUNCTION_KEY : `__svc${kind}`
  return {
    source,
    key,
    definition: `Object.defineProperty(globalThis, ${JSON.stringify(key)}, { value: function (module) {${source}\n}, configurable: true });`
  }
}

/** What stands for the source in the library's evaluation: a call of the function. */
const shortCall = (kind: ScriptKind, key: string) => `
const svcScript = globalThis[${JSON.stringify(key)}];
if (typeof svcScript !== "function") throw new Error(${JSON.stringify(MISSING)});
svcScript(module);${
  kind === "InjectedScript"
    ? `
Object.defineProperty(globalThis, ${JSON.stringify(INJECTED_MADE_KEY)}, { value: true, configurable: true });`
    : ""
}
`

/** The library's connection, with its injected script compiled once per renderer instead of once per document. */
export const cacheInjectedScript = (inner: CdpTransport): CdpTransport & { readonly stats: () => InjectedCacheStats } => {
  const learned = new Map<ScriptKind, Learned>()
  let ownIds = FIRST_OWN_ID
  const sentShort: Record<ScriptKind, number> = { InjectedScript: 0, UtilityScript: 0 }
  const sentWhole: Record<ScriptKind, number> = { InjectedScript: 0, UtilityScript: 0 }
  const sessions = new Map<string, SessionState>()
  /** svc's own commands: the session and script each armed. */
  const own = new Map<number, { readonly sessionId: string; readonly kind: ScriptKind }>()
  /** The library's evaluations sent short, kept to be sent whole if the function is missing. */
  const shortened = new Map<number, { readonly message: Message; readonly kind: ScriptKind }>()

  const stateOf = (sessionId: string): SessionState => {
    let s = sessions.get(sessionId)
    if (s === undefined) {
      s = { world: undefined, armed: new Map(), contexts: new Set() }
      sessions.set(sessionId, s)
    }
    return s
  }

  const arm = (sessionId: string, s: SessionState, kind: ScriptKind, script: Learned) => {
    if (s.world === undefined || (s.armed.get(kind) ?? "no") !== "no") return
    s.armed.set(kind, "asked")
    const id = ownIds++
    own.set(id, { sessionId, kind })
    inner.send({
      id,
      sessionId,
      method: "Page.addScriptToEvaluateOnNewDocument",
      // In the documents there are now as well: the library's first evaluation in them can go short too.
      params: { source: script.definition, worldName: s.world, runImmediately: true }
    })
  }

  /** The message to send for `m`: the library's evaluation of one of its scripts sent short where it can be. */
  const outgoing = (m: Message): Message => {
    if (m.method === "Page.addScriptToEvaluateOnNewDocument" && m.sessionId !== undefined) {
      const world = m.params?.worldName
      if (typeof world === "string" && world.startsWith(UTILITY_WORLD_PREFIX) && m.params?.source === "") stateOf(m.sessionId).world = world
      return m
    }
    if (m.method !== "Runtime.evaluate" || m.sessionId === undefined || m.id === undefined) return m
    const expression = m.params?.expression
    if (typeof expression !== "string") return m
    const found = findSource(expression)
    if (found === undefined) return m
    const { kind } = found
    const s = stateOf(m.sessionId)
    let script = learned.get(kind)
    if (script === undefined) {
      script = learn(kind, expression.slice(found.start, found.end))
      learned.set(kind, script)
    }
    // Sent before this evaluation, on the same session: the browser runs them in that order.
    arm(m.sessionId, s, kind, script)
    const contextId = m.params?.contextId
    const same = found.end - found.start === script.source.length && expression.startsWith(script.source, found.start)
    if (!same || s.armed.get(kind) !== "asked" || typeof contextId !== "number" || !s.contexts.has(contextId)) {
      sentWhole[kind]++
      return m
    }
    shortened.set(m.id, { message: m, kind })
    sentShort[kind]++
    return { ...m, params: { ...m.params, expression: expression.slice(0, found.start) + shortCall(kind, script.key) + expression.slice(found.end) } }
  }

  /** Whether `m` is for the library (svc's own answers and the short evaluations' misses are not). */
  const incoming = (m: Message): boolean => {
    if (m.id !== undefined) {
      const armed = own.get(m.id)
      if (armed !== undefined) {
        own.delete(m.id)
        if (m.result === undefined) sessions.get(armed.sessionId)?.armed.set(armed.kind, "refused")
        return false
      }
      const sent = shortened.get(m.id)
      if (sent !== undefined) {
        shortened.delete(m.id)
        if (JSON.stringify(m.result?.exceptionDetails ?? "").includes(MISSING)) {
          sentShort[sent.kind]--
          sentWhole[sent.kind]++
          inner.send(sent.message)
          return false
        }
      }
      return true
    }
    if (m.method === "Target.detachedFromTarget") sessions.delete(String(m.params?.sessionId))
    if (m.sessionId === undefined) return true
    // Only the library's page sessions' utility worlds are kept track of (not svc's own sessions, nor workers).
    const s = sessions.get(m.sessionId)
    if (s?.world === undefined) return true
    if (m.method === "Runtime.executionContextCreated") {
      const context = m.params?.context as { readonly id?: unknown; readonly name?: unknown } | undefined
      if (typeof context?.id === "number" && context.name === s.world) s.contexts.add(context.id)
    } else if (m.method === "Runtime.executionContextDestroyed") {
      s.contexts.delete(m.params?.executionContextId as number)
    } else if (m.method === "Runtime.executionContextsCleared") {
      s.contexts.clear()
    }
    return true
  }

  const outer: CdpTransport & { readonly stats: () => InjectedCacheStats } = {
    send: (message) => inner.send(outgoing(message as Message)),
    close: () => inner.close(),
    stats: () => ({
      learned: [...learned.keys()],
      armedSessions: [...sessions.values()].filter((s) => [...s.armed.values()].includes("asked")).length,
      sentShort: { ...sentShort },
      sentWhole: { ...sentWhole }
    })
  }
  inner.onmessage = (message) => {
    if (incoming(message as Message)) outer.onmessage?.(message)
  }
  inner.onclose = (reason) => outer.onclose?.(reason)
  return outer
}
