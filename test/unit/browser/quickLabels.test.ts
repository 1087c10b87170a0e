import { afterEach, describe, expect, it } from "vitest"
import { quickLabels } from "../../../src/browser/snapshot/quickLabels.js"

// The quick `labels` of the utility world (quickLabels.ts), on stand-in element classes: it answers "none"
// without asking the browser where the element's tree has no <label>, and asks it otherwise; it is sent as
// source, so it must run on its own (nothing from outside its body).

interface Root {
  readonly nodeType: number
  getElementsByTagName?(name: string): { readonly length: number }
  querySelector?(selector: string): unknown
}

const g = globalThis as unknown as Record<string, unknown>
const KEY = "__svcTestQuickLabels"
afterEach(() => {
  delete g.HTMLButtonElement
  delete g[`${KEY}:labels`]
})

/** A stand-in labelable element class whose own getter counts the browser's (slow) answers. */
const makeButtons = () => {
  let asked = 0
  class HTMLButtonElement {
    constructor(readonly root: Root) {}
    getRootNode(): Root {
      return this.root
    }
    get labels(): ReadonlyArray<string> {
      asked++
      return ["from the browser"]
    }
  }
  g.HTMLButtonElement = HTMLButtonElement
  return { HTMLButtonElement, asked: () => asked }
}

const documentWith = (labels: number): Root => ({ nodeType: 9, getElementsByTagName: () => ({ length: labels }) })
const shadowWith = (label: boolean): Root => ({ nodeType: 11, querySelector: () => (label ? {} : null) })

describe("quickLabels", () => {
  it("answers none at once where the tree has no label, and asks the browser where it has one", () => {
    const b = makeButtons()
    // Run from its source text, as the page runs it.
    new Function(`(${quickLabels.toString()})(${JSON.stringify(KEY)})`)()
    expect([...new b.HTMLButtonElement(documentWith(0)).labels]).toEqual([])
    expect([...new b.HTMLButtonElement(shadowWith(false)).labels]).toEqual([])
    expect(b.asked()).toBe(0)
    expect([...new b.HTMLButtonElement(documentWith(2)).labels]).toEqual(["from the browser"])
    expect([...new b.HTMLButtonElement(shadowWith(true)).labels]).toEqual(["from the browser"])
    expect(b.asked()).toBe(2)
  })

  it("is installed once per world: a second call does not wrap the getter again", () => {
    const b = makeButtons()
    quickLabels(KEY)
    const once = Object.getOwnPropertyDescriptor(b.HTMLButtonElement.prototype, "labels")!.get
    quickLabels(KEY)
    expect(Object.getOwnPropertyDescriptor(b.HTMLButtonElement.prototype, "labels")!.get).toBe(once)
  })
})
