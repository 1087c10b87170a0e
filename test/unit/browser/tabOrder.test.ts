import { describe, expect, it } from "vitest"
import { makeTabOrder } from "../../../src/browser/pages/tabOrder.js"

// Tab indices as numbers that are never reused: the edge cases the end-to-end test does not reach.

describe("tab order", () => {
  it("numbers tabs found on attach in the browser's order, then new ones after them", () => {
    const order = makeTabOrder()
    expect([...order.sync("p", ["Z", "A", "M"])]).toEqual([["Z", 0], ["A", 1], ["M", 2]])
    expect(order.indexOf("p", "B")).toBe(3)
    expect(order.sync("p", ["A", "B", "M", "Z"]).get("B")).toBe(3)
  })

  it("never gives a closed tab's index to a later tab, and keeps profiles apart", () => {
    const order = makeTabOrder()
    order.sync("p", ["a", "b", "c"])
    order.sync("p", ["a", "c"])
    expect(order.indexOf("p", "d")).toBe(3)
    // A tab that comes back under the same targetId after being gone is a new tab to us.
    expect(order.sync("p", ["a", "b", "c", "d"]).get("b")).toBe(4)
    expect(order.indexOf("q", "x")).toBe(0)
  })
})
