import type { MigrationStep } from './migrate.js'

/** The component name of the retriever's tables in `foundry_schema`. */
export const RETRIEVER_COMPONENT = 'retriever'

/**
 * The retriever's tables. `foundry_retriever_docs` holds each indexed fact's tsvector (title weighted A,
 * tags B, body D) under a GIN index, and its length in lexeme positions; `foundry_retriever_terms` holds each
 * lexeme's document frequency (BM25's IDF, and the vocabulary prefix and typo matching search, in
 * byte order so a prefix is a range of the primary key); `foundry_retriever_index` is one row: the storage
 * revision the index reflects, how its text was analysed, the document count and total length.
 */
export const RETRIEVER_STEPS: readonly MigrationStep[] = [
  {
    about:
      'foundry_retriever_docs (tsvector, GIN), foundry_retriever_terms (document frequency), foundry_retriever_index (revision, totals)',
    sql: `
      CREATE TABLE foundry_retriever_docs (
        id text PRIMARY KEY,
        type text NOT NULL,
        scope text NOT NULL,
        tsv tsvector NOT NULL,
        length integer NOT NULL
      );
      CREATE INDEX foundry_retriever_docs_tsv ON foundry_retriever_docs USING gin (tsv);
      CREATE TABLE foundry_retriever_terms (
        lexeme text COLLATE "C" PRIMARY KEY,
        docs integer NOT NULL
      );
      CREATE INDEX foundry_retriever_terms_length ON foundry_retriever_terms (char_length(lexeme));
      CREATE TABLE foundry_retriever_index (
        one boolean PRIMARY KEY DEFAULT true CHECK (one),
        revision text,
        analyzer text,
        docs bigint NOT NULL DEFAULT 0,
        length bigint NOT NULL DEFAULT 0
      );
      INSERT INTO foundry_retriever_index (one) VALUES (true);
    `,
  },
]
