import { McpSchema } from "@effect/ai"
import { Effect, Either } from "effect"
import * as fs from "node:fs/promises"
import { makeBrowserTool } from "../agent/tool/BrowserTool.js"
import { routingSettings } from "../agent/tool/targetRouting.js"
import { locateStatePaths } from "../config/locate.js"
import { parseConfigText } from "../config/parse.js"
import { BrowserToolParams } from "../domain/browserTool.js"
import { inputJsonSchema, type McpTool } from "./tool.js"

// svc's own agent tool, `browser`, served beside the Playwright-MCP-shaped tools: the same definition and
// executor the gateway's agents use (agent/tool/), with the session's routing (`svc mcp --sandbox` is a
// sandboxed session) and the routing settings of svc.json as they are at each call.

/** agents.defaults.sandbox.browser.allowHostControl and gateway.nodes.browser.mode from this state dir's svc.json. */
const settings = Effect.flatMap(locateStatePaths, (paths) =>
  Effect.promise(() =>
    fs.readFile(paths.configFile, "utf8").then(
      (text) => Either.getOrElse(Either.map(parseConfigText(text, paths.configFile), routingSettings), () => routingSettings({})),
      () => routingSettings({})
    )
  ))

export const browserTool: McpTool = {
  tool: new McpSchema.Tool({
    name: "browser",
    title: "Browser (svc)",
    description: (BrowserToolParams.ast.annotations[Symbol.for("effect/annotation/Description")] as string | undefined) ??
      "Drive a web browser",
    inputSchema: inputJsonSchema(BrowserToolParams),
    annotations: new McpSchema.ToolAnnotations({
      title: "Browser (svc)",
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true
    })
  }),
  handle: (payload, env) =>
    Effect.gen(function*() {
      const routing = yield* settings
      const tool = makeBrowserTool(env.client, env.readFile)
      // No nodes given: the tool asks the gateway for the connected ones when routing can use them.
      const r = yield* tool.run(payload ?? {}, { sandboxed: env.sandboxed, ...routing })
      return new McpSchema.CallToolResult({
        isError: r.isError,
        content: r.content.map((c) => c.type === "text" ? { type: "text", text: c.text } : { type: "image", data: c.data, mimeType: c.mimeType })
      })
    })
}
