/**
 * Worker-thread entry: renders OG PNGs off the main event loop (resvg's PNG encode alone blocks
 * ~15-25 ms). Fonts load once per worker. Protocol: OgRequest in, OgReply out, matched by id.
 */
import { parentPort } from 'node:worker_threads';
import { loadInterFonts } from './fonts.ts';
import type { OgModel } from './og-model.ts';
import { renderOgPng } from './og-render.ts';

export interface OgRequest {
  readonly id: number;
  readonly model: OgModel;
}

export type OgReply =
  | { id: number; ok: true; png: Uint8Array<ArrayBuffer>; satoriMs: number; resvgMs: number }
  | { id: number; ok: false; message: string };

if (parentPort) {
  const port = parentPort;
  const fonts = loadInterFonts();
  port.on('message', (req: OgRequest) => {
    renderOgPng(req.model, fonts).then(
      (r) => {
        const reply: OgReply = { id: req.id, ok: true, png: r.png, satoriMs: r.satoriMs, resvgMs: r.resvgMs };
        port.postMessage(reply, [r.png.buffer]);
      },
      (err: unknown) => {
        const reply: OgReply = {
          id: req.id,
          ok: false,
          message: err instanceof Error ? err.message : String(err),
        };
        port.postMessage(reply);
      },
    );
  });
}
