// Message effect names people type ("slam", "confetti") to the bridge's expressive-send ids.

import { Data, Either } from "effect"

const BUBBLE = "com.apple.MobileSMS.expressivesend."
const SCREEN = "com.apple.messages.effect."

/** Name → expressive-send id. Bubble effects first, then full-screen effects. */
export const EFFECT_IDS: Readonly<Record<string, string>> = {
  slam: `${BUBBLE}impact`,
  loud: `${BUBBLE}loud`,
  gentle: `${BUBBLE}gentle`,
  "invisible-ink": `${BUBBLE}invisibleink`,
  confetti: `${SCREEN}CKConfettiEffect`,
  fireworks: `${SCREEN}CKFireworksEffect`,
  balloons: `${SCREEN}CKHappyBirthdayEffect`,
  lasers: `${SCREEN}CKLasersEffect`,
  heart: `${SCREEN}CKHeartEffect`,
  celebration: `${SCREEN}CKSparklesEffect`,
  echo: `${SCREEN}CKEchoEffect`,
  spotlight: `${SCREEN}CKSpotlightEffect`
}

export const EFFECT_NAMES: ReadonlyArray<string> = Object.keys(EFFECT_IDS)

export class UnknownEffect extends Data.TaggedError("UnknownEffect")<{
  readonly effect: string
  readonly message: string
}> {}

/** Lenient spelling: case, spaces and underscores do not matter ("Invisible Ink" → "invisible-ink"). */
const normalise = (name: string) => name.trim().toLowerCase().replace(/[\s_]+/g, "-")

/**
 * Resolve an effect name or raw id. A value containing "com.apple." is taken as a raw id and passed
 * through unchanged; anything else must be one of EFFECT_NAMES.
 */
export const resolveEffectId = (nameOrId: string): Either.Either<string, UnknownEffect> => {
  const trimmed = nameOrId.trim()
  if (trimmed.includes("com.apple.")) return Either.right(trimmed)
  const id = EFFECT_IDS[normalise(trimmed)]
  if (id !== undefined) return Either.right(id)
  return Either.left(
    new UnknownEffect({
      effect: nameOrId,
      message: `unknown message effect "${nameOrId}": use one of ${EFFECT_NAMES.join(", ")}, or a raw id such as ${BUBBLE}impact`
    })
  )
}
