import { Effect } from "effect"
import type { BrowserContext, Page } from "playwright-core"
import { INJECTED_FUNCTION_KEY, INJECTED_MADE_KEY } from "../pages/injectedCache.js"
import { type Guarded, type MainWorld, newGuardKey, RESOLVE_MS, bounded } from "./refGuards.js"
import { GUARD_ATTRIBUTE, guardFound } from "./refIdentity.js"

// Checking an AI ref in one raw page call, where the usual way (refGuards.ts) takes several of the
// library's: a few milliseconds on every action by ref.
//
// The library's AI snapshot runs in its utility world and keeps each element's ref on the element
// (`_ariaRef`: the ref with the role and name it was given for). In that world svc keeps, per document:
// the element each ref was last given to, the moment each element was last seen by a snapshot, and, from a
// MutationObserver, the moment anything in an element's subtree (or an attribute of the element) last
// changed. An element that still carries the ref, with the role and name the agent's snapshot showed, and
// where nothing that makes up its role and name changed since a snapshot saw it, is the element the
// snapshot showed, unchanged: it is guarded (refIdentity.ts) in the same call. Anything this cannot tell
// (the element changed, lives in a shadow tree, takes its name from elsewhere, the world is not prepared)
// answers "unknown", and the caller checks the usual way: a fast path, never a second opinion.

/** The state's key on the utility world's global (not enumerable). */
const STATE_KEY = "__svcRefChecks"
export const REF_CHECKS_KEY = STATE_KEY

/** The library's property for an element's ref, in its utility world (playwright-core 1.65). */
const REF_PROPERTY = "_ariaRef"

interface AriaRef {
  readonly role: string
  readonly name: string
  readonly ref: string
}

interface ElementLike {
  readonly isConnected: boolean
  readonly parentElement: ElementLike | null
  readonly shadowRoot: unknown
  readonly labels?: ArrayLike<unknown> | null
  readonly ownerDocument: { getElementById(id: string): unknown }
  getRootNode(): unknown
  getAttribute(name: string): string | null
  hasAttribute(name: string): boolean
  querySelectorAll(selector: string): ArrayLike<ElementLike>
}

interface CheckState {
  epoch: number
  /** Element → the epoch of the last change in its subtree (its own attributes included). */
  readonly changed: WeakMap<object, number>
  /** Element → the epoch of the last change of its own attributes. */
  readonly attributes: WeakMap<object, number>
  /** Element → the epoch at which a snapshot last read its ref. */
  readonly seen: WeakMap<object, number>
  readonly refs: WeakMap<object, AriaRef>
  readonly byRef: Map<string, WeakRef<object>>
  readonly flush: () => void
  /** checkAndGuard with the guard, kept here so that each check sends a few bytes, not its source. */
  readonly check: (arg: CheckArgs) => string
}

/**
 * In the utility world (self-contained: its source is sent): start keeping the state described above, once
 * per document. Elements a snapshot marked before this ran are taken over (seen by no snapshot yet).
 */
export const prepareChecks = (
  arg: {
    readonly key: string
    readonly property: string
    readonly ignore: string
    /** Where the library's injected script is made from a function of svc's, and where that marks it made (injectedCache.ts). */
    readonly libraryFunction: string
    readonly libraryMade: string
  },
  check: typeof checkAndGuard,
  guard: typeof guardFound
): boolean => {
  const g = globalThis as unknown as Record<string, unknown> & {
    document: { querySelectorAll(s: string): ArrayLike<{ shadowRoot?: unknown }> }
    Element: { prototype: object }
    MutationObserver: new(callback: (records: Array<MutationLike>) => void) => {
      observe(target: unknown, options: object): void
      takeRecords(): Array<MutationLike>
    }
    WeakRef: new(target: object) => WeakRef<object>
  }
  interface MutationLike {
    readonly type: string
    readonly target: { readonly nodeType: number; readonly parentNode: unknown }
    readonly attributeName: string | null
  }
  if (g[arg.key] !== undefined) return false
  const state = {
    epoch: 1,
    changed: new WeakMap<object, number>(),
    attributes: new WeakMap<object, number>(),
    seen: new WeakMap<object, number>(),
    refs: new WeakMap<object, AriaRef>(),
    byRef: new Map<string, WeakRef<object>>(),
    flush: () => undefined as void,
    check: (a: CheckArgs) => check(a, guard)
  }
  const note = (records: Array<MutationLike>) => {
    if (records.length === 0) return
    const e = ++state.epoch
    for (const r of records) {
      if (r.type === "attributes" && r.attributeName === arg.ignore) continue
      let n: unknown = r.target
      if (r.type === "attributes") state.attributes.set(r.target, e)
      while (n !== null && n !== undefined && state.changed.get(n as object) !== e) {
        state.changed.set(n as object, e)
        n = (n as { parentNode: unknown }).parentNode
      }
    }
  }
  const observer = new g.MutationObserver(note)
  observer.observe(g.document, { subtree: true, childList: true, characterData: true, attributes: true })
  state.flush = () => note(observer.takeRecords())
  const keep = (el: object, value: AriaRef) => {
    state.refs.set(el, value)
    if (state.byRef.size > 100_000) state.byRef.clear()
    state.byRef.set(value.ref, new g.WeakRef(el))
  }
  // Refs given before now: kept, but seen by no snapshot (the next one sees them).
  const adopt = (root: { querySelectorAll(s: string): ArrayLike<{ shadowRoot?: unknown }> }) => {
    for (const el of Array.from(root.querySelectorAll("*"))) {
      const own = Object.getOwnPropertyDescriptor(el, arg.property)
      if (own !== undefined) {
        delete (el as Record<string, unknown>)[arg.property]
        if (own.value !== undefined) keep(el, own.value as AriaRef)
      }
      const shadow = el.shadowRoot as typeof root | null | undefined
      if (shadow !== null && shadow !== undefined) adopt(shadow)
    }
  }
  // A world where the library makes its script from svc's function, and has not yet: nothing carries a ref
  // (a page of 12,000 elements takes 20 ms to look through).
  if (typeof g[arg.libraryFunction] !== "function" || g[arg.libraryMade] === true) adopt(g.document)
  Object.defineProperty(g.Element.prototype, arg.property, {
    configurable: true,
    get(this: object) {
      state.seen.set(this, state.epoch)
      return state.refs.get(this)
    },
    set(this: object, value: AriaRef) {
      state.seen.set(this, state.epoch)
      keep(this, value)
    }
  })
  Object.defineProperty(g, arg.key, { value: state, configurable: true, enumerable: false, writable: true })
  return true
}

