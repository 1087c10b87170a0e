import { FileSystem, HttpClient, Path, Terminal } from "@effect/platform"
import * as NodePath from "@effect/platform-node/NodePath"
import { Context, Effect, Layer } from "effect"
import { GatewayRunner } from "../gateway/GatewayRunner.js"
import { leanFileSystem } from "../platform/lean/fileSystem.js"
import { leanHttpClient } from "../platform/lean/httpClient.js"
import { leanTerminal } from "../platform/lean/terminal.js"
import { McpRunner } from "../mcp/McpRunner.js"
import { NodeRunner } from "../node/NodeRunner.js"
import { handOverGatewayRunner, handOverMcpRunner, handOverNodeRunner } from "./gatewayHandOver.js"

// The CLI's platform for the V8 start-up snapshot (src/entry/cli.ts). Everything it holds is evaluated
// while the snapshot is built, where `node:http`, `node:readline`, `node:child_process` and friends cannot
// be loaded: each piece (src/platform/lean/) loads its builtins on first use, through platform/builtin.ts.
// Where the CLI uses them, they behave like their @effect/platform-node counterparts.

/** node:path as the Path service, taken out of its layer once (at build time, in the snapshot). */
const nodePath: Path.Path = Effect.runSync(Effect.provide(Path.Path, NodePath.layer))

export interface LeanRuntimeOptions {
  /** dist/svc.cjs, which `svc gateway run` hands over to. */
  readonly fullBundle: string
  /** The node options to run it with (not the snapshot's). */
  readonly execArgv: ReadonlyArray<string>
}

/**
 * FileSystem, Path, Terminal and HttpClient for the CLI inside the start-up snapshot, and the GatewayRunner
 * that hands over to the full bundle. A plain context: providing it builds nothing, where a layer would
 * build a memo map, a scope and a fiber per layer on every run.
 */
export const leanRuntimeContext = (options: LeanRuntimeOptions) =>
  Context.make(FileSystem.FileSystem, leanFileSystem).pipe(
    Context.add(Path.Path, nodePath),
    Context.add(Terminal.Terminal, leanTerminal),
    Context.add(HttpClient.HttpClient, leanHttpClient),
    Context.add(GatewayRunner, handOverGatewayRunner(options.fullBundle, options.execArgv)),
    Context.add(McpRunner, handOverMcpRunner(options.fullBundle, options.execArgv)),
    Context.add(NodeRunner, handOverNodeRunner(options.fullBundle, options.execArgv))
  )

/** The same services as a layer. */
export const leanRuntimeLayer = (options: LeanRuntimeOptions) =>
  Layer.succeedContext(leanRuntimeContext(options))
