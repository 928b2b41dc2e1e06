/**
 * Response shapes. The same zod schemas type the builders and generate /api/openapi.json, so the
 * document cannot drift from what is served. One module per group of answers; this entry
 * re-exports them all, so importers name one file.
 */
export * from './api-schemas-audit.ts';
export * from './api-schemas-common.ts';
export * from './api-schemas-compare.ts';
export * from './api-schemas-data.ts';
export * from './api-schemas-index.ts';
export * from './api-schemas-provider.ts';
export * from './api-schemas-stat.ts';
