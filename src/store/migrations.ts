/** Versioned schema; each step runs once, in order, at start-up. */
export const MIGRATIONS: readonly (readonly string[])[] = [
  // 1: samples in the Prometheus data model, frozen snapshots, harness state.
  [
    `CREATE TABLE series (
       id INTEGER PRIMARY KEY,
       metric VARCHAR NOT NULL,
       labels VARCHAR NOT NULL,
       UNIQUE (metric, labels))`,
    `CREATE TABLE samples (
       series_id INTEGER NOT NULL,
       t BIGINT NOT NULL,
       v DOUBLE NOT NULL,
       PRIMARY KEY (series_id, t))`,
    `CREATE TABLE snapshots (
       key VARCHAR PRIMARY KEY,
       body VARCHAR NOT NULL,
       etag VARCHAR NOT NULL,
       created_at BIGINT NOT NULL)`,
    `CREATE TABLE state (
       key VARCHAR PRIMARY KEY,
       value VARCHAR NOT NULL,
       updated_at BIGINT NOT NULL)`,
  ],
];
