import { Effect, Either, ParseResult, Schema } from "effect"
import * as fs from "node:fs/promises"
import { Forbidden, InvalidRequest } from "../../domain/errors.js"
import { Profiles } from "../launch/Profiles.js"
import { StorageStateFile } from "../../domain/browserState.js"
import { TabPages } from "../pages/TabPages.js"
import { Files } from "./Files.js"
import { pageCall } from "./PageCall.js"
import { SafePaths } from "./SafePaths.js"

// A profile's signed-in state kept in a file and put back later: its cookies and each origin's local
// storage, in the states root (owner-only, as the files are). Saving never replaces a file; loading clears
// what the profile had first (cookies, local storage), then sets the file's, and is refused on the relay
// profile (the user's own browser). The format is Playwright's, so
// a state saved by its tools loads here and the other way round.

/** Larger than any real state; a file past it is not read. */
const MAX_STATE_BYTES = 16 * 1024 * 1024
/** Loading opens a page per origin to clear and set its storage. */
const LOAD_TIMEOUT_MS = 30_000

type Tab = { readonly profile?: string | undefined; readonly targetId?: string | undefined }

const defaultName = (now: Date) => `storage-state-${now.toISOString().replace(/[:.]/g, "-")}.json`

/** The file's state, or what is wrong with it, said so that it can be fixed. */
export const readStateText = (text: string, file: string): Either.Either<StorageStateFile, InvalidRequest> => {
  const bad = (why: string) =>
    Either.left(new InvalidRequest({ message: `storage state ${file}: ${why}; save one with \`svc browser state save\`` }))
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (e) {
    return bad(`not JSON (${(e as Error).message})`)
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    return bad("not a storage state: expected an object {cookies: [...], origins: [...]}")
  }
  return Either.match(Schema.decodeUnknownEither(StorageStateFile, { onExcessProperty: "ignore" })(json), {
    onLeft: (e) => {
      // One problem per place (a literal union fails once per member), the first few places.
      const issues = ParseResult.ArrayFormatter.formatErrorSync(e)
      const places = [...new Map(issues.map((i) => [i.path.join("."), i.message] as const)).entries()]
      return bad(`not a storage state: ${places.slice(0, 3).map(([at, why]) => `${at}: ${why}`).join("; ")}`)
    },
    onRight: (state) => Either.right(state)
  })
}

export class StorageStates extends Effect.Service<StorageStates>()("svc/StorageStates", {
  effect: Effect.gen(function*() {
    const { pageOf } = yield* TabPages
    const safe = yield* SafePaths
    const files = yield* Files
    const profiles = yield* Profiles

    const save = (q: Tab & { readonly filename?: string | undefined }) =>
      Effect.gen(function*() {
        // The name is checked before anything is read from the browser.
        const dest = yield* safe.newState(q.filename ?? defaultName(new Date()))
        const { page, tab } = yield* pageOf(q.profile, q.targetId)
        const state = yield* pageCall("state save", () => page.context().storageState())
        const saved = { cookies: state.cookies, origins: state.origins.map((o) => ({ origin: o.origin, localStorage: o.localStorage })) }
        yield* files.placeFile(dest, new TextEncoder().encode(`${JSON.stringify(saved, null, 2)}\n`), (yield* safe.roots).states)
        return { targetId: tab.targetId, path: dest, cookies: saved.cookies.length, origins: saved.origins.length }
      }).pipe(Effect.withSpan("StorageStates.save"))

    const load = (q: Tab & { readonly filename: string }) =>
      Effect.gen(function*() {
        // Loading clears every cookie first: over the relay, those of the user's own browser and its sign-ins.
        const profile = yield* profiles.resolve(q.profile)
        if (profile.driver === "relay") {
          return yield* new Forbidden({
            message: `state load clears every cookie and the local storage of the browser before loading; profile ` +
              `"${profile.name}" drives your own browser through the extension relay, whose sign-ins it would wipe, so ` +
              "it is refused there; load the state into the managed browser (`--browser-profile svc`)"
          })
        }
        const file = yield* safe.savedState(q.filename)
        const text = yield* Effect.tryPromise({
          try: async () => {
            const { size } = await fs.stat(file)
            if (size > MAX_STATE_BYTES) throw new Error(`it is ${size} bytes, more than a storage state holds (${MAX_STATE_BYTES})`)
            return await fs.readFile(file, "utf8")
          },
          catch: (e) => new InvalidRequest({ message: `storage state ${file}: cannot read it: ${(e as Error).message}` })
        })
        const state = yield* readStateText(text, file)
        const { page, tab } = yield* pageOf(q.profile, q.targetId)
        yield* pageCall("state load", () => page.context().setStorageState({ cookies: [...state.cookies], origins: state.origins.map((o) => ({ origin: o.origin, localStorage: [...o.localStorage] })) }), LOAD_TIMEOUT_MS)
        return { targetId: tab.targetId, path: file, cookies: state.cookies.length, origins: state.origins.length }
      }).pipe(Effect.withSpan("StorageStates.load"))

    return { save, load } as const
  })
}) {}
