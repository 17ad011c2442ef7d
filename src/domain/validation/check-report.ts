export const CHECK_NAMES = ['metadata', 'manifest', 'routes', 'storage', 'security', 'signature', 'authentication', 'content'] as const;
export type CheckName = (typeof CHECK_NAMES)[number];

export interface CheckResult {
  check: CheckName;
  passed: boolean;
  /** Why the check failed, one line each. */
  errors: string[];
  /** What is worth knowing but does not fail the check. */
  notes: string[];
}

export interface ValidationReport {
  source: string;
  valid: boolean;
  checks: CheckResult[];
}

export function checkResult(check: CheckName, errors: string[], notes: string[] = []): CheckResult {
  return { check, passed: errors.length === 0, errors, notes };
}

export function validationReport(source: string, checks: CheckResult[]): ValidationReport {
  return { source, valid: checks.every((c) => c.passed), checks };
}
