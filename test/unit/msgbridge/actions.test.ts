// Message actions against the fake bridge server on loopback: the calls and bodies each action sends, the
// hiding rules (host OS, Private API, config switches), short ids, media confinement and caps.

import { NodeHttpClient } from "@effect/platform-node"
import { it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect } from "vitest"
import { ACTION_NAMES, type ActionAvailability, actionAvailability } from "../../../src/msgbridge/channel/ActionAvailability.js"
import type { ActionError } from "../../../src/msgbridge/channel/ActionErrors.js"
import { sniffVoiceFormat } from "../../../src/msgbridge/channel/ActionMedia.js"
import { makeMessageActions } from "../../../src/msgbridge/channel/Actions.js"
import { parseReaction } from "../../../src/msgbridge/channel/Reactions.js"
import { makeBridgeClient } from "../../../src/msgbridge/bridge/BridgeClient.js"
import type { ServerInfo } from "../../../src/msgbridge/bridge/serverInfo.js"
import { makeShortIds, shortIdsFilePath } from "../../../src/msgbridge/store/ShortIds.js"
import { type FakeBridgeOptions, fakeBridge, type FakeServerInfo } from "../../support/fakeBridge.js"

const DM = "iMessage;-;+15551230001"
const GROUP = "iMessage;+;chat482919384756102934"
const MSG = "5B9A0C1D-AAAA-BBBB-CCCC-DDDDEEEEFFFF"
const ORPHAN = "0A9B8C7D-1111-2222-3333-444455556666" // a message the bridge knows without its chat
const api = (p: string) => `/api/v1${p}`

const chats: FakeBridgeOptions["chats"] = [
  { guid: GROUP, style: 43, chatIdentifier: "chat482919384756102934", displayName: "Climbing crew", originalROWID: 7, participants: [{ address: "+15551230001" }, { address: "friend@example.com" }] },
  { guid: DM, style: 45, chatIdentifier: "+15551230001", originalROWID: 9, participants: [{ address: "+15551230001" }] }
]
const messages: FakeBridgeOptions["messages"] = [
  { guid: MSG, text: "see you at 7", isFromMe: false, dateCreated: 1_767_225_600_000, chats: [{ guid: DM, style: 45, chatIdentifier: "+15551230001" }] },
  { guid: ORPHAN, text: "?", isFromMe: false, dateCreated: 1_767_225_600_001 }
]

// Minimal files by magic bytes.
const MP3 = Buffer.concat([Buffer.from("ID3\x04\x00\x00\x00\x00\x00\x00", "latin1"), Buffer.alloc(200, 0x11)])
const CAF = Buffer.concat([Buffer.from("caff\x00\x01\x00\x00", "latin1"), Buffer.alloc(100, 0x22)])
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 0x33)])

const mediaDir = () => {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "svc-actions-")))
  const root = path.join(base, "media")
  const outside = path.join(base, "private")
  fs.mkdirSync(root)
  fs.mkdirSync(outside)
  fs.writeFileSync(path.join(root, "memo.mp3"), MP3)
  fs.writeFileSync(path.join(root, "memo.caf"), CAF)
  fs.writeFileSync(path.join(root, "photo.png"), PNG)
  fs.writeFileSync(path.join(root, "big.bin"), Buffer.alloc(5000, 1))
  fs.writeFileSync(path.join(outside, "secret.png"), PNG)
  fs.symlinkSync(path.join(outside, "secret.png"), path.join(root, "link-out.png"))
  return { root, outside }
}

interface SetupOptions {
  readonly serverInfo?: Partial<FakeServerInfo>
  readonly switches?: Record<string, boolean>
  readonly roots?: (dirs: ReturnType<typeof mediaDir>) => ReadonlyArray<string>
  readonly mediaMaxBytes?: number
}

const setup = (o: SetupOptions = {}) =>
  Effect.gen(function*() {
    const bridge = yield* fakeBridge({ chats, messages, ...(o.serverInfo !== undefined ? { serverInfo: o.serverInfo } : {}) })
    const client = yield* makeBridgeClient({ serverUrl: bridge.url, password: bridge.password }).pipe(Effect.provide(NodeHttpClient.layer))
    const shortIds = yield* makeShortIds({ file: shortIdsFilePath(fs.mkdtempSync(path.join(os.tmpdir(), "svc-actions-ids-")), "acct") })
    const dirs = mediaDir()
    const actions = makeMessageActions({
      client,
      shortIds,
      ...(o.switches !== undefined ? { switches: o.switches } : {}),
      mediaLocalRoots: o.roots !== undefined ? o.roots(dirs) : [dirs.root],
      mediaMaxBytes: o.mediaMaxBytes ?? 4096
    })
    return { bridge, client, shortIds, actions, dirs }
  })

