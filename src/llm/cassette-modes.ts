/**
 * The ways a cassette is used (cassette.ts), on their own so the model options' schema
 * (runtime/model-options.ts), which every command validates, names them without loading the cassette.
 * record: always ask the provider and append; replay: never touch the network; auto: replay else record.
 */
export const CASSETTE_MODES = ["record", "replay", "auto"] as const;
export type CassetteMode = (typeof CASSETTE_MODES)[number];
