import type { PackedStrings } from './packed-strings.js'

/**
 * Document ids by slot: a snapshot's ids stay packed (one string, offsets) and are sliced when read;
 * slots added since are an array. The id → slot lookup is a hash table of slots (an id is sliced from
 * its slot to compare), built when a write or removal first asks for it (a search never does), from
 * every slot: slots die only through `forget`, which needs it, so when it is built every slot is live.
 * At 100k facts it is 1 MB of integers where a map of ids held 100k strings and their entries.
 */
export class SlotIds {
  private added: string[] = []
  /** Open addressing, linear probing: a slot + 1 a cell, 0 empty, -1 a slot forgotten. */
  private table: Int32Array | undefined
  /** Cells not empty (slots and forgotten ones). */
  private used = 0

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
    if (this.table) this.insert(id, slot)
    return slot
  }

  /** The live slot of `id`, undefined when it is not indexed. */
  slotOf(id: string): number | undefined {
    const cell = this.cellOf(id)
    return cell < 0 ? undefined : this.table![cell]! - 1
  }

  /** `id`'s slot is dead (its id stays readable by slot until `replace`). */
  forget(id: string): void {
    const cell = this.cellOf(id)
    if (cell >= 0) this.table![cell] = -1
  }

  /** After a compaction: `ids` in their new slots, every one live. */
  replace(ids: string[]): void {
    this.packed = undefined
    this.added = ids
    this.table = undefined
  }

  /** The cell holding `id`'s live slot, -1 when none does. */
  private cellOf(id: string): number {
    if (!this.table) this.build(this.length)
    const table = this.table!
    const mask = table.length - 1
    for (let i = hash(id) & mask; ; i = (i + 1) & mask) {
      const c = table[i]!
      if (c === 0) return -1
      if (c > 0 && this.get(c - 1) === id) return i
    }
  }

  /** The table sized for `slots` and more, holding every live slot (all of them when first built). */
  private build(slots: number): void {
    const old = this.table
    let size = 64
    while (size < 2 * slots + 2) size *= 2
    this.table = new Int32Array(size)
    this.used = 0
    if (!old) for (let s = 0; s < slots; s++) this.insert(this.get(s), s)
    else for (const c of old) if (c > 0) this.insert(this.get(c - 1), c - 1)
  }

  private insert(id: string, slot: number): void {
    if (2 * (this.used + 1) > this.table!.length) this.build(this.length)
    const table = this.table!
    const mask = table.length - 1
    let i = hash(id) & mask
    while (table[i] !== 0) i = (i + 1) & mask
    table[i] = slot + 1
    this.used++
  }
}

/** FNV-1a of the string's code units. */
function hash(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return h >>> 0
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
