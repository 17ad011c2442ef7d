/**
 * A schema pattern RE2 cannot match in linear time. Apart from the engine, so that the
 * validator can tell it without loading RE2 before the first schema.
 */
export class NonLinearPatternError extends Error {
  constructor(
    readonly pattern: string,
    readonly reason: string,
  ) {
    super(`pattern ${JSON.stringify(pattern)} ${reason}`);
  }
}
