import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

/**
 * SNAPSHOT_DIR/deployment.json: what the writer of a split deployment (`citebench harness` on
 * STORE=prometheus) froze its days with. A frozen day's bytes carry BASE_URL in every citation and
 * are served as they are by every API replica, so a replica with another BASE_URL would serve
 * pages whose own links and frozen citations disagree: the record lets it say so at start-up.
 */
export const DEPLOYMENT_FILE = 'deployment.json';

const record = z.object({ baseUrl: z.string() });
export type DeploymentRecord = z.infer<typeof record>;

/** Written whole (a temporary file renamed over it): a replica never reads half a record. */
export async function writeDeploymentRecord(snapshotDir: string, rec: DeploymentRecord): Promise<void> {
  await mkdir(snapshotDir, { recursive: true });
  const path = join(snapshotDir, DEPLOYMENT_FILE);
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(rec, null, 2)}\n`);
  await rename(tmp, path);
}

/** The writer's record, or null when there is none yet (no writer has started on this folder). */
export async function readDeploymentRecord(snapshotDir: string): Promise<DeploymentRecord | null> {
  let text: string;
  try {
    text = await readFile(join(snapshotDir, DEPLOYMENT_FILE), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  const parsed = record.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${join(snapshotDir, DEPLOYMENT_FILE)} is not a deployment record`);
  return parsed.data;
}

/**
 * The WARN an API replica logs when its BASE_URL is not the writer's, naming both; null when they
 * agree, or when no writer has recorded one.
 */
export async function replicaBaseUrlMismatch(snapshotDir: string, baseUrl: string): Promise<string | null> {
  const rec = await readDeploymentRecord(snapshotDir);
  if (!rec || rec.baseUrl === baseUrl) return null;
  return `BASE_URL=${baseUrl} differs from the writer's BASE_URL=${rec.baseUrl} (${join(snapshotDir, DEPLOYMENT_FILE)}): frozen days are served with the writer's links; give every process of the deployment the same BASE_URL`;
}
