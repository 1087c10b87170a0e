import { describe, expect, it } from "vitest"
import {
  type AccessInput,
  type AccessPolicy,
  controlCommand,
  decide,
  type Decision,
  policyFromConfig,
  requiresMention
} from "../../../src/msgbridge/channel/Access.js"

const ALICE = "+15551230001" // in allowFrom
const BOB = "+15551230002" // paired
const CAROL = "carol@example.com" // in groupAllowFrom
const EVE = "+15559999999" // stranger
const DM = (sender: string) => `iMessage;-;${sender}`
const GROUP = "iMessage;+;chat100"

const dm = (sender: string, text = "hi"): AccessInput => ({ sender, chatGuid: DM(sender), isGroup: false, text, paired: [BOB] })
const grp = (sender: string, text = "hi", chatGuid = GROUP): AccessInput => ({ sender, chatGuid, isGroup: true, text, paired: [BOB] })

const base: AccessPolicy = { allowFrom: ["+1 (555) 123-0001"], groupAllowFrom: ["Carol@Example.com"] }
const allow = (command?: string): Decision => ({ kind: "allow", command })
const ignore = (reason: string) => ({ kind: "ignore", reason })
const pairing = (sender: string) => ({ kind: "pairing", sender })

describe("decide", () => {
  const cases: ReadonlyArray<readonly [string, AccessInput, AccessPolicy, unknown]> = [
    // D0
    ["D0 from me is ignored", { ...dm(ALICE), isFromMe: true }, base, ignore("from-me")],
    // D1
    ["D1 dm disabled", dm(ALICE), { ...base, dmPolicy: "disabled" }, ignore("dm-disabled")],
    // D2
    ["D2 open: stranger command refused", dm(EVE, "/config set x"), { ...base, dmPolicy: "open" }, ignore("command-unauthorised")],
    ["D2 open: allowFrom command allowed", dm(ALICE, "/model gpt"), { ...base, dmPolicy: "open" }, allow("model")],
    ["D2 open: paired command allowed", dm(BOB, "/model"), { ...base, dmPolicy: "open" }, allow("model")],
    ["D2 pairing: stranger command gets pairing", dm(EVE, "/config"), base, pairing(EVE)],
    ["D2 a path is not a command", dm(EVE, "/ is root"), { ...base, dmPolicy: "open" }, allow()],
    // D3
    ["D3 open: stranger allowed", dm(EVE), { ...base, dmPolicy: "open" }, allow()],
    // D4
    ["D4 allowlist: allowFrom allowed", dm(ALICE), { ...base, dmPolicy: "allowlist" }, allow()],
    ["D4 allowlist: paired not admitted", dm(BOB), { ...base, dmPolicy: "allowlist" }, ignore("dm-not-allowed")],
    ["D4 allowlist: stranger ignored", dm(EVE), { ...base, dmPolicy: "allowlist" }, ignore("dm-not-allowed")],
    ["D4 allowlist: chat_guid entry", dm(EVE), { dmPolicy: "allowlist", allowFrom: [`chat_guid:any;-;${EVE}`] }, allow()],
    ["D4 allowlist: wildcard", dm(EVE), { dmPolicy: "allowlist", allowFrom: ["*"] }, allow()],
    // D5
    ["D5 pairing (default): allowFrom allowed", dm(ALICE), base, allow()],
    ["D5 pairing: paired allowed", dm(BOB), base, allow()],
    ["D5 pairing: stranger gets pairing (normalised)", { ...dm("+1 555 999 9999") }, base, pairing(EVE)],
    // G0-G3
    ["G0 from me in group", { ...grp(CAROL), isFromMe: true }, base, ignore("from-me")],
    ["G1 groups disabled", grp(CAROL), { ...base, groupPolicy: "disabled" }, ignore("groups-disabled")],
    ["G2 allowlist (default): groupAllowFrom sender", grp(CAROL), base, allow()],
    ["G2 allowlist: allowFrom-only sender not admitted when groupAllowFrom set", grp(ALICE), base, ignore("group-sender-not-allowed")],
    ["G2 allowlist: allowFrom stands in when groupAllowFrom absent", grp(ALICE), { allowFrom: [ALICE] }, allow()],
    ["G2 allowlist: empty groupAllowFrom admits nobody", grp(ALICE), { allowFrom: [ALICE], groupAllowFrom: [] }, ignore("group-sender-not-allowed")],
    ["G2 allowlist: paired not admitted", grp(BOB), base, ignore("group-sender-not-allowed")],
    ["G2 allowlist: whole group by chat_guid", grp(EVE), { groupAllowFrom: [`chat_guid:${GROUP}`] }, allow()],
    ["G2 allowlist: whole group by chat_identifier", { ...grp(EVE), chatIdentifier: "chat100" }, { groupAllowFrom: ["chat_identifier:chat100"] }, allow()],
    ["G3 open: stranger allowed", grp(EVE), { ...base, groupPolicy: "open" }, allow()],
    // G4
    ["G4 open: stranger command refused", grp(EVE, "/config"), { ...base, groupPolicy: "open" }, ignore("command-unauthorised")],
    ["G4 open: allowFrom command allowed", grp(ALICE, "/config"), { ...base, groupPolicy: "open" }, allow("config")],
    ["G4 open: paired command allowed", grp(BOB, "/model"), { ...base, groupPolicy: "open" }, allow("model")],
    ["G4 command bypasses mention gating", grp(CAROL, "/model x"), { ...base, groups: { [GROUP]: { requireMention: true } }, mentionPatterns: ["@bot"] }, allow("model")],
    // G5
    ["G5 requireMention, no mention", grp(CAROL, "hello all"), { ...base, groups: { [GROUP]: { requireMention: true } }, mentionPatterns: ["@bot\\b"] }, ignore("mention-required")],
    ["G5 requireMention, mention (case-insensitive)", grp(CAROL, "hey @BOT what"), { ...base, groups: { [GROUP]: { requireMention: true } }, mentionPatterns: ["@bot\\b"] }, allow()],
    ["G5 requireMention via *", grp(CAROL, "hello"), { ...base, groups: { "*": { requireMention: true } }, mentionPatterns: ["bot"] }, ignore("mention-required")],
    ["G5 chat entry overrides *", grp(CAROL, "hello"), { ...base, groups: { "*": { requireMention: true }, [`chat_guid:${GROUP}`]: { requireMention: false } }, mentionPatterns: ["bot"] }, allow()],
    ["G5 no patterns configured", grp(CAROL, "hello"), { ...base, groups: { [GROUP]: { requireMention: true } } }, ignore("mention-required-no-patterns")],
    ["G5 authorised sender's plain text is still gated", grp(CAROL, "hello"), { ...base, groupPolicy: "open", groups: { [GROUP]: { requireMention: true } }, mentionPatterns: ["bot"] }, ignore("mention-required")],
    ["G5 invalid regex matched literally", grp(CAROL, "hi (bot"), { ...base, groups: { [GROUP]: { requireMention: true } }, mentionPatterns: ["(bot"] }, allow()],
    ["G5 default: no mention required", grp(CAROL, "hello"), base, allow()]
  ]
  it.each(cases)("%s", (_name, input, policy, want) => {
    expect(decide(input, policy)).toEqual(want)
  })
})

