/**
 * The search query the prompt-context hook makes of a chat prompt. Relevance itself is the kernel's
 * (`SearchHit.relevance`: about 1 per distinctive query word a fact contains, on one scale for every
 * memory size and retriever); what is particular to a prompt is its conversational words ("can you",
 * "please", "how do I", "let's"…). They are not in the retriever's stop list, each one matched
 * somewhere in a realistic memory, and together they lifted unrelated prompts towards the threshold,
 * so they are dropped before searching.
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
