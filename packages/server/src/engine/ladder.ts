/** percentageOdds is an implied probability scaled by 10^20. */
export const ODDS_SCALE = 10n ** 20n;

/** Ladder size for the default `oddsLadderStepSize` of 125 (0.125 %). */
export const DEFAULT_LADDER_SIZE = 800;

const STEP_UNITS_PER_ONE = 100_000;

/**
 * The odds ladder of N ticks: tick k (1..N-1) is the implied probability k/N.
 * At maker tick k a fill is a whole number of lots, each lot `makerLot[k]` maker units against
 * `takerLot[k]` taker units (k/g and (N-k)/g with g = gcd(k, N)), so every fill is at the exact price.
 */
export interface Ladder {
  readonly size: number;
  readonly step: bigint;
  /** percentageOdds of each tick; index 0 and N are the bounds 0 and 10^20. */
  readonly odds: readonly bigint[];
  readonly makerLot: readonly bigint[];
  readonly takerLot: readonly bigint[];
  /** Hash table percentageOdds -> tick (see `tickOfOdds`); built by `createLadder`. */
  readonly tickTable?: TickTable;
}

/**
 * Direct table from the low bits of a tick's percentageOdds to the tick. percentageOdds = k * step and
 * step = 2^shift * (odd), so bits shift.. of k * step are k * (odd) modulo a power of two: distinct for
 * every k below `mask + 1`. A hit is confirmed by comparing the whole bigint, so values that only share
 * those bits are still refused.
 */
export interface TickTable {
  readonly shift: number;
  readonly mask: number;
  readonly ticks: Int32Array;
}

// The low 64 bits of a bigint as two 32-bit halves: a typed-array store, no bigint arithmetic.
const low64 = new BigUint64Array(1);
const low32 = new Uint32Array(low64.buffer);

/** Bits shift..shift+31 of the low 64 bits of `x` (1 <= shift <= 31). */
function bitsOf(x: bigint, shift: number): number {
  low64[0] = x;
  return (low32[0]! >>> shift) | (low32[1]! << (32 - shift));
}

function buildTickTable(odds: readonly bigint[], step: bigint, size: number): TickTable | undefined {
  let shift = 0;
  while (((step >> BigInt(shift)) & 1n) === 0n) shift++;
  if (shift === 0 || shift > 31) return undefined;
  let slots = 16;
  while (slots < size) slots *= 2;
  const mask = slots - 1;
  const ticks = new Int32Array(slots);
  for (let k = 1; k < size; k++) {
    const i = bitsOf(odds[k]!, shift) & mask;
    if (ticks[i] !== 0) return undefined;
    ticks[i] = k;
  }
  return { shift, mask, ticks };
}

/** `oddsLadderStepSize` is in units of 0.001 %: 125 gives N = 800. */
export function ladderSizeFromStepSize(oddsLadderStepSize: number): number {
  if (
    !Number.isInteger(oddsLadderStepSize) ||
    oddsLadderStepSize <= 0 ||
    STEP_UNITS_PER_ONE % oddsLadderStepSize !== 0
  ) {
    throw new RangeError(`oddsLadderStepSize must divide ${STEP_UNITS_PER_ONE}: ${oddsLadderStepSize}`);
  }
  return STEP_UNITS_PER_ONE / oddsLadderStepSize;
}

export function gcd(a: number, b: number): number {
  while (b !== 0) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a;
}

export function createLadder(size: number = DEFAULT_LADDER_SIZE): Ladder {
  // Ticks are stored in 16 bits; the scale must divide evenly so every tick has an exact percentageOdds.
  if (!Number.isInteger(size) || size < 2 || size > 0xffff || ODDS_SCALE % BigInt(size) !== 0n) {
    throw new RangeError(`ladder size must be an integer in 2..65535 dividing 10^20: ${size}`);
  }
  const step = ODDS_SCALE / BigInt(size);
  const odds: bigint[] = [];
  const makerLot: bigint[] = [];
  const takerLot: bigint[] = [];
  for (let k = 0; k <= size; k++) {
    odds.push(BigInt(k) * step);
    const g = k === 0 || k === size ? size : gcd(k, size);
    makerLot.push(BigInt(k / g));
    takerLot.push(BigInt((size - k) / g));
  }
  return { size, step, odds, makerLot, takerLot, tickTable: buildTickTable(odds, step, size) };
}

/** The tick of an on-ladder percentageOdds strictly between 0 and 1, or 0 when off the ladder. */
export function tickOfOdds(ladder: Ladder, percentageOdds: bigint): number {
  const table = ladder.tickTable;
  if (table !== undefined) {
    // Converting a bigint to a number is a runtime call in V8; a typed-array store of its low bits is not.
    const k = table.ticks[bitsOf(percentageOdds, table.shift) & table.mask]!;
    return k !== 0 && ladder.odds[k] === percentageOdds ? k : 0;
  }
  // Without the table: no bigint division; the table comparison rejects values that only round onto a tick.
  const k = Number(percentageOdds) / Number(ladder.step);
  if (Number.isInteger(k) && k >= 1 && k < ladder.size && ladder.odds[k] === percentageOdds) return k;
  if (percentageOdds <= 0n || percentageOdds >= ODDS_SCALE || percentageOdds % ladder.step !== 0n) return 0;
  return Number(percentageOdds / ladder.step);
}
