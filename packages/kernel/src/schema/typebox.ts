/**
 * The kernel's one import of TypeBox's values (its types are imported where used). A bin's script
 * evaluates TypeBox on its first use (tsup.preset.ts `onFirstUse`), through one module that stands
 * in for each entry point; each module importing such a stand-in copies its hundreds of names, so
 * only this one does.
 */
export * as Type from 'typebox/type'
export { Compile } from 'typebox/compile'
export { Check, Errors } from 'typebox/value'
