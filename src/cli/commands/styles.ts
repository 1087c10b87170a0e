import { Args, Command } from "@effect/cli"
import { Option } from "effect"
import { propertiesParam, stylesText } from "../../client/styles.js"
import { targetIdOption } from "./act.js"
import { callControl, commonOptions } from "./shared.js"

// svc browser styles <ref> [property...]: an element's CSS (GET /styles).

export const styles = Command.make(
  "styles",
  {
    ...commonOptions,
    ref: Args.text({ name: "ref" }).pipe(Args.withDescription("a ref from `svc browser snapshot`")),
    properties: Args.text({ name: "property" }).pipe(
      Args.withDescription("CSS properties to show (e.g. color margin): only these, with every rule that sets them"),
      Args.repeated
    ),
    targetId: targetIdOption
  },
  (args) =>
    callControl(
      args,
      (c, q) =>
        c.act.styles({
          urlParams: {
            ...q,
            ref: args.ref,
            ...propertiesParam(args.properties),
            ...Option.match(args.targetId, { onNone: () => ({}), onSome: (targetId) => ({ targetId }) })
          }
        }),
      stylesText
    )
).pipe(Command.withDescription("show <ref>'s CSS: computed values and the rules that set them, highest precedence first"))
