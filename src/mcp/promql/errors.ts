/**
 * Why a query was not answered. `parse`: not valid PromQL; `unsupported`: valid PromQL this
 * evaluator does not implement; `refused`: a guard or budget said no. All become tool errors.
 */
export type PromQueryErrorKind = 'parse' | 'unsupported' | 'refused';

export class PromQueryError extends Error {
  constructor(
    readonly kind: PromQueryErrorKind,
    message: string,
  ) {
    super(message);
  }
}
