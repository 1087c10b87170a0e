import { Either } from "effect"
import type { SvcConfig } from "../../config/SvcConfig.js"

// Which browser a `browser` tool call drives: the sandbox browser (a managed profile of its own), the
// gateway host's browsers, or a connected node's. One function, so every rule is in one place.

export const SANDBOX_PROFILE = "sandbox"

/** A connected node host, whether it offers a browser, and whether it still waits for approval. */
export interface ConnectedNode {
  readonly id: string
  readonly browser: boolean
  /** Not approved yet (`svc nodes approve <id>`): never chosen, and refused when named. */
  readonly pending?: boolean
}

export interface RoutingInput {
  /** The session the call comes from runs sandboxed. */
  readonly sandboxed: boolean
  readonly target?: "sandbox" | "host" | "node" | undefined
  readonly node?: string | undefined
  readonly profile?: string | undefined
  /** agents.defaults.sandbox.browser.allowHostControl */
  readonly allowHostControl: boolean
  /** gateway.nodes.browser.mode: "auto" routes to the one browser node when nothing is pinned; "off" never uses nodes. */
  readonly nodesMode: "auto" | "off"
  readonly nodes: ReadonlyArray<ConnectedNode>
}

export type Route =
  | { readonly kind: "sandbox"; readonly profile: typeof SANDBOX_PROFILE }
  | { readonly kind: "host"; readonly profile: string | undefined }
  | { readonly kind: "node"; readonly node: string; readonly profile: string | undefined }

const HOST_KEY = "agents.defaults.sandbox.browser.allowHostControl"
const MODE_KEY = "gateway.nodes.browser.mode"

const toNode = (input: RoutingInput, pinned: boolean): Either.Either<Route, string> => {
  if (input.nodesMode === "off") {
    return Either.left(`node browsers are switched off (${MODE_KEY} is "off"); use target "host", or set ${MODE_KEY} to "auto"`)
  }
  const browsers = usableBrowsers(input.nodes)
  if (input.node !== undefined) {
    const found = browsers.find((n) => n.id === input.node)
    if (found !== undefined) return Either.right({ kind: "node", node: found.id, profile: input.profile })
    const known = input.nodes.find((n) => n.id === input.node)
    return Either.left(
      known?.pending === true
        ? `node "${input.node}" is connected but waits for approval: run \`svc nodes approve ${input.node}\` on the gateway's machine`
        : known !== undefined
        ? `node "${input.node}" is connected but offers no browser`
        : `no node "${input.node}" is connected` +
          (browsers.length > 0 ? ` (browser nodes: ${browsers.map((n) => n.id).join(", ")})` : "")
    )
  }
  if (browsers.length === 0) {
    return Either.left(
      "no browser-capable node is connected; start `svc node run` on the machine whose browser you want, or use " +
        (pinned ? "target \"host\"" : "another target")
    )
  }
  if (browsers.length > 1) {
    return Either.left(
      `${browsers.length} browser nodes are connected (${browsers.map((n) => n.id).join(", ")}); say which with node=<id>`
    )
  }
  return Either.right({ kind: "node", node: browsers[0]!.id, profile: input.profile })
}

/** Nodes a call may go to: approved, with a browser. */
const usableBrowsers = (nodes: ReadonlyArray<ConnectedNode>) => nodes.filter((n) => n.browser && n.pending !== true)

const toSandbox = (input: RoutingInput): Either.Either<Route, string> =>
  input.profile !== undefined && input.profile !== SANDBOX_PROFILE
    ? Either.left(
      `the sandbox browser is its own profile ("${SANDBOX_PROFILE}"); profile "${input.profile}" is one of the host's: ` +
        `drop profile, or use target "host"${input.sandboxed ? ` (which needs ${HOST_KEY}: true)` : ""}`
    )
    : Either.right({ kind: "sandbox", profile: SANDBOX_PROFILE })

const toHost = (input: RoutingInput): Either.Either<Route, string> =>
  input.sandboxed && !input.allowHostControl
    ? Either.left(
      `this session is sandboxed: it may drive only the sandbox browser. Set ${HOST_KEY}: true in svc.json to let ` +
        `it control the host's browsers, or use target "sandbox"`
    )
    : Either.right({ kind: "host", profile: input.profile })

/**
 * The browser a call drives, or why it may not: a pinned target is used as given (host and node are never
 * routed elsewhere); without one, `node=<id>` means that node, a sandboxed session uses the sandbox, and
 * another session the one connected browser node when there is exactly one (and nodes are not switched
 * off), else the host.
 */
export const routeBrowserCall = (input: RoutingInput): Either.Either<Route, string> => {
  switch (input.target) {
    case "sandbox":
      return toSandbox(input)
    case "host":
      return input.node !== undefined ? Either.left(`node=<id> goes with target "node", not "host"`) : toHost(input)
    case "node":
      return input.sandboxed && !input.allowHostControl
        ? Either.left(`this session is sandboxed: it may not drive a node's browser unless ${HOST_KEY} is true`)
        : toNode(input, true)
    case undefined: {
      if (input.node !== undefined) return routeBrowserCall({ ...input, target: "node" })
      if (input.sandboxed) return toSandbox(input)
      if (input.profile === undefined && input.nodesMode === "auto" && usableBrowsers(input.nodes).length === 1) {
        return toNode(input, false)
      }
      return toHost(input)
    }
  }
}

/** What routing reads from svc.json. */
export const routingSettings = (config: SvcConfig) => ({
  allowHostControl: config.agents?.defaults?.sandbox?.browser?.allowHostControl === true,
  nodesMode: config.gateway?.nodes?.browser?.mode ?? "auto"
})
