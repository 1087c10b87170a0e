import { Effect } from "effect"
import type { Page } from "playwright-core"
import { InvalidRequest } from "../../domain/errors.js"
import { run } from "./budgets.js"
import type { ActionTarget } from "./target.js"

// Files or data dropped onto an element as if dragged in from outside the page (an upload area, an editor that
// takes dropped text or links): the element gets dragenter, dragover and drop with a DataTransfer holding them.

const DROP_TIMEOUT_MS = 5_000

export interface DropPayload {
  /** Real paths, confined to the uploads root already. */
  readonly files?: ReadonlyArray<string> | undefined
  /** MIME type → text: `text/plain`, `text/uri-list`, `text/html`. */
  readonly data?: Readonly<Record<string, string>> | undefined
}

export const drop = (_page: Page, target: ActionTarget, payload: DropPayload, options: { readonly timeoutMs?: number | undefined } = {}) =>
  Effect.gen(function*() {
    const files = payload.files ?? []
    const data = payload.data ?? {}
    if (files.length === 0 && Object.keys(data).length === 0) {
      return yield* new InvalidRequest({
        message: `drop ${target.ref}: give files (in the uploads root) or data (a MIME type and its text, e.g. text/plain=hello)`
      })
    }
    return yield* run({ action: "drop", target, timeoutMs: options.timeoutMs, defaultMs: DROP_TIMEOUT_MS }, (steps) =>
      // Once: a drop is not repeated on an element that may have taken the first.
      steps.once((timeout) =>
        target.locator.drop({
          ...(files.length > 0 ? { files: [...files] } : {}),
          ...(Object.keys(data).length > 0 ? { data: { ...data } } : {})
        }, { timeout })
      ))
  })
