import { addressKey } from "../../src/browser/policy/addresses.js"
import type { PolicySettings } from "../../src/browser/policy/checkUrl.js"

/** The navigation policy's settings of a gateway on the default ports, with no list set, `over` aside. */
export const policySettings = (over: Partial<PolicySettings> = {}): PolicySettings => ({
  allowedDomains: [],
  blockedDomains: [],
  allowFileUrls: false,
  ownPorts: [
    { port: 18789, name: "gateway" },
    { port: 18791, name: "browser control" },
    { port: 18792, name: "extension relay" }
  ],
  interfaces: new Set(["10.1.2.3", addressKey("fe80::1")]),
  ...over
})
