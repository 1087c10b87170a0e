import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { type RoutingInput, routeBrowserCall } from "../../../src/agent/tool/targetRouting.js"

// Every rule of the `browser` tool's target routing.

const base: RoutingInput = { sandboxed: false, allowHostControl: false, nodesMode: "auto", nodes: [] }
const route = (over: Partial<RoutingInput>) => routeBrowserCall({ ...base, ...over })
const ok = (over: Partial<RoutingInput>) => Either.getOrThrow(route(over))
const refused = (over: Partial<RoutingInput>) => Either.flip(route(over)).pipe(Either.getOrThrow)
const one = [{ id: "mac", browser: true }]
const two = [{ id: "mac", browser: true }, { id: "pi", browser: true }]

describe("browser target routing", () => {
  it("without a target: a sandboxed session uses the sandbox, another the host", () => {
    expect(ok({ sandboxed: true })).toEqual({ kind: "sandbox", profile: "sandbox" })
    expect(ok({})).toEqual({ kind: "host", profile: undefined })
    expect(ok({ profile: "work" })).toEqual({ kind: "host", profile: "work" })
  })

  it("target host from a sandboxed session needs allowHostControl, and says which key", () => {
    expect(refused({ sandboxed: true, target: "host" })).toContain("agents.defaults.sandbox.browser.allowHostControl")
    expect(ok({ sandboxed: true, target: "host", allowHostControl: true })).toEqual({ kind: "host", profile: undefined })
    expect(refused({ sandboxed: true, profile: "svc" })).toContain("allowHostControl")
  })

  it("the sandbox is its own profile: a host profile with it is refused", () => {
    expect(refused({ target: "sandbox", profile: "svc" })).toContain("its own profile")
    expect(ok({ target: "sandbox", profile: "sandbox" })).toEqual({ kind: "sandbox", profile: "sandbox" })
  })

  it("auto: exactly one browser node and nothing pinned goes to that node", () => {
    expect(ok({ nodes: one })).toEqual({ kind: "node", node: "mac", profile: undefined })
    // A node without a browser does not count.
    expect(ok({ nodes: [{ id: "mac", browser: false }] })).toEqual({ kind: "host", profile: undefined })
    // Several nodes: auto stays on the host.
    expect(ok({ nodes: two })).toEqual({ kind: "host", profile: undefined })
  })

  it("several nodes need node=<id>; a named node must be a connected browser node", () => {
    expect(refused({ target: "node", nodes: two })).toMatch(/2 browser nodes .*mac, pi.*node=<id>/)
    expect(ok({ target: "node", node: "pi", nodes: two })).toEqual({ kind: "node", node: "pi", profile: undefined })
    expect(ok({ node: "pi", nodes: two })).toEqual({ kind: "node", node: "pi", profile: undefined })
    expect(refused({ node: "nas", nodes: two })).toContain(`no node "nas"`)
    expect(refused({ node: "tv", nodes: [...two, { id: "tv", browser: false }] })).toContain("offers no browser")
  })

  it("a node waiting for approval is never chosen, and naming it says how to approve it", () => {
    const pending = [{ id: "mac", browser: true, pending: true }]
    expect(ok({ nodes: pending })).toEqual({ kind: "host", profile: undefined })
    expect(ok({ nodes: [...pending, { id: "pi", browser: true }] })).toEqual({ kind: "node", node: "pi", profile: undefined })
    expect(refused({ node: "mac", nodes: pending })).toContain("svc nodes approve mac")
    expect(refused({ target: "node", nodes: pending })).toContain("no browser-capable node is connected")
  })

  it("target node without a connected browser node says so", () => {
    expect(refused({ target: "node" })).toContain("no browser-capable node is connected")
  })

  it("gateway.nodes.browser.mode off: never routed to a node, and target node is refused naming the key", () => {
    expect(ok({ nodesMode: "off", nodes: one })).toEqual({ kind: "host", profile: undefined })
    expect(refused({ nodesMode: "off", target: "node", nodes: one })).toContain("gateway.nodes.browser.mode")
  })

  it("a pinned host or profile is never auto-routed to a node", () => {
    expect(ok({ target: "host", nodes: one })).toEqual({ kind: "host", profile: undefined })
    expect(ok({ profile: "svc", nodes: one })).toEqual({ kind: "host", profile: "svc" })
    expect(refused({ target: "host", node: "mac", nodes: one })).toContain(`goes with target "node"`)
  })

  it("a sandboxed session never reaches a node unless host control is allowed", () => {
    expect(ok({ sandboxed: true, nodes: one })).toEqual({ kind: "sandbox", profile: "sandbox" })
    expect(refused({ sandboxed: true, target: "node", nodes: one })).toContain("allowHostControl")
    expect(ok({ sandboxed: true, target: "node", nodes: one, allowHostControl: true })).toEqual({ kind: "node", node: "mac", profile: undefined })
  })
})

describe("routing settings from svc.json", () => {
  it("reads allowHostControl and the node mode, defaulting to no host control and auto", async () => {
    const { routingSettings } = await import("../../../src/agent/tool/targetRouting.js")
    expect(routingSettings({})).toEqual({ allowHostControl: false, nodesMode: "auto" })
    expect(routingSettings({
      agents: { defaults: { sandbox: { browser: { allowHostControl: true } } } },
      gateway: { nodes: { browser: { mode: "off" } } }
    })).toEqual({ allowHostControl: true, nodesMode: "off" })
  })
})