export interface CheckArgs {
  readonly key: string
  readonly aria: string
  readonly role: string
  readonly name: string
  readonly guardKey: string
}

/**
 * In the utility world: "ok" (and the element guarded and marked with `guardKey`) when the element that
 * carries `aria` is the element the snapshot showed, unchanged; otherwise why this cannot tell.
 */
export const checkAndGuard = (arg: CheckArgs, guard: typeof guardFound): string => {
  const g = globalThis as unknown as Record<string, unknown> & { document: unknown; top: unknown }
  const state = g[arg.key] as CheckState | undefined
  if (state === undefined) return "unprepared"
  state.flush()
  const el = state.byRef.get(arg.aria)?.deref() as ElementLike | undefined
  if (el === undefined || !el.isConnected) return "not found"
  const r = state.refs.get(el)
  const seen = state.seen.get(el)
  if (r === undefined || r.ref !== arg.aria || seen === undefined) return "not seen"
  if (r.role !== arg.role || r.name !== arg.name) return "other role or name"
  if (el.getRootNode() !== g.document) return "in a shadow tree"
  const since = (n: unknown) => (state.changed.get(n as object) ?? 0) > seen
  if (since(el)) return "changed"
  for (let a = el.parentElement; a !== null; a = a.parentElement) {
    if ((state.attributes.get(a) ?? 0) > seen) return "an ancestor changed"
  }
  if (el.hasAttribute("aria-owns")) return "owns"
  for (const id of (el.getAttribute("aria-labelledby") ?? "").split(/\s+/)) {
    if (id === "") continue
    const other = el.ownerDocument.getElementById(id)
    if (other === null || since(other)) return "label changed"
  }
  for (const label of Array.from(el.labels ?? [])) if (since(label)) return "label changed"
  const inside = el.querySelectorAll("*")
  if (inside.length > 500) return "large"
  for (const d of Array.from(inside)) if (d.shadowRoot !== null && d.shadowRoot !== undefined) return "shadow inside"
  return guard(el, { key: arg.guardKey, mark: true, topOnly: true }) === 1 ? "ok" : "not top"
}

const STATE_ARG = {
  key: STATE_KEY,
  property: REF_PROPERTY,
  ignore: GUARD_ATTRIBUTE,
  libraryFunction: INJECTED_FUNCTION_KEY,
  libraryMade: INJECTED_MADE_KEY
}
const PREPARE = `(${prepareChecks.toString()})(${JSON.stringify(STATE_ARG)}, ${checkAndGuard.toString()}, ${guardFound.toString()})`

/**
 * Prepares the checks in a page's current document, before its AI snapshot (sent, not waited for: a snapshot
 * taken before it is in place leaves its refs to the usual way). True once they are in place; false when
 * they could not be put there (the document's utility world is not known yet, or was just replaced).
 */
export const prepareRefChecks = (page: Page, utility: MainWorld): Promise<boolean> =>
  utility(page, PREPARE)?.then(() => true, () => false) ?? Promise.resolve(false)

