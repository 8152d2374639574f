/** The record generator lives with the tools (the archive benchmark uses it too); tests import it from here. */
export * from '../../tools/fixtures/records.ts';
