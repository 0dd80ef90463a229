import { relevanceUnit } from '../memory/service.js'
import type { RetrievalDoc, Retriever } from '../retrieval.js'
import { ok } from './expect.js'

/**
 * Facts in the synthetic memory: the `N` of `relevanceUnit(N)`. A retriever whose IDF is not BM25's
 * measures a scale that drifts with N (FTS5's: 1.993 at 100 facts, 1.997 at 200, 2.000 at 1000).
 */
export const CALIBRATION_SIZE = 200

/** Every this many facts, one holds two distinctive words: the "two words ≈ 2" check. */
const PAIR_EVERY = 10

/** Common words, none a stop word, each shared by many facts (so each has a low IDF). */
const FILLER = (
  'service module request config team release build cache schema client server queue token error review deploy ' +
  'branch commit report record field value table index query event handler worker job file folder update change ' +
  'limit retry timeout session account invoice payment'
).split(' ')

const SYLLABLES = ['ka', 'lo', 'mi', 'nu', 'pe', 'ro', 'si', 'tu', 've', 'wa']

/**
 * The `i`th distinctive word (i < 1000): invented (`kalokax`, `tusivex`), seven letters, so none is
 * a prefix of another, and ending in `x`, which the Porter stemmer leaves alone.
 */
function distinctive(i: number): string {
  return `${SYLLABLES[Math.floor(i / 100) % 10]}${SYLLABLES[Math.floor(i / 10) % 10]}${SYLLABLES[i % 10]}x`
}

const TITLE_WORDS = 4
const BODY_WORDS = 13

interface Probe {
  /** The query: one distinctive word, or two. */
  text: string
  /** The fact that holds them, and only it. */
  id: string
}

/**
 * The synthetic memory: facts of the same length (4 title words, 13 body words, no stop words, so
 * every fact has the average length), of filler words but one, in the body, found in no other fact;
 * every tenth fact holds a second one in place of a filler word. A word's IDF is thus the highest a
 * word can have, and each distinctive word is found once in a fact of average length: exactly what
 * `Retriever.scoreScale` describes.
 */
export function calibrationMemory(): { docs: RetrievalDoc[]; single: Probe[]; pair: Probe[] } {
  const docs: RetrievalDoc[] = []
  const single: Probe[] = []
  const pair: Probe[] = []
  const filler = (i: number, j: number) => FILLER[(i * 7 + j * 3) % FILLER.length]!
  for (let i = 0; i < CALIBRATION_SIZE; i++) {
    const id = `fact-${String(i + 1).padStart(4, '0')}`
    const word = distinctive(i)
    const second = i % PAIR_EVERY === 0 ? distinctive(CALIBRATION_SIZE + i / PAIR_EVERY) : undefined
    const title = Array.from({ length: TITLE_WORDS }, (_, j) => filler(i, j))
    const body = Array.from({ length: BODY_WORDS - (second ? 2 : 1) }, (_, j) => filler(i, TITLE_WORDS + j))
    body.splice(6, 0, ...(second ? [word, second] : [word]))
    docs.push({ id, title: title.join(' '), body: body.join(' '), tags: [], type: 'decision', scope: 'project' })
    single.push({ text: word, id })
    if (second) pair.push({ text: `${word} ${second}`, id })
  }
  return { docs, single, pair }
}

export interface Calibration {
  /** Facts in the synthetic memory: the `N` of `relevanceUnit(N)`. */
  size: number
  /** The score of each fact for a query of its distinctive word alone. */
  single: number[]
  /** The score of each fact holding two distinctive words, for a query of both. */
  pair: number[]
}

/**
 * Index the synthetic memory into `retriever` (a reset: give it a fresh one) and query each
 * distinctive word alone, and each pair together. Throws when a query's fact is not its top hit.
 */
export async function calibrate(retriever: Retriever): Promise<Calibration> {
  const { docs, single, pair } = calibrationMemory()
  await retriever.apply({ revision: 'calibration', reset: true, upsert: docs, remove: [] })
  const scores = async (probes: Probe[]) => {
    const out: number[] = []
    for (const { text, id } of probes) {
      const [top] = await retriever.search({ text, limit: 3 })
      ok(top?.id === id, `calibration: "${text}" should find ${id} first; got ${top?.id ?? 'nothing'}`)
      out.push(top!.score)
    }
    return out
  }
  return { size: docs.length, single: await scores(single), pair: await scores(pair) }
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/**
 * The `scoreScale` a retriever should declare, measured: the median score of a fact for a query of
 * the one distinctive word it holds, divided by `relevanceUnit(N)` (the highest IDF a word can have
 * among N facts). 1 for plain BM25. Resets the retriever: give it a fresh one.
 */
export async function calibrateScoreScale(retriever: Retriever): Promise<number> {
  const { size, single } = await calibrate(retriever)
  return median(single) / relevanceUnit(size)
}
