import { afterEach, describe, expect, it } from "vitest"
import { prepareChecks } from "../../../src/browser/act/refChecks.js"
import { guardFound } from "../../../src/browser/act/refIdentity.js"
import { INJECTED_FUNCTION_KEY, INJECTED_MADE_KEY } from "../../../src/browser/pages/injectedCache.js"

// Putting svc's ref checks in place in a utility world (refChecks.prepareChecks), run here on fake elements
// with the world's globals set where the page keeps them. Refs the library gave before the checks were in
// place are taken over, unless the world shows the library never made its script there: then there are
// none, and the page's elements are not looked through.

const g = globalThis as unknown as Record<string, unknown>
const PROPERTY = "_ariaRef"
const KEY = "__svcRefChecks_test"

class FakeElement {
  readonly shadowRoot = null
}
class FakeObserver {
  observe() {}
  takeRecords() {
    return []
  }
}

interface State {
  readonly byRef: Map<string, WeakRef<object>>
}

/** A world with two elements, the first of them given a ref by the library; `world` sets svc's markers in it. */
const prepareIn = (world: Record<string, unknown>) => {
  const marked = new FakeElement() as FakeElement & Record<string, unknown>
  marked[PROPERTY] = { role: "button", name: "Save", ref: "e1" }
  const plain = new FakeElement()
  let looked = 0
  Object.assign(g, {
    Element: FakeElement,
    MutationObserver: FakeObserver,
    document: {
      querySelectorAll: () => {
        looked++
        return [marked, plain]
      }
    },
    ...world
  })
  const arg = { key: KEY, property: PROPERTY, ignore: "data-svc-ref", libraryFunction: INJECTED_FUNCTION_KEY, libraryMade: INJECTED_MADE_KEY }
  expect(prepareChecks(arg, (() => "ok") as never, guardFound)).toBe(true)
  return { marked, looked, state: g[KEY] as State }
}

afterEach(() => {
  for (const key of [KEY, INJECTED_FUNCTION_KEY, INJECTED_MADE_KEY, "Element", "MutationObserver", "document"]) delete g[key]
  delete (FakeElement.prototype as unknown as Record<string, unknown>)[PROPERTY]
})

describe("prepareChecks", () => {
  it("takes over the refs the library gave where it made its script the usual way", () => {
    const { marked, looked, state } = prepareIn({})
    expect(looked).toBe(1)
    expect(Object.getOwnPropertyDescriptor(marked, PROPERTY)).toBeUndefined()
    expect(state.byRef.get("e1")?.deref()).toBe(marked)
    expect(marked[PROPERTY]).toEqual({ role: "button", name: "Save", ref: "e1" })
  })

  it("takes them over where the library made its script from svc's function", () => {
    const { marked, looked, state } = prepareIn({ [INJECTED_FUNCTION_KEY]: () => undefined, [INJECTED_MADE_KEY]: true })
    expect(looked).toBe(1)
    expect(state.byRef.get("e1")?.deref()).toBe(marked)
  })

  it("does not look through the page where the function is there and the library has not made its script yet", () => {
    const { looked, state } = prepareIn({ [INJECTED_FUNCTION_KEY]: () => undefined })
    expect(looked).toBe(0)
    expect(state.byRef.size).toBe(0)
    // Refs the library gives from now on are kept.
    const later = new FakeElement() as FakeElement & Record<string, unknown>
    later[PROPERTY] = { role: "link", name: "Next", ref: "e2" }
    expect(state.byRef.get("e2")?.deref()).toBe(later)
  })
})
