/**
 * How the prompt-context hook decides that a stored fact is worth injecting.
 *
 * The retriever's BM25 scores grow with the size of the memory (a word found in one fact of 200
 * weighs ln 147 ≈ 5, in one fact of 10 000 ln 6667 ≈ 8.8) and with the length of the prompt, so no
 * fixed threshold on them separates a prompt about a fact from an unrelated one: on a memory of 219
 * facts, unrelated prompts reached raw scores of 4 to 9.7 while prompts about a fact scored 10 to 30.
 * The hook therefore measures relevance in units of the largest IDF a word can have in this memory:
 *
 *     relevance = BM25 score / ln(1 + (N − 0.5) / 1.5)        N = active facts
 *
 * A fact earns about 1 for each distinctive word of the prompt it contains (more when the word is
 * in its title or tags, less for a word many facts share), so `promptContext.minScore` 3 asks for
 * about three such words. The FTS5 retriever weighs columns more heavily (title 2, tags 1.5, body 1;
 * k1 1.2, b 0.75) and scores the same matches about 1.7 times higher on that memory, so its scores
 * are divided by 1.7 as well (`RETRIEVER_SCALE`): the same prompts then pass the same threshold. Before searching, conversational words that carry no topic ("can you",
 * "please", "how do I", "let's"…) are dropped from the prompt: they are not in the retriever's stop
 * list, and each one matched somewhere in a realistic memory.
 */

/** Words of a chat prompt that say nothing about its topic (lowercase, split as the retriever splits). */
export const PROMPT_FILLER: ReadonlySet<string> = new Set(
  `i me my mine myself we us our ours you your yours he she him her his hers its them what which who whom whose why how when where
   can could would should shall may might must do does did doing done have has had am been being were so too very just also
   please thanks thank hi hello hey ok okay let s t d ll re ve m don doesn didn isn aren wasn weren won wouldn shouldn couldn
   need want like help tell show give make get got know think here now some any all again about from up out over than only
   same other more most add fix write create change explain implement refactor look try`.split(/\s+/),
)

/** The retriever's word split (MiniSearch's default tokenizer): runs of white space and punctuation. */
const SPLIT = /[\n\r\p{Z}\p{P}]+/u
/** The search input accepts at most 2000 characters. */
const QUERY_MAX_CHARS = 2000

/** The prompt as a search query: its words, each once, without filler, at most 2000 characters. Empty when nothing is left. */
export function promptQuery(prompt: string): string {
  const seen = new Set<string>()
  let query = ''
  for (const word of prompt.split(SPLIT)) {
    const lower = word.toLowerCase()
    if (!lower || PROMPT_FILLER.has(lower) || seen.has(lower)) continue
    if (query.length + word.length + 1 > QUERY_MAX_CHARS) break
    seen.add(lower)
    query += query ? ` ${word}` : word
  }
  return query
}

/**
 * How much higher than MiniSearch's a retriever scores the same matches, by retriever name (measured
 * on the Larkspur memory, test/fixtures). A retriever not listed is taken to score like MiniSearch.
 */
export const RETRIEVER_SCALE: Readonly<Record<string, number>> = { minisearch: 1, fts: 1.7 }

/**
 * The unit of relevance: the IDF of a word found in one fact of `activeFacts` (MiniSearch's BM25
 * idf; FTS5's is within 1% of it from 100 facts up), times the retriever's scale.
 */
export function relevanceUnit(activeFacts: number, retriever = 'minisearch'): number {
  const n = Math.max(1, activeFacts)
  return Math.log(1 + (n - 0.5) / 1.5) * (RETRIEVER_SCALE[retriever] ?? 1)
}

/** A retriever score in relevance units (see the top of this file). */
export function relevance(score: number, activeFacts: number, retriever = 'minisearch'): number {
  return score / relevanceUnit(activeFacts, retriever)
}
