import { Command, Options } from "@effect/cli"
import { Option } from "effect"
import { callControl } from "./shared.js"

// `svc status [--all] [--deep]`: the running gateway, its browser and its messaging accounts.

interface Failure { readonly at: string; readonly guid: string; readonly message: string }
interface Probe {
  readonly reachable: boolean
  readonly pingMs?: number
  readonly error?: string
  readonly osVersion?: string
  readonly serverVersion?: string
  readonly privateApi?: boolean
  readonly helperConnected?: boolean
}
interface ActionInfo { readonly name: string; readonly enabled: boolean; readonly reason?: string }
interface AccountStatus {
  readonly accountId: string
  readonly webhookPath: string
  readonly serverUrl: string
  readonly dmPolicy: string
  readonly groupPolicy: string
  readonly events: { messages: number; duplicates: number; typing: number; read: number; other: number; lastEventAt?: string }
  readonly recovered: number
  readonly pairingPending: number
  readonly catchUp: { status: string; fetched: number; handed: number; error?: string }
  readonly failures: ReadonlyArray<Failure>
  readonly journal?: { readonly ok: boolean; readonly file: string; readonly failedWrites: number; readonly lastError?: string; readonly lastErrorAt?: string }
  readonly bridge?: Probe
  readonly actions?: ReadonlyArray<ActionInfo>
}

interface AgentInfo {
  readonly provider: string
  readonly model?: string
  readonly apiKey?: string
  readonly turns: number
  readonly lastError?: { readonly at: string; readonly fatal: boolean; readonly message: string }
}

const agentLines = (a: AgentInfo): Array<string> => {
  if (a.provider === "echo") return ["agent: echo (agent.provider)"]
  const lines = [`agent: ${a.provider} ${a.model ?? "?"}, API key from ${a.apiKey ?? "?"}; ${a.turns} message${a.turns === 1 ? "" : "s"} answered`]
  if (a.lastError !== undefined) {
    lines.push(`  ${a.lastError.fatal ? "NOT AVAILABLE" : "last error"} (${a.lastError.at}): ${a.lastError.message}`)
  }
  return lines
}

const duration = (ms: number) =>
  ms < 60_000 ? `${Math.round(ms / 1000)}s` : ms < 3_600_000 ? `${Math.round(ms / 60_000)}m` : `${(ms / 3_600_000).toFixed(1)}h`

export const renderGatewayStatus = (s: Record<string, unknown>, all: boolean): string => {
  const gw = s.gateway as { version: string; pid: number; uptimeMs: number; ports: { gateway: number; control: number } }
  const browser = s.browser as { defaultProfile: string; running: ReadonlyArray<string> }
  const accounts = ((s.channels as { msgbridge?: { accounts?: ReadonlyArray<AccountStatus> } }).msgbridge?.accounts) ?? []
  const lines = [
    `gateway: running (pid ${gw.pid}, up ${duration(gw.uptimeMs)}, svc ${gw.version}), gateway port ${gw.ports.gateway}, control 127.0.0.1:${gw.ports.control}`,
    `browser: default profile ${browser.defaultProfile}; running: ${browser.running.length === 0 ? "none" : browser.running.join(", ")}`
  ]
  const agent = s.agent as AgentInfo | undefined
  if (agent !== undefined) lines.push(...agentLines(agent))
  if (accounts.length === 0) lines.push("msgbridge: not configured (svc onboard)")
  for (const a of accounts) {
    lines.push(`msgbridge ${a.accountId}: webhook ${a.webhookPath}, bridge ${a.serverUrl}, DMs ${a.dmPolicy}, groups ${a.groupPolicy}`)
    const e = a.events
    lines.push(
      `  webhooks: ${e.messages} message${e.messages === 1 ? "" : "s"}, ${e.duplicates} duplicate${e.duplicates === 1 ? "" : "s"}, ` +
        `typing ${e.typing}, read ${e.read}, other ${e.other}; last ${e.lastEventAt ?? "never (is the webhook registered on the bridge server?)"}`
    )
    lines.push(
      `  catch-up: ${a.catchUp.status}${a.catchUp.status === "done" ? ` (${a.catchUp.fetched} fetched, ${a.catchUp.handed} new)` : ""}` +
        (a.catchUp.error !== undefined ? `: ${a.catchUp.error}` : "") +
        (a.recovered > 0 ? `; ${a.recovered} recovered at start-up` : "")
    )
    if (a.pairingPending > 0) {
      lines.push(
        `  pairing: ${a.pairingPending} pending (svc pairing list msgbridge${a.accountId === "default" ? "" : ` --account ${a.accountId}`})`
      )
    }
    if (a.journal !== undefined && a.journal.failedWrites > 0) {
      lines.push(
        `  message journal: ${a.journal.ok ? "writing again" : "CANNOT BE WRITTEN"} (${a.journal.failedWrites} failed write${
          a.journal.failedWrites === 1 ? "" : "s"
        }, last at ${a.journal.lastErrorAt ?? "?"}: ${a.journal.lastError ?? "?"}); replies wait for it`
      )
    }
    if (a.failures.length === 0) lines.push("  delivery failures: none")
    else {
      const shown = all ? a.failures : a.failures.slice(-3)
      lines.push(`  delivery failures: ${a.failures.length}${all || a.failures.length <= 3 ? "" : " (last 3; --all shows every one kept)"}`)
      for (const f of shown) lines.push(`    ${f.at} ${f.guid}: ${f.message}`)
    }
    if (a.bridge !== undefined) {
      const b = a.bridge
      lines.push(
        !b.reachable
          ? `  bridge server: unreachable: ${b.error ?? "no answer"}`
          : b.osVersion === undefined
          ? `  bridge server: reachable (${b.pingMs} ms) but server info failed: ${b.error ?? "?"}`
          : `  bridge server: reachable (${b.pingMs} ms), host OS ${b.osVersion}, server ${b.serverVersion ?? "?"}, ` +
            `Private API ${b.privateApi ? (b.helperConnected ? "on (helper connected)" : "on but helper not connected") : "off"}`
      )
    }
    if (a.actions !== undefined) {
      const on = a.actions.filter((x) => x.enabled).map((x) => x.name)
      lines.push(`  actions on: ${on.length === 0 ? "none" : on.join(", ")}`)
      for (const x of a.actions.filter((x) => !x.enabled)) lines.push(`  action ${x.name} off: ${x.reason ?? "?"}`)
    }
  }
  if (!s.deep) lines.push("(svc status --deep also asks each bridge server and lists which actions are on)")
  return lines.join("\n")
}

export const statusCommand = Command.make(
  "status",
  {
    all: Options.boolean("all").pipe(Options.withDescription("everything kept: every delivery failure")),
    deep: Options.boolean("deep").pipe(
      Options.withDescription("also ask each bridge server now: reachable, host OS, Private API, which actions are on and why not")
    ),
    json: Options.boolean("json").pipe(Options.withDescription("print the API's JSON"))
  },
  (args) =>
    callControl(
      { profile: Option.none(), json: args.json },
      (client) => client.gateway.status({ urlParams: args.deep ? { deep: "true" } : {} }),
      (s) => renderGatewayStatus(s, args.all)
    )
).pipe(Command.withDescription("the running gateway, its browser and its messaging accounts"))