const fails = <A>(effect: Effect.Effect<A, ActionError>) => Effect.flip(effect)

const info = (os_version: string, extra: Partial<ServerInfo> = {}): ServerInfo => ({
  os_version,
  server_version: "1.9.9",
  private_api: true,
  helper_connected: true,
  ...extra
})
const enabledNames = (list: ReadonlyArray<ActionAvailability>) => list.filter((a) => a.enabled).map((a) => a.name)
const entry = (list: ReadonlyArray<ActionAvailability>, name: string) => list.find((a) => a.name === name)!

describe("actionAvailability (pure)", () => {
  it("host OS 13 to 25 with the Private API usable: everything on", () => {
    for (const v of ["13.0", "14.6.1", "15.3.1", "25.1"]) {
      expect(enabledNames(actionAvailability(info(v), undefined))).toEqual([...ACTION_NAMES])
    }
    expect(entry(actionAvailability(info("15.3.1"), undefined), "react")).toEqual({ name: "react", enabled: true, needsPrivateApi: true })
    expect(entry(actionAvailability(info("15.3.1"), undefined), "sendAttachment").needsPrivateApi).toBe(false)
  })

  it("host OS 12: edit and unsend hidden, saying they need 13", () => {
    const list = actionAvailability(info("12.7.4"), undefined)
    expect(enabledNames(list)).toEqual(ACTION_NAMES.filter((n) => n !== "edit" && n !== "unsend"))
    expect(entry(list, "edit").reason).toBe("edit is off: the bridge host runs macOS 12, and editing needs macOS 13 or newer")
    expect(entry(list, "unsend").reason).toBe("unsend is off: the bridge host runs macOS 12, and unsending needs macOS 13 or newer")
  })

  it("host OS 26: edit hidden (broken there), unsend on", () => {
    const list = actionAvailability(info("26.0.1"), undefined)
    expect(enabledNames(list)).toEqual(ACTION_NAMES.filter((n) => n !== "edit"))
    expect(entry(list, "edit").reason).toBe("edit is off: the bridge host runs macOS 26, where editing is broken")
  })

  it("host OS 10: the group icon needs 11", () => {
    const list = actionAvailability(info("10.15.7"), undefined)
    expect(entry(list, "setGroupIcon").reason).toBe(
      "setGroupIcon is off: the bridge host runs macOS 10, and setting a group icon needs macOS 11 or newer"
    )
  })

  it("Private API off, or on with its helper disconnected: every Private-API action hidden, attachments stay", () => {
    const off = actionAvailability(info("15.3.1", { private_api: false, helper_connected: false }), undefined)
    expect(enabledNames(off)).toEqual(["sendAttachment"])
    expect(entry(off, "react").reason).toBe("react needs the Private API, which is off on the bridge server")
    const helperless = actionAvailability(info("15.3.1", { helper_connected: false }), undefined)
    expect(enabledNames(helperless)).toEqual(["sendAttachment"])
    expect(entry(helperless, "leaveGroup").reason).toBe(
      "leaveGroup needs the Private API, which is on but its helper is not connected on the bridge server"
    )
  })

  it("a config switch turns an action off, whatever the host; true and unknown keys change nothing", () => {
    const list = actionAvailability(info("15.3.1"), { react: false, sendAttachment: false, edit: true, bogus: false })
    expect(enabledNames(list)).toEqual(ACTION_NAMES.filter((n) => n !== "react" && n !== "sendAttachment"))
    expect(entry(list, "react").reason).toBe("react is turned off by channels.msgbridge.actions.react=false")
    // The switch is named first even when the host would hide the action too.
    expect(entry(actionAvailability(info("26.0"), { edit: false }), "edit").reason).toBe(
      "edit is turned off by channels.msgbridge.actions.edit=false"
    )
    expect(entry(actionAvailability(info("15.0"), { react: false }, "channels.msgbridge.accounts.work.actions"), "react").reason).toBe(
      "react is turned off by channels.msgbridge.accounts.work.actions.react=false"
    )
  })

  it("unreadable server info: only switches apply, and the checked actions say they were not checked", () => {
    const list = actionAvailability(undefined, { leaveGroup: false })
    expect(enabledNames(list)).toEqual(ACTION_NAMES.filter((n) => n !== "leaveGroup"))
    expect(entry(list, "edit").reason).toBe("not checked against the bridge host: its server info could not be read")
    expect(entry(list, "sendAttachment").reason).toBeUndefined()
  })

  it("an unparseable OS version hides nothing by version", () => {
    expect(enabledNames(actionAvailability(info("unknown"), undefined))).toEqual([...ACTION_NAMES])
  })
})

