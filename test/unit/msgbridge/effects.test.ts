import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { EFFECT_IDS, EFFECT_NAMES, resolveEffectId } from "../../../src/msgbridge/channel/Effects.js"

describe("message effects", () => {
  it("maps the documented names to expressive-send ids", () => {
    expect(resolveEffectId("slam")).toEqual(Either.right("com.apple.MobileSMS.expressivesend.impact"))
    expect(resolveEffectId("loud")).toEqual(Either.right("com.apple.MobileSMS.expressivesend.loud"))
    expect(resolveEffectId("gentle")).toEqual(Either.right("com.apple.MobileSMS.expressivesend.gentle"))
    expect(resolveEffectId("invisible-ink")).toEqual(Either.right("com.apple.MobileSMS.expressivesend.invisibleink"))
    expect(resolveEffectId("confetti")).toEqual(Either.right("com.apple.messages.effect.CKConfettiEffect"))
    expect(resolveEffectId("fireworks")).toEqual(Either.right("com.apple.messages.effect.CKFireworksEffect"))
    expect(resolveEffectId("balloons")).toEqual(Either.right("com.apple.messages.effect.CKHappyBirthdayEffect"))
    expect(resolveEffectId("lasers")).toEqual(Either.right("com.apple.messages.effect.CKLasersEffect"))
    expect(resolveEffectId("heart")).toEqual(Either.right("com.apple.messages.effect.CKHeartEffect"))
    expect(resolveEffectId("celebration")).toEqual(Either.right("com.apple.messages.effect.CKSparklesEffect"))
    expect(resolveEffectId("echo")).toEqual(Either.right("com.apple.messages.effect.CKEchoEffect"))
    expect(resolveEffectId("spotlight")).toEqual(Either.right("com.apple.messages.effect.CKSpotlightEffect"))
    expect(EFFECT_NAMES).toHaveLength(12)
  })

  it("accepts loose spelling of a name", () => {
    expect(resolveEffectId("  Invisible Ink ")).toEqual(Either.right(EFFECT_IDS["invisible-ink"]))
    expect(resolveEffectId("SLAM")).toEqual(Either.right(EFFECT_IDS["slam"]))
  })

  it("passes a raw id through", () => {
    expect(resolveEffectId("com.apple.messages.effect.CKSomethingNew")).toEqual(
      Either.right("com.apple.messages.effect.CKSomethingNew")
    )
  })

  it("refuses an unknown name, listing the known ones", () => {
    const r = resolveEffectId("sparkle-storm")
    expect(Either.isLeft(r)).toBe(true)
    if (Either.isLeft(r)) {
      expect(r.left._tag).toBe("UnknownEffect")
      expect(r.left.message).toContain('"sparkle-storm"')
      for (const name of EFFECT_NAMES) expect(r.left.message).toContain(name)
    }
  })
})