describe("helpers", () => {
  it("controlCommand", () => {
    expect(controlCommand("/config set a b")).toBe("config")
    expect(controlCommand("  /Model")).toBe("model")
    expect(controlCommand("hello /model")).toBeUndefined()
    expect(controlCommand("/ etc")).toBeUndefined()
    expect(controlCommand("//x")).toBeUndefined()
  })

  it("requiresMention matches a chat under another service prefix", () => {
    expect(requiresMention({ groups: { "iMessage;+;chat1": { requireMention: true } } }, { chatGuid: "any;+;chat1" })).toBe(true)
  })

  it("policyFromConfig: account keys win; agent patterns before messages.groupChat", () => {
    const p = policyFromConfig({
      channels: { msgbridge: { dmPolicy: "open", allowFrom: ["+1"], accounts: { work: { dmPolicy: "allowlist" } } } },
      agents: { list: [{ id: "main", groupChat: { mentionPatterns: ["@main"] } }] },
      messages: { groupChat: { mentionPatterns: ["@all"] } }
    }, "work", "main")
    expect(p).toMatchObject({ dmPolicy: "allowlist", allowFrom: ["+1"], mentionPatterns: ["@main"] })
    expect(policyFromConfig({ messages: { groupChat: { mentionPatterns: ["@all"] } } }).mentionPatterns).toEqual(["@all"])
  })
})
