import { afterEach, describe, expect, it } from "vitest"
import { armWalkBound, BOUND_KEY, type BoundArgs, releaseWalkBound } from "../../../src/browser/snapshot/walkEnd.js"

// The arming pass asks, before the walk, the style of each element the walk will read (see walkEnd.ts), in a
// stand-in document: which elements it asks, and which it leaves. The end itself is tested against real
// Chromium (test/e2e/snapshot-bound.test.ts).

interface Look {
  readonly display?: string
  readonly shown?: boolean
}

class FakeNode {
  nodeType = 1
  parentNode: FakeNode | null = null
  firstChild: FakeNode | null = null
  next: FakeNode | null = null
  readonly hidden = false
  readonly shadowRoot = null
  readonly assignedSlot = null
  isConnected = true
  constructor(readonly nodeName: string, readonly look: Look = {}, readonly data?: string) {
    if (data !== undefined) this.nodeType = 3
  }
  get nextSibling(): FakeNode | null {
    return this.next
  }
  get textContent(): string {
    return this.data ?? ""
  }
  contains(other: FakeNode): boolean {
    for (let n: FakeNode | null = other; n !== null; n = n.parentNode) if (n === this) return true
    return false
  }
  getAttribute(): string | null {
    return null
  }
  hasAttribute(): boolean {
    return false
  }
  checkVisibility(): boolean {
    return this.look.shown ?? true
  }
}

const el = (name: string, look: Look, ...children: Array<FakeNode>) => {
  const n = new FakeNode(name, look)
  children.forEach((c, i) => {
    c.parentNode = n
    if (i === 0) n.firstChild = c
    else children[i - 1]!.next = c
  })
  return n
}
const text = (s: string) => new FakeNode("#text", {}, s)

const g = globalThis as unknown as Record<string, unknown>
const saved = ["document", "Node", "getComputedStyle"].map((k) => [k, g[k]] as const)
afterEach(() => {
  for (const [k, v] of saved) g[k] = v
})

/** Arms over `body` with a cap of `limit` characters; the names of the elements whose style was asked, in order. */
const arm = (body: FakeNode, limit: number) => {
  const asked: Array<string> = []
  g.document = { body, documentElement: body }
  g.Node = FakeNode
  g.getComputedStyle = (n: FakeNode) => {
    asked.push(n.nodeName)
    return { display: n.look.display ?? "block" }
  }
  const args: BoundArgs = {
    key: BOUND_KEY,
    limit,
    firstRoom: 1,
    knownRoom: 1,
    perElement: 10,
    perDepth: 0,
    controls: false,
    perControl: 24,
    controlText: 60,
    controlRoles: [],
    sameEnd: false,
    id: 1
  }
  const answer = armWalkBound(args as never)
  releaseWalkBound(BOUND_KEY, 1, 0)
  return { asked, answer }
}

describe("the arming pass asks the styles the walk will read, first", () => {
  const page = () =>
    el(
      "BODY",
      {},
      el("P", {}, text("one")),
      el("DIV", { display: "none" }, el("SPAN", {}, text("under display none"))),
      el("DETAILS", {}, el("SUMMARY", {}, text("More")), el("DIV", { shown: false }, el("EM", {}, text("closed")))),
      el("SECTION", { display: "contents", shown: false }, el("B", {}, text("in contents"))),
      el("FOOTER", {}, text("last"))
    )

  it("asks every element the walk goes into, not under an element it does not show, and through display:contents", () => {
    const { asked, answer } = arm(page(), 1_000_000)
    expect(answer).toEqual({ bounded: false })
    expect(asked).toEqual(["BODY", "P", "DIV", "DETAILS", "SUMMARY", "DIV", "SECTION", "B", "FOOTER"])
  })

  it("stops at the end: what the walk will not read is not asked", () => {
    // The estimate passes the cap at the summary: the walk ends there.
    const { asked, answer } = arm(page(), 75)
    expect(answer).toMatchObject({ bounded: true })
    expect(asked).toEqual(["BODY", "P", "DIV", "DETAILS", "SUMMARY"])
  })
})
