import { it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect } from "vitest"
import { describeCliError } from "../../../src/cli/errors.js"
import { editConfig } from "../../../src/config/edit.js"
import { setPath } from "../../../src/config/file.js"

const configIn = (text?: string) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-edit-"))
  const file = path.join(dir, "svc.json")
  if (text !== undefined) fs.writeFileSync(file, text)
  return file
}

describe("editConfig (the one svc.json writer)", () => {
  it.effect("applies the edit, keeps every other key as it was, writes 0600 and returns the new config", () =>
    Effect.gen(function*() {
      const file = configIn('{"$schema":"x","browser":{"color":"#112233"}}')
      const config = yield* editConfig(file, (raw) => setPath(raw, "gateway.port", 19000))
      expect(config).toEqual({ $schema: "x", browser: { color: "#112233" }, gateway: { port: 19000 } })
      expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual(config)
      expect(fs.statSync(file).mode & 0o777).toBe(0o600)
      expect(fs.readdirSync(path.dirname(file))).toEqual(["svc.json"])
    }))

  it.effect("creates a missing file (and its directory)", () =>
    Effect.gen(function*() {
      const file = path.join(path.dirname(configIn()), "nested", "svc.json")
      yield* editConfig(file, (raw) => setPath(raw, "browser.headless", true))
      expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({ browser: { headless: true } })
    }))

  it.effect("refuses an invalid result and writes nothing; the CLI says `not saved`", () =>
    Effect.gen(function*() {
      const file = configIn('{"browser":{"color":"#112233"}}')
      const before = fs.readFileSync(file, "utf8")
      const e = yield* Effect.flip(editConfig(file, (raw) => setPath(raw, "browser.color", "red")))
      expect([e._tag, e.stage, e.file]).toEqual(["ConfigEditError", "invalid", file])
      expect(e.detail).toContain(`invalid config ${file}: browser.color`)
      expect(fs.readFileSync(file, "utf8")).toBe(before)
      expect(describeCliError(e)).toBe(`not saved: ${e.detail}`)
    }))

  it.effect("a file that is not a JSON object is a read failure; the CLI says `cannot read`", () =>
    Effect.gen(function*() {
      const file = configIn("[1, 2]")
      const e = yield* Effect.flip(editConfig(file, () => {}))
      expect([e.stage, e.detail]).toEqual(["read", "expected a JSON object"])
      expect(describeCliError(e)).toBe(`cannot read ${file}: expected a JSON object`)
    }))
})
