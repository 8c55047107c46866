// The protobuf wire format, read only: tags, varints, fixed32/64 and length-delimited payloads. Just enough
// to walk a message field by field; what a field means is the schema's business (decode.ts).

export const enum WireType {
  Varint = 0,
  Fixed64 = 1,
  Bytes = 2,
  Fixed32 = 5,
}

/** A field as it appears on the wire: its number, its wire type and its raw value. */
export type WireField =
  | { no: number; wire: WireType.Varint; value: bigint }
  | { no: number; wire: WireType.Fixed64; value: bigint }
  | { no: number; wire: WireType.Fixed32; value: number }
  | { no: number; wire: WireType.Bytes; value: Uint8Array };

/** Bytes that are not a well-formed protobuf message. */
export class WireError extends Error {
  override name = 'WireError';
}

export class WireReader {
  private pos = 0;

  constructor(private readonly buf: Uint8Array) {}

  get done(): boolean {
    return this.pos >= this.buf.length;
  }

  /** A base-128 varint, up to 64 bits. */
  varint(): bigint {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.pos >= this.buf.length) throw new WireError('unexpected end of data in a varint');
      const b = this.buf[this.pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return BigInt.asUintN(64, result);
    }
    throw new WireError('varint longer than 10 bytes');
  }

  fixed32(): number {
    const b = this.take(4);
    return new DataView(b.buffer, b.byteOffset, 4).getUint32(0, true);
  }

  fixed64(): bigint {
    const b = this.take(8);
    return new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0, true);
  }

  /** A length-delimited payload (a string, bytes, an embedded message or a packed run). */
  bytes(): Uint8Array {
    const len = this.varint();
    if (len > BigInt(this.buf.length - this.pos)) throw new WireError(`length ${len} runs past the end of the data`);
    return this.take(Number(len));
  }

  /** The next field, or undefined at the end of the message. Groups (wire types 3, 4) are long deprecated and rejected. */
  field(): WireField | undefined {
    if (this.done) return undefined;
    const tag = this.varint();
    const no = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    if (no === 0) throw new WireError('field number 0');
    switch (wire) {
      case WireType.Varint:
        return { no, wire, value: this.varint() };
      case WireType.Fixed64:
        return { no, wire, value: this.fixed64() };
      case WireType.Bytes:
        return { no, wire, value: this.bytes() };
      case WireType.Fixed32:
        return { no, wire, value: this.fixed32() };
      default:
        throw new WireError(`unsupported wire type ${wire} for field ${no}`);
    }
  }

  /** Every field of the message, in wire order. */
  *fields(): Generator<WireField> {
    for (let f = this.field(); f !== undefined; f = this.field()) yield f;
  }

  private take(n: number): Uint8Array {
    if (this.pos + n > this.buf.length) throw new WireError('unexpected end of data');
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}

/** Varints of a packed repeated field. */
export function packedVarints(payload: Uint8Array): bigint[] {
  const r = new WireReader(payload);
  const out: bigint[] = [];
  while (!r.done) out.push(r.varint());
  return out;
}
