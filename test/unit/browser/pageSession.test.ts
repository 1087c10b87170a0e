import type { Page } from "playwright-core"
import { describe, expect, it } from "vitest"
import { openPageSession } from "../../../src/browser/pages/pageSession.js"

// svc's own session of a page gives the library its utility world in documents that have none (an iframe
// whose document was made while the library was taking the page over). A fake session pins which frames
// get one: the end-to-end side is automation-core's iframe snapshots.

const WORLD = "__playwright_utility_world_page@abc"

interface Context {
  readonly id: number
  readonly name: string
  readonly frameId: string
  readonly isDefault: boolean
}

/** A CDP session that lists `contexts` on Runtime.enable, as Chromium does, and records what it is sent. */
const fakePage = (contexts: ReadonlyArray<Context>) => {
  const sent: Array<{ method: string; params: unknown }> = []
  const handlers = new Map<string, Array<(event: unknown) => void>>()
  const emit = (event: string, payload: unknown) => {
    for (const h of handlers.get(event) ?? []) h(payload)
  }
  const session = {
    on: (event: string, handler: (event: unknown) => void) => {
      handlers.set(event, [...(handlers.get(event) ?? []), handler])
      return session
    },
    send: (method: string, params?: unknown) => {
      sent.push({ method, params })
      if (method === "Target.getTargetInfo") return Promise.resolve({ targetInfo: { targetId: "TOP" } })
      if (method === "Runtime.enable") {
        for (const c of contexts) {
          emit("Runtime.executionContextCreated", {
            context: { id: c.id, name: c.name, auxData: { frameId: c.frameId, isDefault: c.isDefault } }
          })
        }
      }
      return Promise.resolve({})
    }
  }
  const page = { _guid: "page@abc", context: () => ({ newCDPSession: () => Promise.resolve(session) }) } as unknown as Page
  return { page, created: () => sent.filter((s) => s.method === "Page.createIsolatedWorld").map((s) => s.params) }
}

describe("svc's session of a page", () => {
  it("gives the library's utility world to a document that has none, and to no other", async () => {
    const { created, page } = fakePage([
      { id: 1, name: "", frameId: "TOP", isDefault: true },
      { id: 2, name: WORLD, frameId: "TOP", isDefault: false },
      { id: 3, name: "", frameId: "LATE", isDefault: true },
      { id: 4, name: "", frameId: "FINE", isDefault: true },
      { id: 5, name: WORLD, frameId: "FINE", isDefault: false },
      // Another client's world is not the library's.
      { id: 6, name: "__playwright_utility_world_page@other", frameId: "LATE", isDefault: false }
    ])
    const info = await openPageSession(page)
    expect(created()).toEqual([{ frameId: "LATE", worldName: WORLD, grantUniveralAccess: true }])
    expect(info.utility).toBe(2)
    expect(info.frameUtilities).toEqual([["FINE", 5]])
  })

  it("creates nothing when every document has the world", async () => {
    const { created, page } = fakePage([
      { id: 1, name: "", frameId: "TOP", isDefault: true },
      { id: 2, name: WORLD, frameId: "TOP", isDefault: false }
    ])
    await openPageSession(page)
    expect(created()).toEqual([])
  })
})
