// SPDY/3.1 framing as moby/spdystream reads and writes it (spdy/types.go, read.go, write.go):
// frame layouts, header blocks compressed with the SPDY/3 dictionary in one zlib stream per
// direction, and a server session answering a client's streams and pings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Socket } from 'node:net';
import { constants, inflateSync } from 'node:zlib';
import { SPDY3_DICTIONARY } from '../../../../src/kube/server/streaming/spdy/dictionary.ts';
import {
  encodeControlFrame,
  encodeDataFrame,
  FLAG_FIN,
  FrameReader,
  FrameType,
  parseStreamHeaders,
  parseSynStream,
  synStreamPayload,
  type Frame,
} from '../../../../src/kube/server/streaming/spdy/frames.ts';
import {
  decodeHeaderBlock,
  encodeHeaderBlock,
  HeaderCompressor,
  HeaderDecompressor,
} from '../../../../src/kube/server/streaming/spdy/header-block.ts';
import { SpdySession } from '../../../../src/kube/server/streaming/spdy/session.ts';
import type { SpdyStream } from '../../../../src/kube/server/streaming/spdy/stream.ts';
import { waitFor } from '../../../helpers/wait.ts';

function adler32(data: Buffer): number {
  let a = 1;
  let b = 0;
  for (const byte of data) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

test('the SPDY/3 dictionary is the 1423 bytes peers expect (Adler-32 e3c6a7c2)', () => {
  assert.equal(SPDY3_DICTIONARY.length, 1423);
  assert.equal(adler32(SPDY3_DICTIONARY).toString(16), 'e3c6a7c2');
  assert.equal(SPDY3_DICTIONARY.subarray(0, 11).toString('latin1'), '\0\0\0\x07options');
  assert.ok(SPDY3_DICTIONARY.toString('latin1').endsWith('utf-,*,enq=0.'));
});

test('data and control frames round-trip, split and joined anywhere', () => {
  const frames = [
    encodeDataFrame(5, FLAG_FIN, Buffer.from('hello')),
    encodeControlFrame(FrameType.Ping, 0, Buffer.from([0, 0, 0, 7])),
    encodeDataFrame(7, 0, Buffer.alloc(70_000, 1)),
    encodeControlFrame(
      FrameType.SynStream,
      FLAG_FIN,
      synStreamPayload({ streamId: 9, associatedId: 0, priority: 3, slot: 0, headerBlock: Buffer.from('block') }),
    ),
  ];
  const wire = Buffer.concat(frames);
  // Control bit, version 3 and type, as spdy/write.go writes them.
  assert.deepEqual([...frames[1].subarray(0, 8)], [0x80, 0x03, 0x00, 0x06, 0x00, 0x00, 0x00, 0x04]);
  assert.deepEqual([...frames[0].subarray(0, 8)], [0, 0, 0, 5, 0x01, 0, 0, 5]);
  const reader = new FrameReader();
  const read: Frame[] = [];
  for (let at = 0; at < wire.length; at += 333) read.push(...reader.push(wire.subarray(at, at + 333)));
  assert.equal(read.length, 4);
  assert.deepEqual(read[0], { control: false, streamId: 5, flags: FLAG_FIN, data: Buffer.from('hello') });
  assert.deepEqual(read[1], {
    control: true,
    version: 3,
    type: FrameType.Ping,
    flags: 0,
    payload: Buffer.from([0, 0, 0, 7]),
  });
  assert.equal(read[2].control === false && read[2].data.length, 70_000);
  const syn = read[3].control ? parseSynStream(read[3].payload) : undefined;
  assert.deepEqual(syn, { streamId: 9, associatedId: 0, priority: 3, slot: 0, headerBlock: Buffer.from('block') });
});

test('header blocks: lower-case names, NUL-joined values, one zlib stream with the dictionary', async () => {
  const headers = { streamtype: ['data'], port: ['8080'], requestid: ['0'], multi: ['a', 'b'] };
  const plain = encodeHeaderBlock(headers);
  assert.equal(plain.readUInt32BE(0), 4);
  assert.ok(plain.includes(Buffer.from('a\0b')));
  assert.deepEqual(decodeHeaderBlock(plain), headers);

  const compressor = new HeaderCompressor();
  const decompressor = new HeaderDecompressor();
  const blocks: Buffer[] = [];
  for (let i = 0; i < 20; i++) {
    const block = await compressor.compress({ ...headers, requestid: [String(i)] });
    blocks.push(block);
    assert.deepEqual(await decompressor.decompress(block), { ...headers, requestid: [String(i)] });
  }
  // zlib header with FDICT and the dictionary's id; every block ends in a sync flush.
  assert.deepEqual([...blocks[0].subarray(0, 6)], [0x78, 0xf9, 0xe3, 0xc6, 0xa7, 0xc2]);
  for (const block of blocks) assert.deepEqual([...block.subarray(-4)], [0, 0, 0xff, 0xff]);
  // Any zlib reader primed with the dictionary decodes the concatenated stream.
  const all = inflateSync(Buffer.concat(blocks), { dictionary: SPDY3_DICTIONARY, finishFlush: constants.Z_SYNC_FLUSH });
  assert.equal(all.readUInt32BE(0), 4);
  compressor.close();
  decompressor.close();
});

test('a session replies to streams, carries data both ways, echoes pings and refuses what it must', async (t) => {
  const accepted: SpdyStream[] = [];
  const server = createServer((socket) => {
    const session = new SpdySession(socket, (h) => (h.port?.[0] === '0' ? 'bad port' : undefined));
    session.on('stream', (stream: SpdyStream) => {
      accepted.push(stream);
      stream.pipe(stream); // echo, FIN after the client's FIN
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  const client: Socket = connect(address.port, '127.0.0.1');
  t.after(() => {
    client.destroy();
    server.close();
  });
  const reader = new FrameReader();
  const frames: Frame[] = [];
  client.on('data', (d: Buffer) => frames.push(...reader.push(d)));
  const compressor = new HeaderCompressor();
  const decompressor = new HeaderDecompressor();
  t.after(() => {
    compressor.close();
    decompressor.close();
  });
  const syn = async (id: number, headers: Record<string, string[]>): Promise<Buffer> =>
    encodeControlFrame(
      FrameType.SynStream,
      0,
      synStreamPayload({
        streamId: id,
        associatedId: 0,
        priority: 0,
        slot: 0,
        headerBlock: await compressor.compress(headers),
      }),
    );
  client.write(await syn(1, { streamtype: ['data'], port: ['80'] }));
  client.write(encodeDataFrame(1, 0, Buffer.from('ping-')));
  client.write(encodeDataFrame(1, FLAG_FIN, Buffer.from('pong')));
  client.write(encodeControlFrame(FrameType.Ping, 0, Buffer.from([0, 0, 0, 1])));
  client.write(await syn(3, { streamtype: ['data'], port: ['0'] }));

  await waitFor(() => frames.some((f) => f.control && f.type === FrameType.RstStream), 'the refusal', 5000);
  await waitFor(() => frames.some((f) => !f.control && (f.flags & FLAG_FIN) !== 0), 'the echo FIN', 5000);
  const reply = frames.find((f) => f.control && f.type === FrameType.SynReply);
  assert.ok(reply?.control);
  const { streamId, headerBlock } = parseStreamHeaders(reply.payload);
  assert.equal(streamId, 1);
  assert.deepEqual(await decompressor.decompress(headerBlock), {});
  const echoed = Buffer.concat(frames.flatMap((f) => (!f.control && f.streamId === 1 ? [f.data] : []))).toString();
  assert.equal(echoed, 'ping-pong');
  assert.ok(frames.some((f) => f.control && f.type === FrameType.Ping && f.payload.readUInt32BE(0) === 1));
  const rst = frames.find((f) => f.control && f.type === FrameType.RstStream);
  assert.ok(rst?.control);
  assert.deepEqual([rst.payload.readUInt32BE(0), rst.payload.readUInt32BE(4)], [3, 5]); // CANCEL
  assert.equal(accepted.length, 1);
  // SYN_REPLY precedes the stream's data, or spdystream drops the data.
  assert.ok(frames.indexOf(reply) < frames.findIndex((f) => !f.control));
});
