import { FoundryError, isFoundryError } from '../errors.js'
import { FactInputSchema, type FactInput } from '../schema/fact.js'
import { WRITE_BATCH_MAX } from '../schema/inputs.js'
import { validator } from '../schema/validate.js'
import { checkFactInput } from './plan-write.js'

const factInput = validator(FactInputSchema)

/**
 * A batch's facts, every one checked before any is written: the schema, then what `planWrite`
 * checks without stored facts. Throws INVALID_INPUT naming the fact's position and its field
 * (`facts[3]: body has 130 words; …`).
 */
export function batchInputs(raw: unknown, today: string): FactInput[] {
  if (!Array.isArray(raw))
    throw new FoundryError(
      'INVALID_INPUT',
      `Invalid memory_write input: facts must be an array of facts, each with title, body and type; got ${raw === null ? 'null' : typeof raw}`,
    )
  if (raw.length === 0)
    throw new FoundryError('INVALID_INPUT', 'Invalid memory_write input: facts is empty; give at least one fact')
  if (raw.length > WRITE_BATCH_MAX)
    throw new FoundryError(
      'INVALID_INPUT',
      `Invalid memory_write input: facts holds ${raw.length} facts; the limit is ${WRITE_BATCH_MAX} a call: split the batch`,
    )
  return raw.map((item: unknown, i) => {
    if (!factInput.check(item))
      throw new FoundryError(
        'INVALID_INPUT',
        `Invalid memory_write input: facts[${i}]: ${factInput.problems(item).join('; ')}`,
      )
    const input = item as FactInput
    atPosition(i, () => checkFactInput(input, today))
    return input
  })
}

/** `fn`, its FoundryError (a plan refused) prefixed with the fact's position in the batch. */
export function atPosition<T>(i: number, fn: () => T): T {
  try {
    return fn()
  } catch (error) {
    if (!isFoundryError(error)) throw error
    throw new FoundryError(error.code, `facts[${i}]: ${error.message}`, { cause: error })
  }
}
