import type { PackedStrings } from './packed-strings.js'

/**
 * Document ids by slot: a snapshot's ids stay packed (one string, offsets) and are sliced when a hit
 * names them; slots added since are an array. The id → slot map is built when a write or removal
 * first asks for it (a search never does), from every slot: slots die only through `forget`, which
 * needs the map, so when it is built every slot is live.
 */
export class SlotIds {
  private added: string[] = []
  private map: Map<string, number> | undefined

  constructor(private packed?: PackedStrings) {}

  get length(): number {
    return (this.packed?.size ?? 0) + this.added.length
  }

  /** The id of `slot` (live or dead). */
  get(slot: number): string {
    const base = this.packed?.size ?? 0
    return slot < base ? this.packed!.get(slot) : this.added[slot - base]!
  }

  /** A new last slot for `id`; answers the slot. */
  push(id: string): number {
    const slot = this.length
    this.added.push(id)
    this.map?.set(id, slot)
    return slot
  }

  /** The live slot of `id`, undefined when it is not indexed. */
  slotOf(id: string): number | undefined {
    if (!this.map) {
      // The packed ids sliced once, in one pass; from here on the ids are an array.
      const ids = this.packed ? [...this.packed.all(), ...this.added] : this.added
      this.packed = undefined
      this.added = ids
      this.map = new Map(ids.map((id, slot) => [id, slot]))
    }
    return this.map.get(id)
  }

  /** `id`'s slot is dead (its id stays readable by slot until `replace`). */
  forget(id: string): void {
    if (!this.map) this.slotOf(id)
    this.map!.delete(id)
  }

  /** After a compaction: `ids` in their new slots, every one live. */
  replace(ids: string[]): void {
    this.packed = undefined
    this.added = ids
    this.map = new Map(ids.map((id, slot) => [id, slot]))
  }
}

/** A snapshot's documents, mapped: ids packed, per-slot arrays viewed over its decoded bytes. */
export interface MappedSlots {
  ids: PackedStrings
  lenText: Uint32Array
  lenTitle: Uint16Array
  lenTags: Uint16Array
  typeOf: Uint8Array
  scopeOf: Uint32Array
  types: string[]
  scopes: string[]
  /** The sums of the three length arrays. */
  sums: [number, number, number]
}
