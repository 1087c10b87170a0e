import { describe, expect, it } from "@effect/vitest"
import { Effect, Logger } from "effect"
import { RedactingLogger } from "../../../src/gateway/run.js"

// The gateway's log is often kept in a file or a journal: URLs in its lines show no credentials or tokens.

describe("the gateway's logger", () => {
  it.effect("prints log lines with the secrets of the URLs they quote hidden", () =>
    Effect.gen(function*() {
      const lines: Array<string> = []
      const original = globalThis.console.log
      globalThis.console.log = (...args: Array<unknown>) => void lines.push(args.map(String).join(" "))
      try {
        yield* Effect.logWarning("could not reach http://agent:hush-hush@10.0.0.5:9222/?token=t0k3n", "and wss://x:y@h/").pipe(
          // As in the gateway: the runtime's pretty logger is in place, then the gateway replaces it.
          Effect.provide(RedactingLogger),
          Effect.provide(Logger.replace(Logger.defaultLogger, Logger.prettyLoggerDefault))
        )
      } finally {
        globalThis.console.log = original
      }
      const text = lines.join("\n")
      expect(text).toContain("could not reach http://agent:***@10.0.0.5:9222/?token=***")
      expect(text).toContain("wss://x:***@h/")
      expect(text).not.toContain("hush-hush")
      expect(text).not.toContain("t0k3n")
    }))
})
