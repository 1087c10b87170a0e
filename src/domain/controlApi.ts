import { HttpApi } from "@effect/platform"
import * as Errors from "./errors.js"

/**
 * The control API with no groups yet: its id and the errors any route may answer with. Each capability
 * declares its groups on it (browser/api.ts, msgbridge/api.ts, gateway/api.ts) and serves them from its
 * own handlers; api/ControlApi.ts puts them together. The id is shared, so the pieces are one API.
 */
export const ControlApiBase = HttpApi.make("svc-control")
  .addError(Errors.InvalidRequest)
  .addError(Errors.Unauthorized)
  .addError(Errors.Forbidden)
  .addError(Errors.NavigationBlocked)
  .addError(Errors.NotFound)
  .addError(Errors.Conflict)
  .addError(Errors.BrowserUnavailable)
  .addError(Errors.NotImplemented)
  .addError(Errors.PayloadTooLarge)
  .addError(Errors.BadGateway)
  .addError(Errors.InternalError)
