import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FakeBridge, postWebhook, startFakeBridge } from "../support/fakeBridge.js"
import { type Gateway, makeStateDir, startGateway, waitUntil } from "../support/gateway.js"

// Two bridge accounts on one real gateway: `svc message send|action` and `svc status` through the control
// API, the agent's actions from a webhook, inbound media, and catch-up after a restart — each checked by
// what the fake bridge servers receive.

const ALICE = "+15551230001"
const DM = `iMessage;-;${ALICE}`

const message = (guid: string, text: string, extra: Record<string, unknown> = {}) => ({
  guid,
  text,
  handle: { address: ALICE, service: "iMessage" },
  isFromMe: false,
  attachments: [],
  dateCreated: Date.now(),
  chats: [{ guid: DM, style: 45, chatIdentifier: ALICE, displayName: "" }],
  ...extra
})

const until = (check: () => boolean, ms = 8000) => waitUntil(check, ms)

describe("msgbridge accounts, CLI and agent actions", () => {
  let home: FakeBridge
  let work: FakeBridge
  let gw: Gateway
  let stateDir: string
  let mediaRoot: string
  const hook = (bridge: FakeBridge, p: string) => `http://127.0.0.1:${gw.port}${p}?password=${encodeURIComponent(bridge.password)}`
  const texts = (bridge: FakeBridge) => bridge.callsTo("/api/v1/message/text").map((c) => c.body as { chatGuid: string; message: string })

  beforeAll(async () => {
    home = await startFakeBridge({
      serverInfo: { private_api: true, helper_connected: true, os_version: "26.0" },
      chats: [{ guid: DM, style: 45, chatIdentifier: ALICE, participants: [{ address: ALICE }] }],
      attachments: { "at-small": 2048, "at-huge": 3 * 1024 * 1024 }
    })
    work = await startFakeBridge({ password: "work-password-1", serverInfo: { private_api: false, helper_connected: false } })
    mediaRoot = fs.mkdtempSync(path.join(os.tmpdir(), "svc-media-root-"))
    fs.writeFileSync(path.join(mediaRoot, "note.mp3"), Buffer.from("ID3fake-mp3-bytes"))
    stateDir = makeStateDir({
      channels: {
        msgbridge: {
          serverUrl: home.url,
          password: home.password,
          dmPolicy: "allowlist",
          allowFrom: [ALICE],
          mediaMaxMb: 1,
          mediaLocalRoots: [mediaRoot],
          actions: { leaveGroup: false },
          accounts: { work: { serverUrl: work.url, password: work.password } }
        }
      },
      messages: { responsePrefix: "" }
    })
    gw = await startGateway({ stateDir })
  })
  afterAll(async () => {
    await gw?.stop()
    await home?.close()
    await work?.close()
  })

  it("serves one webhook per account, each answered through its own bridge", async () => {
    expect(gw.output()).toContain("/msgbridge-webhook /msgbridge-webhook/work")
    expect((await postWebhook(hook(home, "/msgbridge-webhook"), { type: "new-message", data: message("H-1", "to home") })).status).toBe(200)
    expect((await postWebhook(hook(work, "/msgbridge-webhook/work"), { type: "new-message", data: message("W-1", "to work") })).status).toBe(200)
    // Each account has its own password: the home password does not open the work webhook.
    expect((await postWebhook(`http://127.0.0.1:${gw.port}/msgbridge-webhook/work?password=${encodeURIComponent(home.password)}`, {
      type: "new-message",
      data: message("W-2", "x")
    })).status).toBe(401)
    await until(() => texts(home).some((t) => t.message === "echo: to home") && texts(work).some((t) => t.message === "echo: to work"))
    expect(texts(home).some((t) => t.message === "echo: to work")).toBe(false)
  })

  it("svc message send delivers through the running gateway and prints the short id", async () => {
    const r = await gw.svc("message", "send", "--channel", "msgbridge", "--to", "+1 (555) 123-0001", "--text", "hello from the CLI")
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(new RegExp(`^sent to ${DM.replace(/[+;]/g, "\\$&")} \\(message \\d+\\)`))
    expect(texts(home).at(-1)).toMatchObject({ chatGuid: DM, message: "hello from the CLI" })

    const w = await gw.svc("message", "send", "--account", "work", "--to", "chat_guid:iMessage;-;+15550001111", "--text", "work hello", "--json")
    expect(w.code).toBe(0)
    expect(JSON.parse(w.stdout)).toMatchObject({ account: "work", chatGuid: "iMessage;-;+15550001111", sent: 1 })
    expect(texts(work).at(-1)).toMatchObject({ message: "work hello" })

    const bad = await gw.svc("message", "send", "--to", "not a target", "--text", "x")
    expect(bad.code).toBe(1)
    expect(bad.stderr.trim().split("\n")).toHaveLength(1)
    expect(bad.stderr).toContain("cannot deliver to")
    const noAccount = await gw.svc("message", "send", "--account", "nope", "--to", ALICE, "--text", "x")
    expect(noAccount.code).toBe(1)
    expect(noAccount.stderr).toContain('no msgbridge account "nope"')
  })

  it("svc message action runs an action by short id, and explains a hidden one", async () => {
    const sent = JSON.parse((await gw.svc("message", "send", "--to", `chat_guid:${DM}`, "--text", "react to me", "--json")).stdout)
    const { messageId, messageGuid } = sent.messages[0]
    home.messages.push({ guid: messageGuid, text: "react to me", isFromMe: true, dateCreated: Date.now(), chats: [{ guid: DM, style: 45 }] })
    const r = await gw.svc("message", "action", "react", `messageId=${messageId}`, "emoji=love")
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    expect(home.callsTo("/api/v1/message/react").at(-1)!.body).toMatchObject({ chatGuid: DM, selectedMessageGuid: messageGuid, reaction: "love" })

    // The home bridge runs host OS 26: edit is hidden there, and the CLI says why in one line.
    const edit = await gw.svc("message", "action", "edit", `messageId=${messageId}`, "text=changed")
    expect(edit.code).toBe(1)
    expect(edit.stderr.trim().split("\n")).toHaveLength(1)
    expect(edit.stderr).toMatch(/26/)
    expect(home.calls.some((c) => c.path.endsWith("/edit"))).toBe(false)
    // Switched off in the config.
    const leave = await gw.svc("message", "action", "leaveGroup", "chatGuid=iMessage;+;chat1")
    expect(leave.code).toBe(1)
    expect(leave.stderr).toContain("actions.leaveGroup")
    // The work bridge has the Private API off: react is hidden there.
    const workReact = await gw.svc("message", "action", "react", "--account", "work", "messageId=SOME-GUID", "emoji=like")
    expect(workReact.code).toBe(1)
    expect(workReact.stderr).toMatch(/Private API/)
    // A voice memo from a path under mediaLocalRoots; a path outside is refused before anything is sent.
    const voice = await gw.svc("message", "action", "sendAttachment", `to=chat_guid:${DM}`, `path=${path.join(mediaRoot, "note.mp3")}`, "asVoice=true")
    expect(voice.stderr).toBe("")
    const upload = home.callsTo("/api/v1/message/attachment").at(-1)!
    expect(upload.fields).toMatchObject({ chatGuid: DM, isAudioMessage: "true" })
    const outside = await gw.svc("message", "action", "sendAttachment", `to=chat_guid:${DM}`, "path=/etc/hostname")
    expect(outside.code).toBe(1)
    expect(outside.stderr).toContain("mediaLocalRoots")
    expect(home.callsTo("/api/v1/message/attachment")).toHaveLength(1)
  })

  it("lets the agent run an action on the message it answers ({{MessageSidFull}})", async () => {
    const data = message("H-ACT", '!action react {"messageId":"{{MessageSidFull}}","emoji":"👍"}')
    home.messages.push(data)
    await postWebhook(hook(home, "/msgbridge-webhook"), { type: "new-message", data })
    await until(() => texts(home).some((t) => t.message.startsWith("echo: action react")))
    expect(texts(home).find((t) => t.message.startsWith("echo: action react"))!.message).toMatch(/^echo: action react done \(message \d+\)$/)
    expect(home.callsTo("/api/v1/message/react").at(-1)!.body).toMatchObject({ selectedMessageGuid: "H-ACT", reaction: "like" })
  })

  it("downloads inbound media under the cap and tells the agent what it skipped", async () => {
    const data = message("H-MEDIA", "\ufffc\ufffc", {
      attachments: [
        { guid: "at-small", mimeType: "image/jpeg", transferName: "IMG_1.jpg", totalBytes: 2048 },
        { guid: "at-huge", mimeType: "video/mp4", transferName: "clip.mov", totalBytes: 3 * 1024 * 1024 }
      ]
    })
    await postWebhook(hook(home, "/msgbridge-webhook"), { type: "new-message", data })
    await until(() => texts(home).some((t) => t.message.includes("IMG_1.jpg")))
    const reply = texts(home).find((t) => t.message.includes("IMG_1.jpg"))!.message
    expect(reply).toContain("[IMG_1.jpg, 2048 bytes]")
    expect(reply).toMatch(/clip\.mov.*(limit|over)/)
    expect(home.downloads.some((d) => d.guid === "at-huge" && d.finished)).toBe(false)
    const saved = fs.readdirSync(path.join(stateDir, "media", "msgbridge", "default"), { recursive: true }) as Array<string>
    expect(saved.some((f) => f.endsWith("IMG_1.jpg"))).toBe(true)
  })

  it("svc status shows each account; --deep asks the bridges and lists the actions", async () => {
    const plain = await gw.svc("status")
    expect(plain.code).toBe(0)
    expect(plain.stdout).toContain("msgbridge default: webhook /msgbridge-webhook")
    expect(plain.stdout).toContain("msgbridge work: webhook /msgbridge-webhook/work")
    expect(plain.stdout).not.toContain(home.password)

    const deep = await gw.svc("status", "--deep")
    expect(deep.code).toBe(0)
    expect(deep.stdout).toMatch(/bridge server: reachable \(\d+ ms\), host OS 26\.0/)
    expect(deep.stdout).toMatch(/action edit off: .*26/)
    expect(deep.stdout).toMatch(/action leaveGroup off: .*actions\.leaveGroup/)
    expect(deep.stdout).toMatch(/action react off: .*Private API/) // the work account
    const json = JSON.parse((await gw.svc("status", "--deep", "--json")).stdout)
    expect(json.channels.msgbridge.accounts.map((a: { accountId: string }) => a.accountId)).toEqual(["default", "work"])
    expect(json.channels.msgbridge.accounts[0].bridge).toMatchObject({ reachable: true, osVersion: "26.0", privateApiUsable: true })
  })

  it("catches up after a restart on what arrived while it was down, once", async () => {
    // The cursor is persisted about once a second: let it settle, then stop.
    await new Promise((r) => setTimeout(r, 1500))
    expect(await gw.stop()).toBe(0)
    const t = Date.now()
    home.messages.push(
      message("H-DOWN-1", "sent while down", { dateCreated: t + 1 }),
      message("H-DOWN-2", "me, from my phone", { dateCreated: t + 2, isFromMe: true }),
      message("H-1", "to home", { dateCreated: t + 3 }) // already answered before the stop
    )
    gw = await startGateway({ stateDir })
    await until(() => texts(home).some((t) => t.message === "echo: sent while down"))
    await new Promise((r) => setTimeout(r, 500))
    expect(texts(home).filter((t) => t.message === "echo: to home")).toHaveLength(1)
    expect(texts(home).some((t) => t.message.includes("from my phone"))).toBe(false)
    const status = JSON.parse((await gw.svc("status", "--json")).stdout)
    expect(status.channels.msgbridge.accounts[0].catchUp).toMatchObject({ status: "done", handed: 1 })

    await new Promise((r) => setTimeout(r, 1500))
    expect(await gw.stop()).toBe(0)
    gw = await startGateway({ stateDir })
    await new Promise((r) => setTimeout(r, 1000))
    expect(texts(home).filter((t) => t.message === "echo: sent while down")).toHaveLength(1)
  })
})
