// The zlib preset dictionary of SPDY/3 header blocks (SPDY Protocol Draft 3, section 2.6.10.1 "Compression", published
// by the Chromium project at chromium.org/spdy/spdy-protocol/spdy-protocol-draft3 and as the IETF draft
// draft-mbelshe-httpbis-spdy-00, Copyright (c) 2012 IETF Trust, BCP 78 / Trust Legal Provisions). A protocol
// constant: both ends of a SPDY session must compress against exactly these 1,423 bytes (the test pins their
// SHA-256). Written here as the spec builds it: each word of the first part with its 32-bit big-endian length
// before it, then the rest as one run of text.

const WORDS =
  'options head post put delete trace accept accept-charset accept-encoding accept-language accept-ranges age allow ' +
  'authorization cache-control connection content-base content-encoding content-language content-length ' +
  'content-location content-md5 content-range content-type date etag expect expires from host if-match ' +
  'if-modified-since if-none-match if-range if-unmodified-since last-modified location max-forwards pragma ' +
  'proxy-authenticate proxy-authorization range referer retry-after server te trailer transfer-encoding upgrade ' +
  'user-agent vary via warning www-authenticate method get status 200|OK version HTTP/1.1 url public set-cookie ' +
  'keep-alive origin';

const TAIL =
  '100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505' +
  '203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized' +
  '403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented503 Service Unavailable' +
  'Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT' +
  'chunked,text/html,image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,' +
  'text/javascript,publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.';

function build(): Buffer {
  const parts: Buffer[] = [];
  // `|` stands for the one space inside a word ("200 OK").
  for (const word of WORDS.split(' ').map((w) => w.replace('|', ' '))) {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(word.length);
    parts.push(len, Buffer.from(word, 'latin1'));
  }
  parts.push(Buffer.from(TAIL, 'latin1'));
  return Buffer.concat(parts);
}

export const SPDY3_DICTIONARY: Buffer = build();
