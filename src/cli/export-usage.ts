// Apart from the exporter, so `citebench export --help` loads neither the store nor the publication.
export const EXPORT_USAGE = `usage: citebench export --from YYYY-MM-DD --to YYYY-MM-DD [--format parquet|csv] --out DIR [--data-dir DIR]

  Writes the daily open dataset (GET /api/dataset/{day}.{format}) of every day in [from, to] with
  samples to DIR/citebench-{day}.{format}: a closed day's frozen files byte for byte (frozen now if
  the service has not yet), today's as they stand. Both formats when --format is omitted. The
  database is opened directly, so stop the service first (DuckDB allows one process).
`;
