export interface SchemaViolation {
  /** JSON pointer of the offending value, `""` for the root. */
  path: string;
  message: string;
}

export type CompiledSchema = (data: unknown) => SchemaViolation[];

export interface SchemaValidator {
  /** Rejects with ConfigValidationError naming `file` when the schema itself is invalid. */
  compile(schema: unknown, file: string): Promise<CompiledSchema>;
}
