// Tab indices: a number per tab, given in the order the gateway first saw the tab (the tabs a browser
// already had keep the order it reports them in) and never given again to another tab of the profile.
// Positions would shift when a tab before them closes, so an index from an earlier listing could then
// silently name a different tab; a number that is never reused can only name its own tab or none.

export interface TabOrder {
  /** Numbers the tabs not seen before (in the given order) and forgets the ones no longer listed. */
  readonly sync: (profile: string, listed: ReadonlyArray<string>) => ReadonlyMap<string, number>
  /** The tab's number, numbering it now if it is new (a tab just opened). */
  readonly indexOf: (profile: string, targetId: string) => number
}

export const makeTabOrder = (): TabOrder => {
  const profiles = new Map<string, { next: number; readonly indices: Map<string, number> }>()
  const of = (profile: string) => {
    let p = profiles.get(profile)
    if (p === undefined) {
      p = { next: 0, indices: new Map() }
      profiles.set(profile, p)
    }
    return p
  }
  const number = (p: { next: number; readonly indices: Map<string, number> }, targetId: string) => {
    let i = p.indices.get(targetId)
    if (i === undefined) {
      i = p.next++
      p.indices.set(targetId, i)
    }
    return i
  }
  return {
    sync: (profile, listed) => {
      const p = of(profile)
      for (const id of listed) number(p, id)
      const present = new Set(listed)
      for (const id of [...p.indices.keys()]) if (!present.has(id)) p.indices.delete(id)
      return p.indices
    },
    indexOf: (profile, targetId) => number(of(profile), targetId)
  }
}
