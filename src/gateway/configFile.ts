import { Console, Effect } from "effect"
import * as fs from "node:fs"
import { GatewayRunError } from "./GatewayRunner.js"

// svc.json holds the gateway's token and the bridge's password. At start: a file others can read is made
// owner-only (and said so), and an empty one is refused rather than silently replaced by a fresh config
// with a new token (an empty svc.json is a file cut short, not a wish to start over).

export const checkConfigFile = (file: string) =>
  Effect.gen(function*() {
    let st: fs.Stats
    try {
      st = fs.statSync(file)
    } catch {
      return // none yet: the gateway writes one, owner-only
    }
    if (!st.isFile()) return yield* Effect.fail(new GatewayRunError(`${file} is not a regular file; move it aside`))
    if (st.size === 0) {
      return yield* Effect.fail(
        new GatewayRunError(
          `${file} is empty (0 bytes), maybe cut short by a crash or a full disk; restore it from a backup, or ` +
            "delete it to start with a fresh config (and a new gateway token)"
        )
      )
    }
    if ((st.mode & 0o077) !== 0) {
      yield* Effect.try({
        try: () => fs.chmodSync(file, 0o600),
        catch: (e) => new GatewayRunError(`${file} is readable by other users and cannot be made owner-only: ${(e as Error).message}`)
      })
      yield* Console.error(
        `svc: ${file} holds secrets and was readable by other users (mode ${(st.mode & 0o777).toString(8)}); made it owner-only (600)`
      )
    }
  })
