/**
 * Market types with their production type ids. Every market is binary (outcome one vs outcome two);
 * a 1X2 market is offered as "X vs not X". `voidName` is the outcome that refunds every stake.
 */
export type MarketTypeInfo = {
  readonly label: string;
  readonly hasLine: boolean;
  readonly voidName: 'NO_CONTEST' | 'NO_GAME_OR_EVEN' | 'NO_GAME';
};

export const MARKET_TYPES: Readonly<Record<number, MarketTypeInfo>> = {
  1: { label: '1X2', hasLine: false, voidName: 'NO_GAME' },
  52: { label: '12', hasLine: false, voidName: 'NO_GAME' },
  88: { label: 'To Qualify', hasLine: false, voidName: 'NO_GAME' },
  226: { label: '12 Including Overtime', hasLine: false, voidName: 'NO_CONTEST' },
  3: { label: 'Asian Handicap', hasLine: true, voidName: 'NO_GAME_OR_EVEN' },
  201: { label: 'Asian Handicap Games', hasLine: true, voidName: 'NO_GAME_OR_EVEN' },
  342: { label: 'Asian Handicap Including Overtime', hasLine: true, voidName: 'NO_GAME_OR_EVEN' },
  2: { label: 'Under/Over', hasLine: true, voidName: 'NO_GAME_OR_EVEN' },
  835: { label: 'Asian Under/Over', hasLine: true, voidName: 'NO_GAME_OR_EVEN' },
  28: { label: 'Under/Over Including Overtime', hasLine: true, voidName: 'NO_GAME_OR_EVEN' },
};

/** The type ids the demo seed and most fixtures use. */
export const MARKET_TYPE = {
  oneXTwo: 1,
  moneyline: 52,
  moneylineInclOvertime: 226,
  spread: 3,
  spreadInclOvertime: 342,
  total: 2,
  totalInclOvertime: 28,
} as const;

export const marketTypeInfo = (type: number): MarketTypeInfo | undefined => MARKET_TYPES[type];
