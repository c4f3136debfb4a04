#!/usr/bin/env node
// The closing lines of CI's test runs (.ci/run), from vitest's JSON report of each run: one line per run,
// "<label>: N passed, N failed", then the plain line CI reads, over all of them: "N passed, N failed".
// A test file that failed before any test ran (an import or setup error), an error outside any test, or a
// report that is missing (the run died before writing it) each count as one failure. Exit 1 when any failed.
// Usage: node scripts/test-summary.mjs <label> <report.json> [<label> <report.json>]...
import { existsSync, readFileSync } from 'node:fs';

const args = process.argv.slice(2);
if (args.length === 0 || args.length % 2 !== 0) {
  console.error('usage: node scripts/test-summary.mjs <label> <report.json> [<label> <report.json>]...');
  process.exit(2);
}

/** Passed and failed counts of one report. */
function counts(path) {
  const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
  if (text === '') return { passed: 0, failed: 1, note: ' (no report: the run stopped early)' };
  const report = JSON.parse(text);
  const brokenFiles = report.testResults.filter(
    (file) => file.status === 'failed' && !file.assertionResults.some((test) => test.status === 'failed'),
  ).length;
  let failed = report.numFailedTests + brokenFiles;
  if (!report.success && failed === 0) failed = 1;
  const note = brokenFiles > 0 ? ` (${brokenFiles} test file(s) failed before their tests)` : '';
  return { passed: report.numPassedTests, failed, note };
}

let passed = 0;
let failed = 0;
for (let i = 0; i < args.length; i += 2) {
  const run = counts(args[i + 1]);
  console.log(`${args[i]}: ${run.passed} passed, ${run.failed} failed${run.note}`);
  passed += run.passed;
  failed += run.failed;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