/**
 * The one-call check of an AI ref of the top document. `guarded` with the guard's key (the element now
 * carries it in GUARD_ATTRIBUTE) when it holds; undefined when it cannot tell (the caller checks the usual
 * way). A page that does not answer in time fails like the usual way does.
 */
export const checkInOneCall = <E>(
  page: Page,
  ref: string,
  entry: { readonly aria: string; readonly role: string; readonly name: string },
  utility: MainWorld,
  fail: (e: unknown) => E
): Effect.Effect<Guarded | undefined, E> =>
  Effect.gen(function*() {
    const guardKey = newGuardKey()
    const arg: CheckArgs = { key: STATE_KEY, aria: entry.aria, role: entry.role, name: entry.name, guardKey }
    const expression = `globalThis[${JSON.stringify(STATE_KEY)}]?.check(${JSON.stringify(arg)}) ?? "unprepared"`
    const call = utility(page, expression)
    if (call === undefined) return undefined
    const answer = yield* bounded(() => call, RESOLVE_MS).pipe(
      Effect.catchAll((e) => /Cannot find context|context was destroyed/i.test(String(e)) ? Effect.succeed("gone") : Effect.fail(fail(e)))
    )
    if (answer !== "ok") return undefined
    return { guard: { key: guardKey, ref, page, handle: undefined, utility: true }, count: undefined }
  })

// ---------------------------------------------------------------------------------------------------------
// The check as the action's own lookup: a selector engine of svc's, run by the library in its utility world
// when an action looks for its element. It checks and guards the element in that lookup, so an action by an
// AI ref takes no page call of its own before it: the check costs what the lookup does. It answers with
// the element, or fails the action at once with why it cannot tell (`svc-ref:unchecked`: the caller then
// checks the usual way and acts again; nothing was done). Found again later in the same action (the library
// looks again after a wait), it answers with the element it guarded, or fails with `svc-ref:gone`.

/** The engine's name in selectors (`svc-ref=<check arguments>`). */
export const REF_ENGINE = "svc-ref"

/** In the utility world: the engine (self-contained: its source is sent once per browser context). */
export const refEngine = (stateKey: string, attribute: string) => {
  const g = globalThis as unknown as Record<string, unknown> & {
    document: { querySelector(selector: string): unknown }
  }
  const queryAll = (_root: unknown, body: string): Array<unknown> => {
    const arg = JSON.parse(decodeURIComponent(body)) as CheckArgs
    const marked = () => g.document.querySelector(`[${attribute}="${arg.guardKey}"]`)
    if (g[arg.guardKey] !== undefined) {
      const again = marked()
      if (again === null) throw new Error("svc-ref:gone the element was removed while the action was under way")
      return [again]
    }
    const state = g[stateKey] as CheckState | undefined
    const answer = state === undefined ? "unprepared" : state.check(arg)
    const found = answer === "ok" ? marked() : null
    if (found === null) throw new Error(`svc-ref:unchecked ${answer}`)
    return [found]
  }
  return { queryAll, query: (root: unknown, body: string) => queryAll(root, body)[0] ?? null }
}

const ENGINE_SOURCE = `(${refEngine.toString()})(${JSON.stringify(STATE_KEY)}, ${JSON.stringify(GUARD_ATTRIBUTE)})`

/**
 * Registers the engine with a browser context (before its pages are used: the library gives each page
 * world the engines its context has when it first needs them). The library's public registration covers
 * only contexts it creates itself, not those of a browser it connected to, so this uses its context
 * channel's own call (playwright-core 1.65); false when that is not there or refused.
 */
export const registerRefEngine = (context: BrowserContext): Promise<boolean> => {
  const channel = (context as unknown as {
    readonly _channel?: { registerSelectorEngine?: (params: unknown) => Promise<unknown> }
  })._channel
  if (typeof channel?.registerSelectorEngine !== "function") return Promise.resolve(false)
  return channel.registerSelectorEngine({ selectorEngine: { name: REF_ENGINE, source: ENGINE_SOURCE, contentScript: true } })
    .then(() => true, () => false)
}

/** The locator that checks and guards an AI ref's element as the action looks for it; and its guard. */
export const checkingLocator = (
  page: Page,
  ref: string,
  entry: { readonly aria: string; readonly role: string; readonly name: string }
): { readonly locator: ReturnType<Page["locator"]>; readonly guard: Guarded; readonly check: CheckArgs } => {
  const guardKey = newGuardKey()
  const arg: CheckArgs = { key: STATE_KEY, aria: entry.aria, role: entry.role, name: entry.name, guardKey }
  return {
    locator: page.locator(`${REF_ENGINE}=${encodeURIComponent(JSON.stringify(arg))}`),
    guard: { guard: { key: guardKey, ref, page, handle: undefined, utility: true }, count: undefined },
    check: arg
  }
}

/** The locator of an element a one-call check marked. */
export const markedSelector = (guardKey: string) => `[${GUARD_ATTRIBUTE}="${guardKey}"]`
