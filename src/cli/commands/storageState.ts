import { Args, Command } from "@effect/cli"
import { loadedStateLine, savedStateLine } from "../../client/storageState.js"
import { tabOptions } from "./inspect.js"
import { callControl, given } from "./shared.js"

// `svc browser state save|load`: the profile's cookies and local storage kept in a file of the states root,
// and put back later (a signed-in session reused without signing in again).

const save = Command.make(
  "save",
  {
    ...tabOptions,
    filename: Args.text({ name: "filename" }).pipe(
      Args.withDescription("the file's name in the states root (default storage-state-<time>.json); never over a file"),
      Args.optional
    )
  },
  (args) =>
    callControl(
      args,
      (c, q) => c.state.saveStorageState({ urlParams: q, payload: { ...given("filename", args.filename), ...given("targetId", args.targetId) } }),
      savedStateLine
    )
).pipe(Command.withDescription("save the profile's cookies and local storage to a file (it holds sign-ins: keep it private)"))

const load = Command.make(
  "load",
  { ...tabOptions, filename: Args.text({ name: "filename" }).pipe(Args.withDescription("a file in the states root, as `state save` named it")) },
  (args) =>
    callControl(
      args,
      (c, q) => c.state.loadStorageState({ urlParams: q, payload: { filename: args.filename, ...given("targetId", args.targetId) } }),
      loadedStateLine
    )
).pipe(Command.withDescription("replace the profile's cookies and local storage with a saved state"))

export const stateCommand = Command.make("state").pipe(
  Command.withDescription("save the profile's cookies and local storage to a file, or load them back: `state save [name]`, `state load <name>`"),
  Command.withSubcommands([save, load])
)
