import type { SettlementFaultClass } from './settlement-types.js';

// The keys of the embedded chain's own values in its store's meta table.

/** Written with every submission by earlier versions; read so that a start never goes below it. */
export const META_NEXT_SEQ = 'nextSeq';
export const META_FAIL_NEXT_DEPLOYMENT = 'fault.failNextDeployment';
export const META_SETTLEMENT_CURSOR = 'settlement.submittedThrough';
export const META_BLOCKS_PAUSED = 'fault.blocksPaused';
export const META_DROP_NEXT_ANNOUNCEMENT = 'fault.dropNextBlockAnnouncement';
export const FAULT_CLASSES: readonly SettlementFaultClass[] = ['escrow', 'release', 'payout', 'deposit'];
export const metaFailItems = (faultClass: SettlementFaultClass) => `fault.failSettlementItems.${faultClass}`;
