export interface SchemaViolation {
  /** JSON pointer of the offending value, `""` for the root. */
  path: string;
  message: string;
}

/** Throws UnusableSchemaError when the schema cannot come to a verdict (it goes round in a circle). */
export type CompiledSchema = (data: unknown) => SchemaViolation[];

export interface SchemaValidator {
  /** Rejects with ConfigValidationError naming `file` when the schema itself is invalid. */
  compile(schema: unknown, file: string): Promise<CompiledSchema>;
}
