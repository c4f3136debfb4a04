import { type Config, loadConfig } from '../config/config.js';
import { type ReplayCheck, replayCheckPassed, runReplayCheck } from '../exchange/replay-check.js';
import { differenceUnits, reconcileReportToWire } from '../settlement/reconcile.js';
import { checkDataDir } from './check-data-dir.js';

/** `oddsbook replay`: the replay check of the store the configuration names, printed; 0 when it passes. */
export async function replayCommand(argv: readonly string[]): Promise<number> {
  const config: Config = loadConfig(argv);
  checkDataDir(config);
  return printReplayCheck(await runReplayCheck(config)) ? 0 : 1;
}

/** Prints a replay check as `oddsbook replay` does (each line after `indent`); whether it passed. */
export function printReplayCheck(check: ReplayCheck, indent = ''): boolean {
  const out = (line: string) => console.log(`${indent}${line}`);
  const err = (line: string) => console.error(`${indent}${line}`);
  out(
    `journal: ${check.lastSeq} entries, ${check.replayedCommands} engine commands replayed in ${check.elapsedMs} ms`,
  );
  if (check.projectedSeq < check.lastSeq)
    out(`projections: through seq ${check.projectedSeq} (the next start projects the rest)`);
  out(`state hash from the journal:     ${check.journalHash}`);
  out(`state hash from the projections: ${check.projectionsHash}`);
  if (!check.reconciliation) {
    err('MISMATCH: the projections do not match the journal.');
    return false;
  }
  out('identical');
  const { report, unjournaledReceipts } = check.reconciliation;
  out(
    `reconciliation: ${report.accounts} accounts, ${report.differences.length} differences (${differenceUnits(report)} base units)`,
  );
  if (unjournaledReceipts > 0)
    out(`(${unjournaledReceipts} settlement receipts are not journaled yet: the next start journals them)`);
  if (report.differences.length > 0) err(JSON.stringify(reconcileReportToWire(report).differences, null, 2));
  return replayCheckPassed(check);
}