describe("reaction and voice parsing", () => {
  it("reaction names, emoji and removal", () => {
    expect(parseReaction("love")).toEqual({ reaction: "love", remove: false })
    expect(parseReaction("❤️")).toEqual({ reaction: "love", remove: false })
    expect(parseReaction("❤")).toEqual({ reaction: "love", remove: false })
    expect(parseReaction("👍🏽")).toEqual({ reaction: "like", remove: false })
    expect(parseReaction("👎")).toEqual({ reaction: "dislike", remove: false })
    expect(parseReaction("😂")).toEqual({ reaction: "laugh", remove: false })
    expect(parseReaction("‼️")).toEqual({ reaction: "emphasize", remove: false })
    expect(parseReaction("❓")).toEqual({ reaction: "question", remove: false })
    expect(parseReaction("Loved")).toEqual({ reaction: "love", remove: false })
    expect(parseReaction("-laugh")).toEqual({ reaction: "laugh", remove: true })
    expect(parseReaction("🔥")).toBeUndefined()
    expect(parseReaction("-")).toBeUndefined()
  })

  it("voice formats by magic bytes", () => {
    expect(sniffVoiceFormat(MP3)).toBe("mp3")
    expect(sniffVoiceFormat(Uint8Array.from([0xff, 0xfb, 0x90, 0x00]))).toBe("mp3")
    expect(sniffVoiceFormat(CAF)).toBe("caf")
    expect(sniffVoiceFormat(PNG)).toBeUndefined()
    expect(sniffVoiceFormat(new Uint8Array(0))).toBeUndefined()
  })
})

