import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { ControlApiBase } from "../domain/controlApi.js"
import * as M from "../domain/messaging.js"

/** Messaging channels: `svc message send` and `svc message action`. */
export class MessagingGroup extends HttpApiGroup.make("messaging")
  .add(HttpApiEndpoint.post("send", "/message/send").setPayload(M.SendMessageRequest).addSuccess(M.SendMessageResult))
  .add(HttpApiEndpoint.post("action", "/message/action").setPayload(M.MessageActionRequest).addSuccess(M.MessageActionResult))
{}

/** The messaging part of the control API. */
export class MessagingApi extends ControlApiBase.add(MessagingGroup) {}
