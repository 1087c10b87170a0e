import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { kindUntouched, startWatch, watchChanged } from "../../../src/browser/act/refIdentity.js"

// The in-page half of telling whether a role snapshot's look-alikes kept their order while the page changed
// (refIdentity.kindUntouched), run here on a small tree of fake nodes with the watch's state put where the
// page keeps it.

interface FakeNode {
  readonly name: string
  readonly parent: FakeNode | undefined
  contains(other: unknown): boolean
}

const node = (name: string, parent?: FakeNode): FakeNode => ({
  name,
  parent,
  contains(other: unknown) {
    for (let n = other as FakeNode | undefined; n !== undefined; n = n.parent) if (n === this) return true
    return false
  }
})

// body > (clock > clockText), (list > row1 > edit1, row2 > edit2)
const body = node("body")
const clock = node("clock", body)
const clockText = node("#text", clock)
const list = node("list", body)
const edit1 = node("edit1", node("row1", list))
const edit2 = node("edit2", node("row2", list))
const label = node("#text", edit2)

const KEY = "__svcRefWatch_test"
const g = globalThis as unknown as Record<string, unknown>

// A mutation observer the test drives: `deliver` hands it records as the browser would, `queued` are left
// for takeRecords.
let deliver: (targets: ReadonlyArray<FakeNode>) => void = () => undefined
let queued: Array<FakeNode> = []
class FakeObserver {
  constructor(callback: (records: Array<{ readonly target: unknown }>) => void) {
    deliver = (targets) => callback(targets.map((target) => ({ target })))
  }
  observe() {}
  disconnect() {}
  takeRecords() {
    return queued.splice(0).map((target) => ({ target }))
  }
}

/** A watch started as the page starts it (startWatch), that saw changes to `touched` and has `pending` queued. */
const watch = (touched: ReadonlyArray<FakeNode>, pending: ReadonlyArray<FakeNode> = []) => {
  queued = [...pending]
  startWatch(KEY)
  if (touched.length > 0) deliver(touched)
}

beforeAll(() => {
  Object.assign(g, { MutationObserver: FakeObserver, document: body })
})
afterAll(() => {
  delete g.MutationObserver
  delete g.document
})
afterEach(() => {
  delete g[KEY]
})

describe("a kind of look-alikes the page's changes did not touch", () => {
  it("is untouched by changes elsewhere (a clock ticking beside the list)", () => {
    watch([clock, clockText])
    expect(kindUntouched([edit1, edit2], { key: KEY, count: 2 })).toBe(true)
  })

  it("is touched by a change inside one of them, or around them (the list reordered, a row added)", () => {
    watch([label])
    expect(kindUntouched([edit1, edit2], { key: KEY, count: 2 })).toBe(false)
    watch([list])
    expect(kindUntouched([edit1, edit2], { key: KEY, count: 2 })).toBe(false)
    watch([edit1])
    expect(kindUntouched([edit1, edit2], { key: KEY, count: 2 })).toBe(false)
  })

  it("counts the changes not yet delivered to the watch", () => {
    watch([], [list])
    expect(watchChanged(KEY)).toBe(true)
    expect(kindUntouched([edit1, edit2], { key: KEY, count: 2 })).toBe(false)
  })

  it("is not vouched for when their number changed, the watch overflowed or is gone", () => {
    watch([clock])
    expect(kindUntouched([edit1], { key: KEY, count: 2 })).toBe(false)
    // More changed nodes than are kept: any of them may be around the kind.
    watch(Array.from({ length: 2_001 }, (_, k) => node(`far ${k}`)))
    expect(watchChanged(KEY)).toBe(true)
    expect(kindUntouched([edit1, edit2], { key: KEY, count: 2 })).toBe(false)
    delete g[KEY]
    expect(kindUntouched([edit1, edit2], { key: KEY, count: 2 })).toBe(false)
    expect(watchChanged(KEY)).toBe(true)
  })

  it("a watch that saw nothing says so", () => {
    watch([])
    expect(watchChanged(KEY)).toBe(false)
  })
})
