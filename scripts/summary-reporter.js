/**
 * Ends a Jest run with the plain line CI reads: `Tests: N passed, N failed, N skipped`.
 * Jest's own summary says "N total", which is not that line.
 */
export default class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const failedSuites = results.numRuntimeErrorTestSuites;
    process.stdout.write(`\nTests: ${results.numPassedTests} passed, ${results.numFailedTests + failedSuites} failed, ${skipped} skipped\n`);
  }
}
