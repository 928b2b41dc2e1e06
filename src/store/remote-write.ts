import { compress } from 'snappyjs';

/**
 * Prometheus remote write 1.0 (prometheus/prompb): a snappy-compressed protobuf `WriteRequest`.
 * The encoder is written by hand because the message has four fields in three types; a protobuf
 * runtime plus generated code would be far larger than the ~60 lines below. It is checked against
 * the real receivers of Prometheus and VictoriaMetrics in test/e2e/prometheus-store.test.ts.
 */

export interface RemoteSeries {
  /** Must include `__name__`; the encoder sorts them by name, as the receivers assume. */
  readonly labels: Readonly<Record<string, string>>;
  /** Sorted by the encoder by timestamp. */
  readonly samples: readonly { readonly t: number; readonly v: number }[];
}

export const REMOTE_WRITE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Encoding': 'snappy',
  'Content-Type': 'application/x-protobuf',
  'X-Prometheus-Remote-Write-Version': '0.1.0',
};

const utf8 = new TextEncoder();

/** Growable byte buffer with the three protobuf wire types the message uses. */
class Writer {
  private buf: Uint8Array<ArrayBuffer> = new Uint8Array(1024);
  len = 0;

  private ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.len + n));
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  /** Unsigned varint; int64 fields go through BigInt so negative (pre-1970) times stay exact. */
  varint(n: bigint): void {
    this.ensure(10);
    let x = BigInt.asUintN(64, n);
    while (x >= 0x80n) {
      this.buf[this.len++] = Number(x & 0x7fn) | 0x80;
      x >>= 7n;
    }
    this.buf[this.len++] = Number(x);
  }

  tag(field: number, wireType: 0 | 1 | 2): void {
    this.varint(BigInt((field << 3) | wireType));
  }

  bytes(field: number, b: Uint8Array): void {
    this.tag(field, 2);
    this.varint(BigInt(b.length));
    this.ensure(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }

  double(field: number, v: number): void {
    this.tag(field, 1);
    this.ensure(8);
    new DataView(this.buf.buffer, this.buf.byteOffset + this.len, 8).setFloat64(0, v, true);
    this.len += 8;
  }

  int64(field: number, v: number): void {
    this.tag(field, 0);
    this.varint(BigInt(Math.trunc(v)));
  }

  finish(): Uint8Array<ArrayBuffer> {
    return this.buf.slice(0, this.len);
  }
}

/** WriteRequest{ timeseries=1: TimeSeries{ labels=1: Label{name=1, value=2}, samples=2: Sample{value=1, timestamp=2} } } */
export function encodeWriteRequest(series: readonly RemoteSeries[]): Uint8Array<ArrayBuffer> {
  const req = new Writer();
  for (const s of series) {
    const ts = new Writer();
    for (const name of Object.keys(s.labels).sort()) {
      const label = new Writer();
      label.bytes(1, utf8.encode(name));
      label.bytes(2, utf8.encode(s.labels[name] as string));
      ts.bytes(1, label.finish());
    }
    for (const sample of [...s.samples].sort((a, b) => a.t - b.t)) {
      const m = new Writer();
      m.double(1, sample.v);
      m.int64(2, sample.t);
      ts.bytes(2, m.finish());
    }
    req.bytes(1, ts.finish());
  }
  return req.finish();
}

/** The request body: snappy block format (not the framed stream format), as the spec requires. */
export function remoteWriteBody(series: readonly RemoteSeries[]): Uint8Array<ArrayBuffer> {
  return compress(encodeWriteRequest(series));
}
