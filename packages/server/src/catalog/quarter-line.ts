import { canonicalLine } from './market-line.js';

/**
 * A quarter line (x.25, x.75) is settled as two bets of half the stake each: one on the whole line and one
 * on the half line around it (research: sx-features.md §2). -0.75 -> -1 and -0.5; -0.25 -> 0 and -0.5;
 * 2.25 -> 2 and 2.5; 2.75 -> 3 and 2.5.
 */
export function quarterLineLegLines(line: string): { whole: string; half: string } {
  const quarters = Math.round(Number(line) * 4);
  if (Math.abs(quarters % 2) !== 1) throw new Error(`${line} is not a quarter line`);
  // The whole line is the nearest integer (a quarter away); the half line is the same distance the other side.
  const wholeQuarters = 4 * Math.round(quarters / 4);
  const halfQuarters = 2 * quarters - wholeQuarters;
  return { whole: quarterText(wholeQuarters), half: quarterText(halfQuarters) };
}

const quarterText = (quarters: number) => canonicalLine(String(quarters / 4 + 0));

/** Market types whose outcomes read "Over x" / "Under x"; the other line types are handicaps. */
const TOTAL_TYPES: readonly number[] = [2, 28, 835];

const signed = (line: string) => (line === '0' || line.startsWith('-') ? line : `+${line}`);
const negated = (line: string) => (line === '0' ? '0' : line.startsWith('-') ? line.slice(1) : `-${line}`);
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A leg market's outcome names, derived from the quarter-line market's: the line written in each name
 * ("Arsenal -0.75", "Chelsea +0.75", "Over 2.25") is replaced by the leg's ("Arsenal -1", "Chelsea +1",
 * "Over 2"), its sign kept (dropped for 0). Names that do not show the line get the type's usual names:
 * "Over x" / "Under x", or each team with its handicap.
 */
export function legOutcomeNames(parent: {
  type: number;
  line: string;
  outcomeOneName: string;
  outcomeTwoName: string;
  teamOneName: string;
  teamTwoName: string;
  legLine: string;
}): { outcomeOneName: string; outcomeTwoName: string } {
  const magnitude = parent.line.replace(/^-/, '');
  const legMagnitude = parent.legLine.replace(/^-/, '');
  const pattern = new RegExp(`(?<![\\d.])([+-]?)${escaped(magnitude)}(?![\\d.])`, 'g');
  const rewrite = (name: string): string | null => {
    const matches = [...name.matchAll(pattern)];
    const last = matches.at(-1);
    if (last === undefined) return null;
    const sign = legMagnitude === '0' ? '' : last[1]!;
    return `${name.slice(0, last.index)}${sign}${legMagnitude}${name.slice(last.index + last[0].length)}`;
  };
  const one = rewrite(parent.outcomeOneName);
  const two = rewrite(parent.outcomeTwoName);
  if (one !== null && two !== null && one !== two) return { outcomeOneName: one, outcomeTwoName: two };
  if (TOTAL_TYPES.includes(parent.type)) {
    return { outcomeOneName: `Over ${parent.legLine}`, outcomeTwoName: `Under ${parent.legLine}` };
  }
  return {
    outcomeOneName: `${parent.teamOneName} ${signed(parent.legLine)}`,
    outcomeTwoName: `${parent.teamTwoName} ${signed(negated(parent.legLine))}`,
  };
}
