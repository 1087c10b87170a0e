/** The ref on the first snapshot line matching `pattern`; throws with the snapshot when there is none. */
export const refOf = (snapshot: string, pattern: RegExp): string => {
  const line = snapshot.split("\n").find((l) => pattern.test(l))
  const ref = line === undefined ? undefined : /\[ref=([^\]]+)\]/.exec(line)?.[1]
  if (ref === undefined) throw new Error(`no ref for ${pattern} in:\n${snapshot}`)
  return ref
}