describe("message actions against the bridge", () => {
  it.scopedLive("available reads server info from the bridge", () =>
    Effect.gen(function*() {
      const { actions } = yield* setup({ serverInfo: { os_version: "26.0.1" } })
      const list = yield* actions.available
      expect(enabledNames(list)).toEqual(ACTION_NAMES.filter((n) => n !== "edit"))
      const down = yield* setup()
      yield* Effect.promise(() => down.bridge.close())
      const unread = yield* down.actions.available
      expect(enabledNames(unread)).toEqual([...ACTION_NAMES])
      expect(entry(unread, "react").reason).toContain("server info could not be read")
    }))

  it.scopedLive("react by short id: the chat is looked up, the reaction sent; emoji and remove", () =>
    Effect.gen(function*() {
      const { actions, bridge, shortIds } = yield* setup()
      const short = yield* shortIds.assign(MSG)
      const result = yield* actions.run("react", { messageId: short, emoji: "❤️" })
      expect(result).toEqual({ action: "react", ok: true, messageGuid: MSG, messageId: short, chatGuid: DM })
      expect(bridge.callsTo(api(`/message/${MSG}`), "GET")).toHaveLength(1)
      expect(bridge.callsTo(api(`/message/${MSG}`), "GET")[0]!.query).toEqual({ with: "chats,attachment" })
      yield* actions.run("react", { messageId: MSG, emoji: "👍", remove: true, chatGuid: DM, partIndex: 1 })
      yield* actions.run("react", { messageId: Number(short), emoji: "-question", to: "+1 (555) 123-0001" })
      expect(bridge.callsTo(api("/message/react")).map((c) => c.body)).toEqual([
        { chatGuid: DM, selectedMessageGuid: MSG, reaction: "love", partIndex: 0 },
        { chatGuid: DM, selectedMessageGuid: MSG, reaction: "-like", partIndex: 1 },
        { chatGuid: DM, selectedMessageGuid: MSG, reaction: "-question", partIndex: 0 }
      ])
      // chatGuid and to skip the message lookup
      expect(bridge.callsTo(api(`/message/${MSG}`), "GET")).toHaveLength(1)
    }))

  it.scopedLive("react with something that is not a reaction lists what is accepted", () =>
    Effect.gen(function*() {
      const { actions, bridge } = yield* setup()
      const e = yield* fails(actions.run("react", { messageId: MSG, emoji: "🔥" }))
      expect(e._tag).toBe("ActionInvalidParams")
      expect(e.status).toBe(400)
      expect(e.message).toBe(
        'react: emoji: expected one of love, like, dislike, laugh, emphasize, question or ❤️ 👍 👎 😂 ‼️ ❓, got "🔥"'
      )
      expect(bridge.callsTo(api("/message/react"))).toHaveLength(0)
    }))

  it.scopedLive("edit and unsend post to the message's routes", () =>
    Effect.gen(function*() {
      const { actions, bridge, shortIds } = yield* setup()
      const short = yield* shortIds.assign(MSG)
      expect(yield* actions.run("edit", { messageId: short, text: "see you at 8" })).toEqual({
        action: "edit",
        ok: true,
        messageGuid: MSG,
        messageId: short,
        chatGuid: DM
      })
      expect(bridge.callsTo(api(`/message/${MSG}/edit`), "POST").map((c) => c.body)).toEqual([
        { editedMessage: "see you at 8", backwardsCompatibilityMessage: "Edited to “see you at 8”", partIndex: 0 }
      ])
      yield* actions.run("unsend", { messageId: MSG, partIndex: 2, chatGuid: DM })
      expect(bridge.callsTo(api(`/message/${MSG}/unsend`), "POST").map((c) => c.body)).toEqual([{ partIndex: 2 }])
    }))

  it.scopedLive("reply threads a text to the message and gets the new message a short id", () =>
    Effect.gen(function*() {
      const { actions, bridge, shortIds } = yield* setup()
      const short = yield* shortIds.assign(MSG)
      const result = yield* actions.run("reply", { messageId: short, text: "on my way" })
      const call = bridge.callsTo(api("/message/text"))[0]!
      expect(call.body).toMatchObject({ chatGuid: DM, message: "on my way", method: "private-api", selectedMessageGuid: MSG, partIndex: 0 })
      const guid = result.messageGuid!
      expect(result).toEqual({ action: "reply", ok: true, messageGuid: guid, messageId: "2", chatGuid: DM })
      expect(yield* shortIds.resolve("2")).toBe(guid)
      // with to: no lookup, the chat comes from the target
      yield* actions.run("reply", { messageId: MSG, text: "again", to: `chat_guid:${GROUP}` })
      expect(bridge.callsTo(api("/message/text"))[1]!.body).toMatchObject({ chatGuid: GROUP, selectedMessageGuid: MSG })
      expect(bridge.callsTo(api(`/message/${MSG}`), "GET")).toHaveLength(1)
    }))

  it.scopedLive("sendWithEffect resolves the target and the effect name", () =>
    Effect.gen(function*() {
      const { actions, bridge } = yield* setup()
      const result = yield* actions.run("sendWithEffect", { text: "happy birthday", to: "+15551230001", effectId: "balloons" })
      expect(result).toMatchObject({ action: "sendWithEffect", ok: true, messageId: "1", chatGuid: DM })
      yield* actions.run("sendWithEffect", { text: "boom", to: "chat_id:7", effectId: "com.apple.MobileSMS.expressivesend.impact" })
      expect(bridge.callsTo(api("/message/text")).map((c) => c.body)).toMatchObject([
        { chatGuid: DM, message: "happy birthday", method: "private-api", effectId: "com.apple.messages.effect.CKHappyBirthdayEffect" },
        { chatGuid: GROUP, message: "boom", method: "private-api", effectId: "com.apple.MobileSMS.expressivesend.impact" }
      ])
      const e = yield* fails(actions.run("sendWithEffect", { text: "x", to: DM, effectId: "sparkle" }))
      expect(e._tag).toBe("ActionInvalidParams")
      expect(e.message).toContain("effectId: unknown message effect \"sparkle\": use one of slam, loud")
      const t = yield* fails(actions.run("sendWithEffect", { text: "x", to: "not a target", effectId: "slam" }))
      expect(t._tag).toBe("ActionInvalidParams")
      expect((t as { field: string }).field).toBe("to")
      expect(t.message).toContain('cannot deliver to "not a target"')
      const none = yield* fails(actions.run("sendWithEffect", { text: "x", to: "+15559990000", effectId: "slam" }))
      expect(none.message).toBe("sendWithEffect: to: there is no chat with +15559990000 yet; send them a message first")
    }))

  it.scopedLive("group actions: rename, participants, leave; a DM or an address is refused", () =>
    Effect.gen(function*() {
      const { actions, bridge } = yield* setup()
      expect(yield* actions.run("renameGroup", { chatGuid: GROUP, displayName: "Crag crew" })).toEqual({ action: "renameGroup", ok: true, chatGuid: GROUP })
      expect(bridge.callsTo(api(`/chat/${GROUP}`), "PUT").map((c) => c.body)).toEqual([{ displayName: "Crag crew" }])
      yield* actions.run("addParticipant", { chatGuid: "chat_identifier:chat482919384756102934", address: "+1 (555) 123-0002" })
      yield* actions.run("removeParticipant", { chatGuid: GROUP, address: "Friend@Example.com" })
      expect(bridge.callsTo(api(`/chat/${GROUP}/participant/add`)).map((c) => c.body)).toEqual([{ address: "+15551230002" }])
      expect(bridge.callsTo(api(`/chat/${GROUP}/participant/remove`)).map((c) => c.body)).toEqual([{ address: "friend@example.com" }])
      yield* actions.run("leaveGroup", { chatGuid: `chat_guid:${GROUP}` })
      expect(bridge.callsTo(api(`/chat/${GROUP}/leave`), "POST")).toHaveLength(1)

      const dm = yield* fails(actions.run("leaveGroup", { chatGuid: DM }))
      expect(dm.message).toBe(`leaveGroup: chatGuid: ${DM} is a direct chat; leaveGroup works on group chats only`)
      const addr = yield* fails(actions.run("renameGroup", { chatGuid: "+15551230001", displayName: "x" }))
      expect(addr.status).toBe(400)
      expect(addr.message).toContain("expected a group chat")
      const badAddress = yield* fails(actions.run("addParticipant", { chatGuid: GROUP, address: "bob" }))
      expect(badAddress.message).toBe('addParticipant: address: expected a phone number or an e-mail address, got "bob"')
      expect(bridge.callsTo(api(`/chat/${DM}/leave`))).toHaveLength(0)
    }))

  it.scopedLive("setGroupIcon from a confined path and from a base64 buffer", () =>
    Effect.gen(function*() {
      const { actions, bridge, dirs } = yield* setup()
      yield* actions.run("setGroupIcon", { chatGuid: GROUP, path: path.join(dirs.root, "photo.png") })
      yield* actions.run("setGroupIcon", { chatGuid: GROUP, buffer: PNG.toString("base64"), filename: "icon.png" })
      const calls = bridge.callsTo(api(`/chat/${GROUP}/icon`), "POST")
      expect(calls.map((c) => c.files)).toEqual([{ icon: { name: "photo.png", size: PNG.length } }, { icon: { name: "icon.png", size: PNG.length } }])
      for (const c of calls) {
        expect(Buffer.from(c.fileData!.icon!.bytes).equals(PNG)).toBe(true)
        expect(c.fileData!.icon!.type).toBe("image/png")
      }
      const denied = yield* fails(actions.run("setGroupIcon", { chatGuid: GROUP, media: path.join(dirs.outside, "secret.png") }))
      expect(denied.status).toBe(403)
    }))

  it.scopedLive("sendAttachment: a file to a target, with its bytes; a buffer needs a filename", () =>
    Effect.gen(function*() {
      const { actions, bridge, dirs } = yield* setup()
      const result = yield* actions.run("sendAttachment", { to: "+15551230001", path: path.join(dirs.root, "photo.png") })
      expect(result).toMatchObject({ action: "sendAttachment", ok: true, messageId: "1", chatGuid: DM })
      yield* actions.run("sendAttachment", { to: DM, buffer: `data:image/png;base64,${PNG.toString("base64")}`, filename: "dir/shot.png" })
      const calls = bridge.callsTo(api("/message/attachment"))
      expect(calls.map((c) => c.fields)).toEqual([
        { chatGuid: DM, name: "photo.png", tempGuid: expect.any(String), method: "private-api", isAudioMessage: "false" },
        { chatGuid: DM, name: "shot.png", tempGuid: expect.any(String), method: "private-api", isAudioMessage: "false" }
      ])
      expect(Buffer.from(calls[0]!.fileData!.attachment!.bytes).equals(PNG)).toBe(true)
      expect(Buffer.from(calls[1]!.fileData!.attachment!.bytes).equals(PNG)).toBe(true)

      const noName = yield* fails(actions.run("sendAttachment", { to: DM, buffer: PNG.toString("base64") }))
      expect(noName._tag).toBe("ActionInvalidParams")
      expect((noName as { field: string }).field).toBe("filename")
      const both = yield* fails(actions.run("sendAttachment", { to: DM, buffer: "AAAA", filename: "a", path: path.join(dirs.root, "photo.png") }))
      expect(both.message).toContain("give either path (a local file) or buffer (base64 bytes), not both")
      const neither = yield* fails(actions.run("sendAttachment", { to: DM }))
      expect(neither.message).toContain("the file is missing")
      const badB64 = yield* fails(actions.run("sendAttachment", { to: DM, buffer: "not base64!", filename: "x.bin" }))
      expect(badB64.message).toBe("sendAttachment: buffer: expected the file's bytes as base64")
      const missing = yield* fails(actions.run("sendAttachment", { to: DM, path: path.join(dirs.root, "nope.png") }))
      expect(missing.status).toBe(400)
      expect(missing.message).toContain("no readable file at")
      expect(bridge.callsTo(api("/message/attachment"))).toHaveLength(2)
    }))

  it.scopedLive("asVoice: MP3 and CAF go as voice messages, anything else is a clear 400", () =>
    Effect.gen(function*() {
      const { actions, bridge, dirs } = yield* setup()
      yield* actions.run("sendAttachment", { to: DM, path: path.join(dirs.root, "memo.mp3"), asVoice: true })
      yield* actions.run("sendAttachment", { to: DM, path: path.join(dirs.root, "memo.caf"), asVoice: true })
      yield* actions.run("sendAttachment", { to: DM, buffer: MP3.toString("base64"), filename: "note", asVoice: true })
      const calls = bridge.callsTo(api("/message/attachment"))
      expect(calls.map((c) => [c.fields!.name, c.fields!.isAudioMessage, c.fileData!.attachment!.type])).toEqual([
        ["memo.mp3", "true", "audio/mpeg"],
        ["memo.caf", "true", "audio/x-caf"],
        ["note.mp3", "true", "audio/mpeg"]
      ])

      const png = yield* fails(actions.run("sendAttachment", { to: DM, path: path.join(dirs.root, "photo.png"), asVoice: true }))
      expect(png._tag).toBe("ActionInvalidParams")
      expect(png.status).toBe(400)
      expect(png.message).toBe("sendAttachment: asVoice needs an MP3 or CAF audio file; photo.png is neither")
      const fake = yield* fails(actions.run("sendAttachment", { to: DM, buffer: PNG.toString("base64"), filename: "fake.mp3", asVoice: true }))
      expect(fake.message).toBe("sendAttachment: asVoice needs an MP3 or CAF audio file; fake.mp3 is not one (its content is not MP3)")
      const misnamed = yield* fails(actions.run("sendAttachment", { to: DM, buffer: MP3.toString("base64"), filename: "memo.m4a", asVoice: true }))
      expect(misnamed.message).toContain("holds MP3 audio but is named .m4a")
      expect(bridge.callsTo(api("/message/attachment"))).toHaveLength(3)
    }))

  it.scopedLive("media over mediaMaxBytes is refused with 413, from a path or a buffer", () =>
    Effect.gen(function*() {
      const { actions, bridge, dirs } = yield* setup({ mediaMaxBytes: 1000 })
      const big = yield* fails(actions.run("sendAttachment", { to: DM, path: path.join(dirs.root, "big.bin") }))
      expect(big._tag).toBe("ActionMediaTooLarge")
      expect(big.status).toBe(413)
      expect(big.message).toContain("is 5000 bytes, over the 1000-byte limit (channels.msgbridge.mediaMaxMb)")
      const buf = yield* fails(actions.run("setGroupIcon", { chatGuid: GROUP, buffer: Buffer.alloc(1001).toString("base64"), filename: "i.png" }))
      expect(buf.status).toBe(413)
      expect(buf.message).toContain("the buffer holds 1001 bytes, over the 1000-byte limit")
      yield* actions.run("sendAttachment", { to: DM, buffer: Buffer.alloc(1000).toString("base64"), filename: "exact.bin" })
      expect(bridge.callsTo(api("/message/attachment"))).toHaveLength(1)
      expect(bridge.callsTo(api(`/chat/${GROUP}/icon`))).toHaveLength(0)
    }))

  it.scopedLive("local paths: outside the roots, through a symlink, by .., or with no roots: 403", () =>
    Effect.gen(function*() {
      const { actions, bridge, dirs } = yield* setup()
      const outside = yield* fails(actions.run("sendAttachment", { to: DM, path: path.join(dirs.outside, "secret.png") }))
      expect(outside._tag).toBe("ActionPathDenied")
      expect(outside.status).toBe(403)
      expect(outside.message).toContain("is outside channels.msgbridge.mediaLocalRoots")
      const link = yield* fails(actions.run("sendAttachment", { to: DM, path: path.join(dirs.root, "link-out.png") }))
      expect(link.status).toBe(403)
      const dots = yield* fails(actions.run("sendAttachment", { to: DM, path: `${dirs.root}/../private/secret.png` }))
      expect(dots.status).toBe(403)
      const relative = yield* fails(actions.run("sendAttachment", { to: DM, path: "photo.png" }))
      expect(relative.status).toBe(400)
      expect(relative.message).toContain("is not an absolute path")

      const none = yield* setup({ roots: () => [] })
      const off = yield* fails(none.actions.run("sendAttachment", { to: DM, path: path.join(none.dirs.root, "photo.png") }))
      expect(off.status).toBe(403)
      expect(off.message).toContain("channels.msgbridge.mediaLocalRoots is empty")
      // a buffer needs no roots
      yield* none.actions.run("sendAttachment", { to: DM, buffer: PNG.toString("base64"), filename: "p.png" })
      expect(bridge.callsTo(api("/message/attachment"))).toHaveLength(0)
      expect(none.bridge.callsTo(api("/message/attachment"))).toHaveLength(1)
    }))

  it.scopedLive("hidden actions fail with the reason and never reach the bridge: OS 12, OS 26, Private API off, switch", () =>
    Effect.gen(function*() {
      const old = yield* setup({ serverInfo: { os_version: "12.7.4" } })
      const e12 = yield* fails(old.actions.run("unsend", { messageId: MSG }))
      expect(e12._tag).toBe("ActionUnavailable")
      expect(e12.status).toBe(409)
      expect(e12.message).toBe("unsend is off: the bridge host runs macOS 12, and unsending needs macOS 13 or newer")
      yield* old.actions.run("react", { messageId: MSG, emoji: "like" })

      const v13 = yield* setup({ serverInfo: { os_version: "13.6" } })
      yield* v13.actions.run("edit", { messageId: MSG, text: "fixed" })
      yield* v13.actions.run("unsend", { messageId: MSG })
      expect(v13.bridge.callsTo(api(`/message/${MSG}/edit`))).toHaveLength(1)
      expect(v13.bridge.callsTo(api(`/message/${MSG}/unsend`))).toHaveLength(1)

      const tahoe = yield* setup({ serverInfo: { os_version: "26.0.1" } })
      const e26 = yield* fails(tahoe.actions.run("edit", { messageId: MSG, text: "x" }))
      expect(e26.message).toBe("edit is off: the bridge host runs macOS 26, where editing is broken")
      yield* tahoe.actions.run("unsend", { messageId: MSG })
      expect(tahoe.bridge.callsTo(api(`/message/${MSG}/edit`))).toHaveLength(0)
      expect(tahoe.bridge.callsTo(api(`/message/${MSG}/unsend`))).toHaveLength(1)

      const noPrivate = yield* setup({ serverInfo: { private_api: false, helper_connected: false } })
      const ep = yield* fails(noPrivate.actions.run("react", { messageId: MSG, emoji: "love" }))
      expect(ep.message).toBe("react needs the Private API, which is off on the bridge server")
      const helper = yield* setup({ serverInfo: { helper_connected: false } })
      const eh = yield* fails(helper.actions.run("renameGroup", { chatGuid: GROUP, displayName: "x" }))
      expect(eh.message).toBe("renameGroup needs the Private API, which is on but its helper is not connected on the bridge server")
      // attachments do not need it
      yield* noPrivate.actions.run("sendAttachment", { to: DM, path: path.join(noPrivate.dirs.root, "photo.png") })
      expect(noPrivate.bridge.callsTo(api("/message/attachment"))[0]!.fields!.method).toBe("apple-script")

      const switched = yield* setup({ switches: { react: false } })
      const es = yield* fails(switched.actions.run("react", { messageId: MSG, emoji: "love" }))
      expect(es._tag).toBe("ActionUnavailable")
      expect(es.message).toBe("react is turned off by channels.msgbridge.actions.react=false")
      expect(old.bridge.callsTo(api(`/message/${MSG}/unsend`))).toHaveLength(0)
      expect(helper.bridge.callsTo(api(`/chat/${GROUP}`), "PUT")).toHaveLength(0)
      expect(switched.bridge.callsTo(api("/message/react"))).toHaveLength(0)
      expect(noPrivate.bridge.callsTo(api("/message/react"))).toHaveLength(0)
    }))

  it.scopedLive("an action hidden by server info is re-checked against fresh info before refusing", () =>
    Effect.gen(function*() {
      const { actions, bridge } = yield* setup({ serverInfo: { private_api: false } })
      expect(entry(yield* actions.available, "react").enabled).toBe(false)
      bridge.serverInfo.private_api = true // turned on at the bridge; the client's cache still says off
      yield* actions.run("react", { messageId: MSG, emoji: "love" })
      expect(bridge.callsTo(api("/message/react"))).toHaveLength(1)
    }))

  it.scopedLive("short ids: an unknown one is a 404 telling to use the full id; a full guid needs no short id", () =>
    Effect.gen(function*() {
      const { actions, bridge } = yield* setup()
      const e = yield* fails(actions.run("edit", { messageId: "42", text: "x" }))
      expect(e._tag).toBe("ActionShortIdUnknown")
      expect(e.status).toBe(404)
      expect(e.message).toBe("short id 42 is no longer known; use the full message id (MessageSidFull)")
      expect(bridge.callsTo(api("/message/42/edit"))).toHaveLength(0)
      yield* actions.run("edit", { messageId: MSG, text: "x" })
      expect(bridge.callsTo(api(`/message/${MSG}/edit`))).toHaveLength(1)
    }))

  it.scopedLive("an evicted short id no longer resolves", () =>
    Effect.gen(function*() {
      const bridge = yield* fakeBridge({ chats, messages })
      const client = yield* makeBridgeClient({ serverUrl: bridge.url, password: bridge.password }).pipe(Effect.provide(NodeHttpClient.layer))
      const shortIds = yield* makeShortIds({ file: shortIdsFilePath(fs.mkdtempSync(path.join(os.tmpdir(), "svc-actions-ids-")), "acct"), capacity: 2 })
      const actions = makeMessageActions({ client, shortIds, mediaLocalRoots: [], mediaMaxBytes: 100 })
      const first = yield* shortIds.assign(MSG)
      yield* shortIds.assign("other-1")
      yield* shortIds.assign("other-2")
      const e = yield* fails(actions.run("react", { messageId: first, emoji: "love" }))
      expect(e._tag).toBe("ActionShortIdUnknown")
      expect(e.message).toContain(`short id ${first} is no longer known; use the full message id`)
    }))

  it.scopedLive("a message the bridge does not know is 404; one without a chat asks for chatGuid", () =>
    Effect.gen(function*() {
      const { actions } = yield* setup()
      const e = yield* fails(actions.run("react", { messageId: "FFFFFFFF-0000-0000-0000-000000000000", emoji: "love" }))
      expect(e._tag).toBe("ActionMessageNotFound")
      expect(e.status).toBe(404)
      const orphan = yield* fails(actions.run("reply", { messageId: ORPHAN, text: "x" }))
      expect(orphan.status).toBe(400)
      expect(orphan.message).toBe(`reply: cannot tell which chat message ${ORPHAN} is in; pass chatGuid or to`)
    }))

  it.scopedLive("unknown actions and invalid params are 400s that say what is expected; names are forgiving", () =>
    Effect.gen(function*() {
      const { actions, bridge } = yield* setup()
      const unknown = yield* fails(actions.run("poke", {}))
      expect(unknown._tag).toBe("ActionUnknown")
      expect(unknown.status).toBe(400)
      expect(unknown.message).toBe(`unknown action "poke": use one of ${ACTION_NAMES.join(", ")}`)

      const missing = yield* fails(actions.run("edit", { messageId: MSG }))
      expect(missing).toMatchObject({ _tag: "ActionInvalidParams", status: 400, field: "text", message: "edit: invalid params: text is missing" })
      const wrong = yield* fails(actions.run("react", { messageId: MSG, emoji: "love", remove: "yes" }))
      expect(wrong).toMatchObject({ field: "remove", message: "react: invalid params: remove: expected true or false" })
      const extra = yield* fails(actions.run("leaveGroup", { chatGuid: GROUP, chat: GROUP }))
      expect(extra).toMatchObject({ field: "chat" })
      expect(extra.message).toContain("chat is unexpected")
      const badId = yield* fails(actions.run("unsend", { messageId: "" }))
      expect(badId.message).toBe('unsend: invalid params: messageId: expected a message id: a short id such as "12" or a full message guid')
      const notObject = yield* fails(actions.run("leaveGroup", "iMessage;+;x"))
      expect(notObject.message).toBe("leaveGroup: params must be an object of named fields")

      yield* actions.run("send-with-effect", { text: "hi", to: DM, effectId: "slam" })
      yield* actions.run("LEAVE_GROUP", { chatGuid: GROUP })
      expect(bridge.callsTo(api("/message/text"))).toHaveLength(1)
      expect(bridge.callsTo(api(`/chat/${GROUP}/leave`))).toHaveLength(1)
    }))

  it.scopedLive("bridge failures are 502s that keep the bridge's message", () =>
    Effect.gen(function*() {
      const { actions, bridge } = yield* setup()
      bridge.failNext({ path: api("/message/react"), status: 500 })
      const e = yield* fails(actions.run("react", { messageId: MSG, emoji: "love", chatGuid: DM }))
      expect(e._tag).toBe("ActionBridgeFailed")
      expect(e.status).toBe(502)
      expect(e.message).toMatch(/^react failed: POST \/message\/react failed \(500: iMessage Error\): this call needs the Private API helper/)
      bridge.failNext({ path: api(`/chat/${GROUP}/participant/add`), status: 400, message: "not a member" })
      const e2 = yield* fails(actions.run("addParticipant", { chatGuid: GROUP, address: "+15551230002" }))
      expect(e2.status).toBe(502)
      expect(e2.message).toContain("the bridge server rejected the request (400): not a member")
      expect(e2.message).not.toContain(bridge.password)
    }))
})
