import { Duration, Effect, Layer, Schedule } from "effect"
import { ConfigStore } from "../../config/ConfigStore.js"
import { pruneDir } from "../../platform/pruneDir.js"
import { browserMediaDir } from "./mediaFiles.js"

/**
 * Screenshots and PDFs stay bounded on disk as inbound media do (a week, 512 MiB): pruned when the
 * gateway starts and every 6 hours while it runs.
 */
export const BrowserMediaPruning = Layer.scopedDiscard(
  Effect.gen(function*() {
    const store = yield* ConfigStore
    yield* pruneDir(browserMediaDir(store.paths.mediaDir), "browser media").pipe(
      Effect.repeat(Schedule.spaced(Duration.hours(6))),
      Effect.forkScoped
    )
  })
)
