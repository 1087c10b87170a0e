// Tapback reactions as people write them ("❤️", "love", "Loved", "-laugh") to the bridge's reaction names.

import type { Reaction } from "../bridge/calls.js"

export const REACTIONS: ReadonlyArray<Reaction> = ["love", "like", "dislike", "laugh", "emphasize", "question"]
export const REACTION_EMOJI: Readonly<Record<Reaction, string>> = {
  love: "❤️",
  like: "👍",
  dislike: "👎",
  laugh: "😂",
  emphasize: "‼️",
  question: "❓"
}
/** Emoji (without variation selectors and skin tones) and spellings people use for each reaction. */
const REACTION_ALIASES: ReadonlyArray<readonly [string, Reaction]> = [
  ["❤", "love"], ["♥", "love"], ["loved", "love"], ["heart", "love"],
  ["👍", "like"], ["liked", "like"], ["thumbsup", "like"],
  ["👎", "dislike"], ["disliked", "dislike"], ["thumbsdown", "dislike"],
  ["😂", "laugh"], ["🤣", "laugh"], ["laughed", "laugh"], ["haha", "laugh"],
  ["‼", "emphasize"], ["❗", "emphasize"], ["!!", "emphasize"], ["emphasized", "emphasize"], ["emphasise", "emphasize"],
  ["❓", "question"], ["❔", "question"], ["?", "question"], ["questioned", "question"]
]

/** "❤️" / "love" / "Loved" → love; a leading "-" asks for removal. Undefined when not a reaction. */
export const parseReaction = (raw: string): { readonly reaction: Reaction; readonly remove: boolean } | undefined => {
  let s = raw.trim()
  const remove = s.startsWith("-") && s.length > 1
  if (remove) s = s.slice(1).trim()
  s = s.replace(/[\uFE0E\uFE0F]|\uD83C[\uDFFB-\uDFFF]/g, "").toLowerCase()
  const named = REACTIONS.find((r) => r === s)
  if (named !== undefined) return { reaction: named, remove }
  const alias = REACTION_ALIASES.find(([a]) => a === s)
  return alias === undefined ? undefined : { reaction: alias[1], remove }
}
