/** The standard sports and their stable ids (seeded by migration 2; ids never change). */
export const STANDARD_SPORTS = [
  { sportId: 1, label: 'Basketball' },
  { sportId: 2, label: 'Hockey' },
  { sportId: 3, label: 'Baseball' },
  { sportId: 4, label: 'Golf' },
  { sportId: 5, label: 'Soccer' },
  { sportId: 6, label: 'Tennis' },
  { sportId: 7, label: 'Mixed Martial Arts' },
  { sportId: 8, label: 'Football' },
  { sportId: 9, label: 'E Sports' },
  { sportId: 10, label: 'Novelty Markets' },
  { sportId: 11, label: 'Rugby Union' },
  { sportId: 12, label: 'Racing' },
  { sportId: 13, label: 'Boxing' },
  { sportId: 14, label: 'Crypto' },
  { sportId: 15, label: 'Cricket' },
  { sportId: 16, label: 'Economics' },
  { sportId: 17, label: 'Politics' },
  { sportId: 18, label: 'Entertainment' },
  { sportId: 19, label: 'Medicinal' },
  { sportId: 20, label: 'Rugby League' },
] as const;

export const SPORT_ID = {
  basketball: 1,
  hockey: 2,
  baseball: 3,
  soccer: 5,
  tennis: 6,
  mma: 7,
  football: 8,
} as const;
