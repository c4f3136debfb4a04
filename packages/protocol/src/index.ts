export * from './channels.js';
