declare module '@citation-js/core' {
  export class Cite {
    constructor(data: string, options?: { forceType?: string });
    data: Record<string, unknown>[];
    format(format: string, options?: Record<string, unknown>): string;
  }
}
declare module '@citation-js/plugin-bibtex';
declare module '@citation-js/plugin-ris';
declare module '@citation-js/plugin-csl';
