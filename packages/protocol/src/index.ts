export * from './channels.js';
export * from './errors.js';
export * from './odds.js';
export * from './order-typed-data.js';
export * from './safe-typed-data.js';
export * from './schemas/common.js';
export * from './schemas/metadata.js';
export * from './units.js';
